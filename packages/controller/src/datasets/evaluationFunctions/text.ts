import { z } from "zod";
import type { Verdict } from "../../evaluators/verdict.js";
import { defineEvaluationFunction } from "../taskFunctions.js";
import { collapseBlanks, universalNewlines } from "../pycompat/pyStr.js";
import { envArg, fail, fetchResultText, oneOfEach, pass, pickEnv, readLocalText, show, splitLines } from "./common.js";
import { allRules, checkRules, nestedRules, ruleCount, rulesShape } from "./rules.js";
import { NotFoundError } from "@pincer/shared";

/** Options of {@link compareText}. */
export interface CompareTextOptions {
  /**
   * Tabs and line breaks count as spaces, runs of whitespace as one space, and whitespace at the
   * ends of the text is ignored: a line joined or split at a space still matches.
   */
  ignoreBlanks?: boolean;
  /** Letters compare regardless of case. */
  ignoreCase?: boolean;
}

/**
 * The text as compared: read in text mode (CRLF and CR line breaks become LF: line endings never
 * matter), blanks collapsed with `ignoreBlanks` (Python's `re.sub(r"\s+", " ", ...).strip()`),
 * case folded with `ignoreCase`.
 */
function normalizeText(text: string, opts: CompareTextOptions): string {
  let t = universalNewlines(text);
  if (opts.ignoreBlanks) t = collapseBlanks(t);
  if (opts.ignoreCase) t = t.toLowerCase();
  return t;
}

/** Where two different texts part, for the reason: the first differing line, or what one lacks at its end. */
function whereTheyDiffer(expected: string, result: string): string {
  const e = splitLines(expected);
  const r = splitLines(result);
  for (let i = 0; i < Math.max(e.length, r.length); i++) {
    if (e[i] === r[i]) continue;
    if (r[i] === undefined) return `the result ends after line ${r.length}; expected line ${i + 1}: ${show(e[i]!)}`;
    if (e[i] === undefined) return `the result has ${r.length - e.length} extra line(s), from line ${i + 1}: ${show(r[i]!)}`;
    return `line ${i + 1}: expected ${show(e[i]!)}, got ${show(r[i]!)}`;
  }
  return expected.endsWith("\n")
    ? "the expected text ends with a line break, the result does not"
    : "the result ends with a line break, the expected text does not";
}

/**
 * Compares two texts whole, as the published evaluator's `compare_text_file` does: line endings (LF,
 * CRLF, CR) never matter; everything else does, a final line break included, unless
 * `ignoreBlanks`. The reason names the first line that differs.
 */
export function compareText(expected: string, result: string, opts: CompareTextOptions = {}): Verdict {
  const e = normalizeText(expected, opts);
  const r = normalizeText(result, opts);
  if (e === r) return pass(opts.ignoreBlanks ? "the texts match (blanks collapsed)" : `the texts match (${splitLines(e).length} line(s))`);
  return fail(opts.ignoreBlanks ? `with blanks collapsed, ${whereTheyDiffer(e, r).replace(/^line 1: /, "")}` : whereTheyDiffer(e, r));
}

/** `compare_text_file`: the result file on the machine has the expected file's text. */
export const compareTextFile = defineEvaluationFunction({
  name: "compare_text_file",
  description: "Compares a text file on the machine with an expected file (line endings aside); options to ignore blanks and case",
  args: z
    .strictObject({
      local_expected: z.string().min(1).optional().describe("The expected file, relative to the task folder"),
      local_expected_file: z.string().min(1).optional().describe("The same, as the published evaluators of the JSON task format spell it"),
      vm_result: z.string().min(1).optional().describe("The file on the machine"),
      vm_result_file: z.string().min(1).optional().describe("The same, as the published evaluators of the JSON task format spell it"),
      ignore_blanks: z.boolean().default(false).describe("Tabs and line breaks count as spaces, whitespace runs as one space, the ends are stripped"),
      ignore_case: z.boolean().default(false),
      env: envArg,
    })
    .superRefine(
      oneOfEach([
        ["local_expected", "local_expected_file"],
        ["vm_result", "vm_result_file"],
      ]),
    ),
  async run(args, ctx) {
    const expectedPath = (args.local_expected ?? args.local_expected_file)!;
    const expected = await readLocalText(ctx, expectedPath, args.local_expected ? "local_expected" : "local_expected_file");
    const result = await fetchResultText(ctx, args.env, (args.vm_result ?? args.vm_result_file)!);
    if (!result.ok) return result.outcome;
    return compareText(expected, result.text, { ignoreBlanks: args.ignore_blanks, ignoreCase: args.ignore_case });
  },
});

/** `check_include_exclude`: the result file contains every `include` rule and no `exclude` rule. */
export const checkIncludeExclude = defineEvaluationFunction({
  name: "check_include_exclude",
  description: "Checks that a file on the machine contains every include rule (string or {regex}) and no exclude rule",
  args: z
    .strictObject({
      vm_result: z.string().min(1).describe("The file on the machine"),
      ...rulesShape,
      rules: nestedRules,
      env: envArg,
    })
    .refine((a) => ruleCount(a) > 0, { message: "give at least one include or exclude rule" }),
  async run(args, ctx) {
    const result = await fetchResultText(ctx, args.env, args.vm_result);
    if (!result.ok) return result.outcome;
    return checkRules(result.text, { ...allRules(args), ignoreCase: args.ignore_case, subject: args.vm_result });
  },
});

/** `check_file_exists`: a path exists (or, with `exists: false`, does not) on the machine. */
export const checkFileExists = defineEvaluationFunction({
  name: "check_file_exists",
  description: "Checks that a path exists on the machine (optionally of a given type), or with exists: false that it does not",
  args: z.strictObject({
    vm_file: z.string().min(1).describe("The path on the machine"),
    type: z.enum(["any", "file", "directory"]).default("any").describe("What the path must be when it exists"),
    exists: z.boolean().default(true).describe("false: pass when the path does not exist"),
    env: envArg,
  }),
  async run(args, ctx) {
    const env = pickEnv(ctx, args.env);
    let type: string;
    try {
      type = (await env.files.stat(args.vm_file, { signal: ctx.signal })).type;
    } catch (e) {
      if (!(e instanceof NotFoundError)) throw e;
      return args.exists ? fail(`${args.vm_file} does not exist`) : pass(`${args.vm_file} does not exist`);
    }
    if (!args.exists) return fail(`${args.vm_file} exists (a ${type}) but should not`);
    if (args.type !== "any" && type !== args.type) return fail(`${args.vm_file} is a ${type}, not a ${args.type}`);
    return pass(`${args.vm_file} exists (a ${type})`);
  },
});
