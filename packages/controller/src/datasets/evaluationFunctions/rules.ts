import { z } from "zod";
import { show } from "./common.js";
import { fail, pass } from "../../evaluators/verdict.js";

/**
 * Include/exclude rules on a text (a file's content, a command's log): each rule is a plain
 * string, found as a substring, or `{ "regex": "...", "flags": "i" }`, a regular expression.
 */

/** A plain string (a substring) or a regular expression. */
export const ruleSchema = z.union([
  z.string().min(1),
  z
    .strictObject({
      regex: z.string().min(1).describe("A JavaScript regular expression"),
      flags: z
        .string()
        .regex(/^[dgimsuvy]*$/)
        .optional()
        .describe('Regular-expression flags; "m" (^ and $ match at line breaks) when unset'),
    })
    .superRefine((r, ctx) => {
      try {
        new RegExp(r.regex, r.flags ?? "m");
      } catch (e) {
        ctx.addIssue({ code: "custom", path: ["regex"], message: `not a valid regular expression: ${(e as Error).message}` });
      }
    }),
]);

export type Rule = z.infer<typeof ruleSchema>;

/** The rule lists of `check_include_exclude` and `compare_script_logs`. */
export const rulesShape = {
  include: z.array(ruleSchema).default([]).describe("Strings or {regex} that must all appear"),
  exclude: z.array(ruleSchema).default([]).describe("Strings or {regex} none of which may appear"),
  ignore_case: z.boolean().default(false).describe("Match plain strings (and regexes without an explicit i flag) regardless of case"),
};

/** The same lists nested as `rules: {include, exclude}`, as the format's published tasks write them; added to the top-level ones. */
export const nestedRules = z
  .strictObject({ include: rulesShape.include, exclude: rulesShape.exclude })
  .optional()
  .describe("The same lists nested as {include, exclude}, as the published tasks write them; added to the top-level ones");

/** The include and exclude rules of arguments written with `rulesShape` and `nestedRules`, top-level ones first. */
export function allRules(a: { include: Rule[]; exclude: Rule[]; rules?: { include: Rule[]; exclude: Rule[] } | undefined }): {
  include: Rule[];
  exclude: Rule[];
} {
  return { include: [...a.include, ...(a.rules?.include ?? [])], exclude: [...a.exclude, ...(a.rules?.exclude ?? [])] };
}

/** How many rules {@link allRules} gives. */
export function ruleCount(a: Parameters<typeof allRules>[0]): number {
  const r = allRules(a);
  return r.include.length + r.exclude.length;
}

/** How a rule is written in a reason. */
export function describeRule(rule: Rule): string {
  return typeof rule === "string" ? show(rule, 80) : `/${rule.regex}/${rule.flags ?? "m"}`;
}

/** True when the rule matches somewhere in `text`. */
export function ruleMatches(rule: Rule, text: string, ignoreCase: boolean): boolean {
  if (typeof rule === "string") return ignoreCase ? text.toLowerCase().includes(rule.toLowerCase()) : text.includes(rule);
  let flags = rule.flags ?? "m";
  if (ignoreCase && !flags.includes("i")) flags += "i";
  return new RegExp(rule.regex, flags.replace(/[gy]/g, "")).test(text);
}

/** Options of {@link checkRules}. */
export interface RuleCheck {
  include: readonly Rule[];
  exclude: readonly Rule[];
  ignoreCase: boolean;
  /** What the text is, for the reason ("the log", "/tmp/out.txt"). */
  subject: string;
}

/**
 * Checks include/exclude rules: score 1 when every include rule matches and no exclude rule does,
 * else 0 with the rules that failed.
 */
export function checkRules(text: string, opts: RuleCheck): { score: number; reason: string } {
  const missing = opts.include.filter((r) => !ruleMatches(r, text, opts.ignoreCase));
  const found = opts.exclude.filter((r) => ruleMatches(r, text, opts.ignoreCase));
  if (missing.length === 0 && found.length === 0) {
    return pass(`${opts.subject}: all ${opts.include.length} include rule(s) found, none of ${opts.exclude.length} exclude rule(s)`);
  }
  const parts: string[] = [];
  if (missing.length) parts.push(`missing ${missing.map(describeRule).join(", ")}`);
  if (found.length) parts.push(`contains excluded ${found.map(describeRule).join(", ")}`);
  return fail(`${opts.subject}: ${parts.join("; ")}`);
}
