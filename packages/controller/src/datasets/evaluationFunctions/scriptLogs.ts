import { randomUUID } from "node:crypto";
import { basename, resolve } from "node:path";
import { z } from "zod";
import { defineEvaluationFunction } from "../taskFunctions.js";
import { envArg, fail, fetchResultText, pickEnv, readLocal, show } from "./common.js";
import { allRules, checkRules, nestedRules, ruleCount, rulesShape } from "./rules.js";

/** Where an uploaded check script goes on the machine (a fresh folder, removed afterwards). */
const REMOTE_TMP = "/tmp";

/**
 * `compare_script_logs`: runs a command or a script of the task on the machine and checks
 * include/exclude rules (and optionally the exit code) on what it printed.
 */
export const compareScriptLogs = defineEvaluationFunction({
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
      eval_script: z
        .string()
        .min(1)
        .optional()
        .describe("The published tasks' form: a script of the task, uploaded and run; then vm_eval_logs (the log it wrote) is checked"),
      vm_eval_logs: z.string().min(1).optional().describe("With eval_script: the log file on the machine the rules look at"),
      rules: nestedRules,
      cwd: z.string().min(1).optional().describe("Working directory on the machine"),
      log: z.enum(["both", "stdout", "stderr"]).default("both").describe("Which output the rules look at (both: stdout, then stderr)"),
      exit_code: z.number().int().optional().describe("When set, the command must exit with this code"),
      timeout_seconds: z.number().positive().default(120).describe("The command is killed after this long (and the check fails)"),
      ...rulesShape,
      env: envArg,
    })
    .refine((a) => [a.command, a.local_script, a.eval_script].filter((x) => x !== undefined).length === 1, {
      message: "give exactly one of command, local_script and eval_script",
    })
    .refine((a) => (a.eval_script === undefined) === (a.vm_eval_logs === undefined), {
      message: "eval_script and vm_eval_logs go together: the script writes the log the rules check",
      path: ["vm_eval_logs"],
    })
    .refine((a) => ruleCount(a) > 0 || a.exit_code !== undefined, {
      message: "give include or exclude rules (at the top level or under rules), or exit_code",
    }),
  async run(args, ctx) {
    const env = pickEnv(ctx, args.env);
    let command: string | string[];
    let folder: string | undefined;
    const scriptArg = args.local_script !== undefined ? "local_script" : "eval_script";
    const scriptPath = args.local_script ?? args.eval_script;
    if (scriptPath !== undefined) {
      const script = await readLocal(ctx, scriptPath, scriptArg);
      folder = `${REMOTE_TMP}/pincer-eval-${randomUUID()}`;
      const remote = `${folder}/${basename(resolve("/", scriptPath))}`;
      await env.files.upload(script, remote, { mode: 0o755, signal: ctx.signal });
      command = [remote, ...args.script_args];
    } else {
      command = args.command!;
    }
    const what = scriptPath ?? (Array.isArray(command) ? command.join(" ") : command);
    const { include, exclude } = allRules(args);
    try {
      const r = await env.process.run(command, {
        signal: ctx.signal,
        commandTimeoutMs: args.timeout_seconds * 1000,
        ...(args.cwd ? { cwd: args.cwd } : {}),
      });
      let log =
        args.log === "stdout"
          ? r.stdout
          : args.log === "stderr"
            ? r.stderr
            : r.stdout + (r.stdout && r.stderr && !r.stdout.endsWith("\n") ? "\n" : "") + r.stderr;
      let subject = `the ${args.log === "both" ? "output" : args.log} of ${show(what, 80)}`;
      if (args.vm_eval_logs !== undefined) {
        // The dataset's form: the rules look at the log the script wrote, whatever it printed.
        const written = await fetchResultText(ctx, args.env, args.vm_eval_logs, "log file");
        if (!written.ok) return fail(`${written.outcome.reason} (${show(what, 80)} printed ${show(log.slice(-300), 200)})`);
        log = written.text;
        subject = args.vm_eval_logs;
      }
      const tail = ` (log ends ${show(log.slice(-300), 200)})`;
      if (r.timedOut) return fail(`${show(what, 80)} did not finish within ${args.timeout_seconds} s${tail}`);
      if (args.exit_code !== undefined && r.exitCode !== args.exit_code) {
        return fail(`${show(what, 80)} exited with ${r.exitCode ?? `signal ${r.signal}`}, expected ${args.exit_code}${tail}`);
      }
      const checked = checkRules(log, { include, exclude, ignoreCase: args.ignore_case, subject });
      return checked.score < 1 ? fail(checked.reason + tail) : checked;
    } finally {
      if (folder) await env.files.remove(folder, { recursive: true, missingOk: true }).catch(() => {});
    }
  },
});
