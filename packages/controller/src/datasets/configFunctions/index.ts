import { z } from "zod";
import { CommandExitError, InvalidArgumentError, sleep as wait } from "@pincer/shared";
import { defineConfigFunction, Registry, withTaskFile, type ConfigFunction, type ConfigRegistry, type TaskFunctionContext } from "../taskFunctions.js";

const remotePath = z
  .string()
  .min(1)
  .refine((p) => p.startsWith("/"), "must be an absolute path on the machine");
const command = z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]);

function describe(cmd: string | string[]): string {
  return typeof cmd === "string" ? cmd : cmd.join(" ");
}

/** Runs a command on the machine and fails the setup, with its output, when it does not exit 0. */
async function runChecked(ctx: TaskFunctionContext, cmd: string | string[], timeoutSeconds: number): Promise<void> {
  const r = await ctx.env.process.run(cmd, { commandTimeoutMs: timeoutSeconds * 1000, signal: ctx.signal });
  if (r.exitCode !== 0) {
    const how = r.timedOut ? `timed out after ${timeoutSeconds} s` : r.exitCode === null ? `was killed by ${r.signal}` : `exited with code ${r.exitCode}`;
    const output = [r.stdout.trim(), r.stderr.trim()].filter(Boolean).join("\n").split("\n").slice(-20).join("\n");
    throw new CommandExitError(`${describe(cmd)} ${how}${output ? `:\n${output}` : ""}`, r);
  }
}

export const uploadFileToVm = defineConfigFunction({
  name: "upload_file_to_vm",
  description: "Upload a file from the task folder to the machine (replacing it, creating parent directories).",
  args: z.object({ local_path: z.string().min(1), remote_path: remotePath }).strict(),
  async run({ local_path, remote_path }, ctx) {
    await withTaskFile(ctx, local_path, "local_path", (at) => ctx.env.files.upload(at, remote_path, { signal: ctx.signal }));
  },
});

export const uploadScriptAndExecute = defineConfigFunction({
  name: "upload_script_and_execute",
  description: "Upload a script, make it executable, run it; a non-zero exit fails the setup with the script's output.",
  args: z.preprocess(
    (v, ctx) => {
      // Two published tasks of the JSON task format write {src, dest}, which their own runner never accepted.
      if (v && typeof v === "object" && ("src" in v || "dest" in v)) {
        ctx.issues.push({
          code: "custom",
          input: v,
          message: "it takes local_path and remote_path, not src and dest: rename src to local_path and dest to remote_path",
        });
        return z.NEVER;
      }
      return v;
    },
    z
      .object({
        local_path: z.string().min(1),
        remote_path: remotePath,
        timeout_seconds: z.number().positive().max(3600).default(300),
      })
      .strict(),
  ),
  async run({ local_path, remote_path, timeout_seconds }, ctx) {
    await withTaskFile(ctx, local_path, "local_path", (at) => ctx.env.files.upload(at, remote_path, { mode: 0o755, signal: ctx.signal }));
    await runChecked(ctx, [remote_path], timeout_seconds);
  },
});

export const execute = defineConfigFunction({
  name: "execute",
  description: "Run a command on the machine (a string runs in /bin/sh, a list runs without a shell); a non-zero exit fails the setup.",
  args: z.object({ command, timeout_seconds: z.number().positive().max(3600).default(300) }).strict(),
  async run({ command: cmd, timeout_seconds }, ctx) {
    await runChecked(ctx, cmd, timeout_seconds);
  },
});

export const launch = defineConfigFunction({
  name: "launch",
  description: "Start a GUI program detached; optionally wait until its window (by title or WM_CLASS) appears.",
  args: z
    .object({
      command,
      wait_for_title: z.string().optional(),
      wait_for_class: z.string().optional(),
      timeout_seconds: z.number().positive().max(600).default(20),
    })
    .strict(),
  async run({ command: cmd, wait_for_title, wait_for_class, timeout_seconds }, ctx) {
    await ctx.env.process.launch(cmd, {
      signal: ctx.signal,
      waitTimeoutMs: timeout_seconds * 1000,
      ...(wait_for_title ? { waitForTitle: wait_for_title } : {}),
      ...(wait_for_class ? { waitForClass: wait_for_class } : {}),
    });
  },
});

export const open = defineConfigFunction({
  name: "open",
  description: "Open a file or URL on the machine with its default application (xdg-open).",
  args: z.object({ path: z.string().min(1) }).strict(),
  async run({ path }, ctx) {
    const which = await ctx.env.process.run("command -v xdg-open", { signal: ctx.signal });
    if (which.exitCode !== 0) throw new InvalidArgumentError(`open ${path}: xdg-open is not installed on the machine (apt-get install xdg-utils)`);
    await ctx.env.process.launch(["xdg-open", path], { signal: ctx.signal });
  },
});

export const sleep = defineConfigFunction({
  name: "sleep",
  description: "Wait, e.g. for a program to finish starting.",
  args: z.object({ seconds: z.number().min(0).max(600) }).strict(),
  async run({ seconds }, ctx) {
    await wait(seconds * 1000, ctx.signal);
  },
});

export const setClipboard = defineConfigFunction({
  name: "set_clipboard",
  description: "Put text on the machine's clipboard (the daemon owns the selection until another program copies).",
  args: z.object({ text: z.string() }).strict(),
  async run({ text }, ctx) {
    await ctx.env.clipboard.set(text, { signal: ctx.signal });
  },
});

/** The built-in config functions of the JSON task format. */
export const builtinConfigFunctions: ConfigFunction[] = [
  uploadFileToVm,
  uploadScriptAndExecute,
  execute,
  launch,
  open,
  sleep,
  setClipboard,
] as ConfigFunction[];

/** A registry with the built-in config functions, plus `extra` (user additions). */
export function createConfigRegistry(extra: readonly ConfigFunction[] = []): ConfigRegistry {
  return new Registry<ConfigFunction>("config function", [...builtinConfigFunctions, ...extra]);
}
