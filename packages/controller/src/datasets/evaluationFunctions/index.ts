import { Registry, type EvaluationFunction, type EvaluationRegistry } from "../taskFunctions.js";
import { createAll, createAny } from "./combine.js";
import { compareCsvFunction } from "./csv.js";
import { compareImages, compareJupyterlabImages } from "./images.js";
import {
  areJupyterOutputsCleared,
  compareIpynbFilesFunction,
  compareNotebookCellsFunction,
  compareNotebookOutputsFunction,
  evaluateMultipleNotebooks,
  isJupyterCellExecuted,
} from "./notebook.js";
import { checkClipboard, checkWindowExists } from "./machineState.js";
import { compareScriptLogs } from "./scriptLogs.js";
import { checkFileExists, checkIncludeExclude, compareTextFile } from "./text.js";

export { createAll, createAny } from "./combine.js";
export type { CombinationArgs } from "./combine.js";
export { compareCsv } from "./csv.js";
export type { CompareCsvOptions } from "./csv.js";
export { decodeGray, ssim } from "./images.js";
export {
  checkCellsExecuted,
  checkOutputsCleared,
  compareIpynbFiles,
  compareNotebookCells,
  compareNotebookOutputs,
  parseNotebook,
} from "./notebookChecks.js";
export type { CellsExecutedOptions, NotebookCell, NotebookOutput, NotebookOutputsOptions, OutputsClearedOptions } from "./notebookChecks.js";
export { checkRules, ruleMatches, ruleSchema } from "./rules.js";
export type { Rule, RuleCheck } from "./rules.js";
export { compareText } from "./text.js";
export type { CompareTextOptions } from "./text.js";

/**
 * The built-in evaluation functions that stand alone: file-based ones and those that judge the
 * machine's live state (windows, clipboard). `all` and `any` are not in this list: they
 * look their parts up in a registry, so they are made per registry by {@link createAll} and
 * {@link createAny} (as {@link createEvaluationRegistry} does).
 */
export const builtinEvaluationFunctions: EvaluationFunction[] = [
  compareTextFile,
  compareCsvFunction,
  compareNotebookOutputsFunction,
  compareNotebookCellsFunction,
  compareIpynbFilesFunction,
  isJupyterCellExecuted,
  areJupyterOutputsCleared,
  evaluateMultipleNotebooks,
  compareImages,
  compareJupyterlabImages,
  compareScriptLogs,
  checkFileExists,
  checkIncludeExclude,
  checkWindowExists,
  checkClipboard,
] as EvaluationFunction[];

/**
 * A registry of every built-in evaluation function, `all` and `any` (bound to this registry), and
 * `extra` functions. Names must be unique; to replace a built-in, call
 * `registry.register(fn, { replace: true })` on the result. Functions registered later are
 * visible to `all`/`any` too.
 */
export function createEvaluationRegistry(extra: readonly EvaluationFunction[] = []): EvaluationRegistry {
  const registry: EvaluationRegistry = new Registry<EvaluationFunction>("evaluation function", builtinEvaluationFunctions);
  registry.register(createAll(registry)).register(createAny(registry));
  for (const h of extra) registry.register(h);
  return registry;
}
