import { sleep } from "@pincer/shared";
import { z } from "zod";
import { windowMatches, type WindowInfo } from "../../env/windows.js";
import { defineEvaluationFunction } from "../taskFunctions.js";
import { fail, pass } from "../../evaluators/verdict.js";

/**
 * Evaluation functions that judge the machine's live state rather than a file (a Pincer addition to
 * the JSON task format's file-based ones).
 */
export const checkWindowExists = defineEvaluationFunction({
  name: "check_window_exists",
  description:
    "A visible window whose title contains `title` and/or whose WM_CLASS is `class` exists; with `wait`, in the evaluation that judges the end " +
    "of the episode it may appear within that many seconds (a program the task's last step started may still be starting).",
  args: z
    .object({ title: z.string().optional(), class: z.string().optional(), wait: z.number().min(0).max(60).default(0) })
    .strict()
    .refine((a) => a.title || a.class, "give title or class"),
  async run(args, ctx) {
    // Only the final round waits: after every other step, a window not open yet is simply not open yet.
    const wait = ctx.final === false ? 0 : args.wait;
    const deadline = Date.now() + wait * 1000;
    const matches = (w: WindowInfo) => windowMatches(w, args);
    for (;;) {
      const windows = await ctx.env.windows.list({ signal: ctx.signal });
      const found = windows.find(matches);
      if (found) return pass(`window ${JSON.stringify(found.title)} (${found.class}) is open`);
      if (Date.now() >= deadline) {
        const open = windows.map((w) => `${JSON.stringify(w.title)} (${w.class})`).join(", ") || "none";
        const what = [args.title && `titled like ${JSON.stringify(args.title)}`, args.class && `of class ${args.class}`, wait && `within ${wait} s`];
        return { score: 0, reason: `no window ${what.filter(Boolean).join(" ")}; open windows: ${open}` };
      }
      await sleep(100, ctx.signal);
    }
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
    return got === want ? pass("clipboard matches") : fail(`clipboard holds ${JSON.stringify(got.slice(0, 200))}, expected ${JSON.stringify(want)}`);
  },
});
