import { z } from "zod";
import { defineEvaluationFunction } from "../helpers.js";

/**
 * Evaluation functions that judge the machine's live state rather than a file (a Pincer addition to
 * the JSON task format's file-based ones).
 */
export const checkWindowExists = defineEvaluationFunction({
  name: "check_window_exists",
  description: "A visible window whose title contains `title` and/or whose WM_CLASS is `class` exists.",
  args: z
    .object({ title: z.string().optional(), class: z.string().optional() })
    .strict()
    .refine((a) => a.title || a.class, "give title or class"),
  async run(args, ctx) {
    const windows = await ctx.env.windows.list({ signal: ctx.signal });
    const found = windows.find((w) => (!args.title || w.title.includes(args.title)) && (!args.class || w.class === args.class || w.instance === args.class));
    if (found) return { score: 1, reason: `window ${JSON.stringify(found.title)} (${found.class}) is open` };
    const open = windows.map((w) => `${JSON.stringify(w.title)} (${w.class})`).join(", ") || "none";
    return {
      score: 0,
      reason: `no window ${args.title ? `titled like ${JSON.stringify(args.title)}` : ""}${args.class ? ` of class ${args.class}` : ""}; open windows: ${open}`,
    };
  },
});

export const checkClipboard = defineEvaluationFunction({
  name: "check_clipboard",
  description: "The clipboard holds `expected` (exactly, or after trimming whitespace with trim: true).",
  args: z.object({ expected: z.string(), trim: z.boolean().default(true) }).strict(),
  async run({ expected, trim }, ctx) {
    const text = await ctx.env.clipboard.get({ signal: ctx.signal });
    const got = trim ? text.trim() : text;
    const want = trim ? expected.trim() : expected;
    return got === want
      ? { score: 1, reason: "clipboard matches" }
      : { score: 0, reason: `clipboard holds ${JSON.stringify(got.slice(0, 200))}, expected ${JSON.stringify(want)}` };
  },
});
