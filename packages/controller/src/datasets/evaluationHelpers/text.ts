import { z } from "zod";
import type { EvaluationOutcome } from "../helpers.js";
import { defineEvaluationHelper } from "../helpers.js";
import { envArg, fail, fetchResultText, pass, pickEnv, readLocalText, show, splitLines } from "./common.js";
import { checkRules, rulesShape } from "./rules.js";
import { NotFoundError } from "@pincer/shared";

/** Options of {@link compareText}. */
export interface CompareTextOptions {
  /** Runs of whitespace count as one space, leading and trailing whitespace of lines and blank lines are ignored. */
  ignoreBlanks?: boolean;
  /** Letters compare regardless of case. */
  ignoreCase?: boolean;
}

interface Line {
  /** 1-based line number in its file. */
  no: number;
  text: string;
  key: string;
}

function lines(text: string, opts: CompareTextOptions): Line[] {
  const out: Line[] = [];
  splitLines(text).forEach((raw, i) => {
    let key = raw;
    if (opts.ignoreBlanks) {
      key = key.replace(/\s+/g, " ").trim();
      if (key === "") return;
    }
    if (opts.ignoreCase) key = key.toLowerCase();
    out.push({ no: i + 1, text: raw, key });
  });
  return out;
}

/**
 * Compares two texts line by line. Line endings (LF, CRLF, CR) and a final line break never
 * matter. The reason names the first line that differs.
 */
export function compareText(expected: string, result: string, opts: CompareTextOptions = {}): EvaluationOutcome {
  const exp = lines(expected, opts);
  const res = lines(result, opts);
  for (let i = 0; i < Math.max(exp.length, res.length); i++) {
    const e = exp[i];
    const r = res[i];
    if (e && r && e.key === r.key) continue;
    if (!r) return fail(`the result ends after ${res.length} line(s); expected line ${e!.no}: ${show(e!.text)}`);
    if (!e) return fail(`the result has ${res.length - exp.length} extra line(s), from line ${r.no}: ${show(r.text)}`);
    const where = e.no === r.no ? `line ${r.no}` : `line ${r.no} (expected line ${e.no})`;
    return fail(`${where}: expected ${show(e.text)}, got ${show(r.text)}`);
  }
  return pass(`the ${exp.length} line(s) match`);
}

/** `compare_text_file`: the result file on the machine has the expected file's lines. */
export const compareTextFile = defineEvaluationHelper({
  name: "compare_text_file",
  description: "Compares a text file on the machine with an expected file, line by line; options to ignore blanks and case",
  args: z.strictObject({
    local_expected: z.string().min(1).describe("The expected file, relative to the task folder"),
    vm_result: z.string().min(1).describe("The file on the machine"),
    ignore_blanks: z.boolean().default(false).describe("Whitespace runs count as one space; leading/trailing whitespace and blank lines are ignored"),
    ignore_case: z.boolean().default(false),
    env: envArg,
  }),
  async run(args, ctx) {
    const expected = await readLocalText(ctx, args.local_expected);
    const result = await fetchResultText(ctx, args.env, args.vm_result);
    if (!result.ok) return result.outcome;
    return compareText(expected, result.text, { ignoreBlanks: args.ignore_blanks, ignoreCase: args.ignore_case });
  },
});

/** `check_include_exclude`: the result file contains every `include` rule and no `exclude` rule. */
export const checkIncludeExclude = defineEvaluationHelper({
  name: "check_include_exclude",
  description: "Checks that a file on the machine contains every include rule (string or {regex}) and no exclude rule",
  args: z
    .strictObject({
      vm_result: z.string().min(1).describe("The file on the machine"),
      ...rulesShape,
      rules: z
        .strictObject({ include: rulesShape.include, exclude: rulesShape.exclude })
        .optional()
        .describe("The same lists nested as {include, exclude} (the older spelling); added to the top-level ones"),
      env: envArg,
    })
    .refine((a) => a.include.length + a.exclude.length + (a.rules?.include.length ?? 0) + (a.rules?.exclude.length ?? 0) > 0, {
      message: "give at least one include or exclude rule",
    }),
  async run(args, ctx) {
    const result = await fetchResultText(ctx, args.env, args.vm_result);
    if (!result.ok) return result.outcome;
    return checkRules(result.text, {
      include: [...args.include, ...(args.rules?.include ?? [])],
      exclude: [...args.exclude, ...(args.rules?.exclude ?? [])],
      ignoreCase: args.ignore_case,
      subject: args.vm_result,
    });
  },
});

/** `check_file_exists`: a path exists (or, with `exists: false`, does not) on the machine. */
export const checkFileExists = defineEvaluationHelper({
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
