import { z } from "zod";
import { defineMetric, type MetricResult, type OsworldMetric } from "../../metric.js";
import { fail } from "../../../../evaluators/verdict.js";
import { filePath } from "../common/outcome.js";
import { readText } from "./common.js";

// check_thunderbird_folder(result, reference, **kwargs): other keys are ignored.
const options = z.object({
  /** Drop messages whose X-Mozilla-Status is 0008 or 0009 (deleted). */
  remove_deleted: z.boolean().default(true),
  /** Compare the messages as a set. */
  remove_duplicate: z.boolean().default(true),
  /** Remove `X-Mozilla-Status…:` headers before comparing. */
  ignore_status: z.boolean().default(false),
  /** Remove an `X-Mozilla-Keys:` line followed by `MIME-Version`. */
  ignore_keys: z.boolean().default(false),
});
type Options = z.infer<typeof options>;

/** `normalize_msg`. */
function normalizeMsg(msg: string, o: Options): string {
  if (o.ignore_status) msg = msg.replaceAll(/X-Mozilla-Status\d?:[\s\d]+/g, "");
  if (o.ignore_keys) msg = msg.replaceAll(/(X-Mozilla-Keys:[^\n]*?)\n(MIME-Version)/g, "$2");
  return msg.trim();
}

/**
 * `read_thunderbird_folder_file`, kept exactly, including OSWorld's inverted test
 * `if mail.strip(): continue`, which skips every NON-empty message: only the empty pieces between
 * `FROM - ` separators are kept, so two folder files compare equal unless they differ in those.
 */
function folderKey(text: string, o: Options): string {
  let messages: string[] = [];
  for (const mail of text.trim().split("FROM - ")) {
    if (mail.trim() !== "") continue;
    if (o.remove_deleted && /X-Mozilla-Status: 000[89]/.test(mail)) continue;
    messages.push(`FROM - ${normalizeMsg(mail, o)}`);
  }
  if (o.remove_duplicate) messages = [...new Set(messages)];
  return messages.sort().join("\n");
}

/**
 * `check_thunderbird_folder`: each result folder file (mbox text) holds the same messages as its
 * expected file, as OSWorld compares them (see `folderKey`: in practice, only empty messages count).
 */
const checkThunderbirdFolder = defineMetric({
  name: "check_thunderbird_folder",
  options,
  async run(result, expected, o): Promise<MetricResult> {
    if (Array.isArray(expected) && !Array.isArray(result)) return fail("expected a list of result folder files");
    // zip(result, reference): the shorter list decides.
    const pairs: [unknown, unknown][] = Array.isArray(expected)
      ? expected.slice(0, (result as unknown[]).length).map((gold, i) => [(result as unknown[])[i], gold])
      : [[result, expected]];
    for (const [i, [pred, gold]] of pairs.entries()) {
      const predPath = filePath(pred);
      if (predPath === undefined) return fail(`no result folder file [${i}]`);
      const goldPath = filePath(gold);
      const a = await readText(predPath);
      const b = goldPath === undefined ? null : await readText(goldPath);
      if (a === null || b === null) return fail(a === null ? `cannot read ${predPath}` : `no expected folder file [${i}]`);
      if (folderKey(a, o) !== folderKey(b, o)) return fail(`folder file [${i}] differs from the expected one`);
    }
    return 1;
  },
});

/** OSWorld's `check_thunderbird_folder` (`thunderbird.py`). */
export const thunderbirdFolderMetrics: OsworldMetric[] = [checkThunderbirdFolder];
