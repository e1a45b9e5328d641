import { z } from "zod";
import { defineMetric, type MetricResult, type OsworldMetric } from "../../metric.js";
import { plainJson, pyJsonParse } from "../../../pycompat/pyJson.js";
import { fail } from "../../../../evaluators/verdict.js";
import { filePath, rulesObject, show } from "../common/outcome.js";
import { readText } from "./common.js";
import { pyEqual } from "../../../pycompat/pyValues.js";

/** `json.load`: the parsed document (NaN and Infinity included), or undefined when the text is not JSON. */
function parseJson(text: string): unknown {
  try {
    return plainJson(pyJsonParse(text));
  } catch {
    return undefined;
  }
}

// The three take **options in vscode.py and read none: any key is ignored.

/** `check_json_settings`: every key of `rules.expected` is in the JSON file with an equal value (settings.json, a .code-workspace). */
const checkJsonSettings = defineMetric({
  name: "check_json_settings",
  options: z.object({}),
  async run(result, expected): Promise<MetricResult> {
    const path = filePath(result);
    if (path === undefined) return fail("no result file");
    const expect = rulesObject("check_json_settings", expected).expected;
    if (expect === null || typeof expect !== "object" || Array.isArray(expect)) throw new Error("check_json_settings: rules.expected must be an object");
    const text = await readText(path);
    if (text === null) return fail(`cannot read ${path}`);
    const data = parseJson(text);
    if (data === undefined) return fail(`${path} is not valid JSON`);
    if (data === null || typeof data !== "object" || Array.isArray(data)) return fail(`${path} is not a JSON object`);
    for (const [key, value] of Object.entries(expect)) {
      if (!Object.hasOwn(data, key)) return fail(`${key} is not set (expected ${show(value)})`);
      const actual = (data as Record<string, unknown>)[key];
      if (!pyEqual(actual, value)) return fail(`${key} is ${show(actual)}, expected ${show(value)}`);
    }
    return 1;
  },
});

/** `check_json_keybindings`: the keybindings file (a JSON list, possibly after a first comment line) contains `rules.expected`. */
const checkJsonKeybindings = defineMetric({
  name: "check_json_keybindings",
  options: z.object({}),
  async run(result, expected): Promise<MetricResult> {
    const path = filePath(result);
    const want = rulesObject("check_json_keybindings", expected).expected;
    const text = path === undefined ? null : await readText(path);
    if (text === null) return fail("no keybindings file");
    // OSWorld tries the whole file, then the file without its first line (VS Code writes a comment there).
    const nl = text.indexOf("\n");
    const candidates = [text, nl < 0 ? "" : text.slice(nl + 1)];
    const data = candidates.map(parseJson).find((d) => Array.isArray(d)) as unknown[] | undefined;
    if (data === undefined) return fail(`${path} is not a JSON list of keybindings`);
    return data.some((d) => pyEqual(d, want)) ? 1 : fail(`no keybinding equal to ${show(want, 160)}`);
  },
});

/** `is_extension_installed`: a command's output contains (`type: contain`) or lacks (`not_contain`) `rules.expected`. */
const isExtensionInstalled = defineMetric({
  name: "is_extension_installed",
  options: z.object({}),
  async run(result, expected): Promise<MetricResult> {
    const rules = rulesObject("is_extension_installed", expected);
    const want = rules.expected;
    if (typeof want !== "string") throw new Error("is_extension_installed: rules.expected must be a string");
    if (rules.type !== "contain" && rules.type !== "not_contain") throw new Error(`is_extension_installed: rule type ${show(rules.type)} is not implemented`);
    if (typeof result !== "string") return fail("no command output");
    const found = result.includes(want);
    if (rules.type === "contain") return found ? 1 : fail(`output does not contain ${show(want)}`);
    return !found ? 1 : fail(`output contains ${show(want)}`);
  },
});

/** OSWorld's VS Code metrics (`vscode.py`). */
export const vscodeMetrics: OsworldMetric[] = [checkJsonSettings, checkJsonKeybindings, isExtensionInstalled];
