import { randomUUID } from "node:crypto";
import { basename } from "node:path";
import { z } from "zod";
import { defineEvaluationHelper, resolveLocal } from "../helpers.js";
import { envArg, fail, pickEnv, readLocal, show } from "./common.js";
import { checkRules, rulesShape } from "./rules.js";

/** Where an uploaded check script goes on the machine (a fresh folder, removed afterwards). */
const REMOTE_TMP = "/tmp";

/**
 * `compare_script_logs`: runs a command or a script of the task on the machine and checks
 * include/exclude rules (and optionally the exit code) on what it printed.
 */
export const compareScriptLogs = defineEvaluationHelper({
  name: "compare_script_logs",
  description:
    "Runs a command (or uploads and runs a script of the task) on the machine, then checks include/exclude rules and optionally the exit code on its output",
  args: z
    .strictObject({
      command: z
        .union([z.string().min(1), z.array(z.string()).min(1)])
        .optional()
        .describe("A shell command line, or an argv array run without a shell"),
      local_script: z
        .string()
        .min(1)
        .optional()
        .describe("A script in the task folder: uploaded to a temporary folder on the machine, made executable and run"),
      script_args: z.array(z.string()).default([]).describe("Arguments of local_script"),
      cwd: z.string().min(1).optional().describe("Working directory on the machine"),
      log: z.enum(["both", "stdout", "stderr"]).default("both").describe("Which output the rules look at (both: stdout, then stderr)"),
      exit_code: z.number().int().optional().describe("When set, the command must exit with this code"),
      timeout_seconds: z.number().positive().default(120).describe("The command is killed after this long (and the check fails)"),
      ...rulesShape,
      env: envArg,
    })
    .refine((a) => (a.command === undefined) !== (a.local_script === undefined), { message: "give exactly one of command and local_script" })
    .refine((a) => a.include.length + a.exclude.length > 0 || a.exit_code !== undefined, { message: "give include or exclude rules, or exit_code" }),
  async run(args, ctx) {
    const env = pickEnv(ctx, args.env);
    let command: string | string[];
    let folder: string | undefined;
    if (args.local_script !== undefined) {
      const script = await readLocal(ctx, args.local_script, "local_script");
      folder = `${REMOTE_TMP}/pincer-eval-${randomUUID()}`;
      const remote = `${folder}/${basename(resolveLocal(ctx, args.local_script))}`;
      await env.files.upload(script, remote, { mode: 0o755, signal: ctx.signal });
      command = [remote, ...args.script_args];
    } else {
      command = args.command!;
    }
    const what = args.local_script ?? (Array.isArray(command) ? command.join(" ") : command);
    try {
      const r = await env.process.run(command, {
        signal: ctx.signal,
        commandTimeoutMs: args.timeout_seconds * 1000,
        ...(args.cwd ? { cwd: args.cwd } : {}),
      });
      const log =
        args.log === "stdout"
          ? r.stdout
          : args.log === "stderr"
            ? r.stderr
            : r.stdout + (r.stdout && r.stderr && !r.stdout.endsWith("\n") ? "\n" : "") + r.stderr;
      const tail = ` (log ends ${show(log.slice(-300), 200)})`;
      if (r.timedOut) return fail(`${show(what, 80)} did not finish within ${args.timeout_seconds} s${tail}`);
      if (args.exit_code !== undefined && r.exitCode !== args.exit_code) {
        return fail(`${show(what, 80)} exited with ${r.exitCode ?? `signal ${r.signal}`}, expected ${args.exit_code}${tail}`);
      }
      const checked = checkRules(log, {
        include: args.include,
        exclude: args.exclude,
        ignoreCase: args.ignore_case,
        subject: `the ${args.log === "both" ? "output" : args.log} of ${show(what, 80)}`,
      });
      return checked.score < 1 ? fail(checked.reason + tail) : checked;
    } finally {
      if (folder) await env.files.remove(folder, { recursive: true, missingOk: true }).catch(() => {});
    }
  },
});
