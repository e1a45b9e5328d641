import { resolve } from "node:path";
import { z } from "zod";
import { InvalidArgumentError, NotFoundError } from "@pincer/shared";
import type { Env } from "../../env/index.js";
import { fail, type Verdict } from "../../evaluators/verdict.js";
import { readTaskFile, type TaskFunctionContext } from "../taskFunctions.js";

export { fail, pass } from "../../evaluators/verdict.js";

/**
 * Shared pieces of the built-in evaluation functions: outcomes, fetching files from the machine and
 * the controller, and the argument schemas several functions use.
 *
 * The rule every function follows: a problem with what the agent produced (a missing or malformed
 * result file) is a score of 0 with a reason; a problem with the check itself (a missing or
 * malformed expected file, an unknown environment) throws, which the runner reports as an
 * evaluation error.
 */

/** Quotes a value for a reason, shortened so one long line does not drown the report. */
export function show(value: string, max = 120): string {
  const s = JSON.stringify(value);
  return s.length <= max ? s : `${s.slice(0, max - 4)}…"`;
}

/** Argument schema: which environment (by name in the run) holds `vm_*` paths; the task's own when unset. */
export const envArg = z.string().min(1).optional().describe("Name of the environment whose machine holds vm_* paths; the task's machine when unset");

/** The machine a function works on: `ctx.env`, or the environment named in its `env` argument. */
export function pickEnv(ctx: TaskFunctionContext, name: string | undefined): Env {
  if (name === undefined) return ctx.env;
  const env = ctx.envs[name];
  if (!env) throw new Error(`no environment named ${JSON.stringify(name)} in this run (known: ${Object.keys(ctx.envs).join(", ") || "none"})`);
  return env;
}

/** The result of fetching a file from the machine: its bytes, or the failing outcome when it is not there. */
export type Fetched = { ok: true; data: Buffer } | { ok: false; outcome: Verdict };

/**
 * Downloads a result file from the machine through its daemon, in one call (the Download answers
 * NOT_FOUND for a missing file itself). A missing file is a score of 0 ("… does not exist"), and so
 * is a directory where a file was expected (checked only when the Download refuses the path); any
 * other error (the machine unreachable, a timeout) is thrown.
 */
export async function fetchResult(ctx: TaskFunctionContext, envName: string | undefined, path: string, what = "result file"): Promise<Fetched> {
  const env = pickEnv(ctx, envName);
  try {
    const { data } = await env.files.download(path, undefined, { signal: ctx.signal });
    return { ok: true, data };
  } catch (e) {
    if (e instanceof NotFoundError) return { ok: false, outcome: fail(`${what} ${path} does not exist`) };
    if (e instanceof InvalidArgumentError && (await env.files.stat(path, { signal: ctx.signal }).catch(() => undefined))?.type === "directory") {
      return { ok: false, outcome: fail(`${what} ${path} is a directory, not a file`) };
    }
    throw e;
  }
}

/** Downloads a result file as UTF-8 text (a leading byte-order mark dropped). */
export async function fetchResultText(
  ctx: TaskFunctionContext,
  envName: string | undefined,
  path: string,
  what?: string,
): Promise<{ ok: true; text: string } | { ok: false; outcome: Verdict }> {
  const r = await fetchResult(ctx, envName, path, what);
  return r.ok ? { ok: true, text: decodeText(r.data) } : r;
}

/**
 * Reads a `local_*` file of the task (relative to the task folder, confined to it: see
 * `readTaskFile`); a missing file throws: the task is broken.
 */
export async function readLocal(ctx: Pick<TaskFunctionContext, "taskDir">, path: string, argName = "local_expected"): Promise<Buffer> {
  try {
    return await readTaskFile(ctx, path, argName);
  } catch (e) {
    const full = resolve(ctx.taskDir, path);
    if (e instanceof NotFoundError) throw new Error(`${argName} ${path} does not exist (looked for ${full})`, { cause: e });
    if (e instanceof InvalidArgumentError && / is not a regular file/.test(e.message))
      throw new Error(`${argName} ${path} is not a regular file (${full})`, { cause: e });
    throw e;
  }
}

/** Reads a `local_*` text file of the task. */
export async function readLocalText(ctx: Pick<TaskFunctionContext, "taskDir">, path: string, argName?: string): Promise<string> {
  return decodeText(await readLocal(ctx, path, argName));
}

/** UTF-8 text without a byte-order mark. */
export function decodeText(data: Buffer): string {
  const text = data.toString("utf8");
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Splits text into lines; CRLF and CR count as line breaks, and a final line break ends the last line rather than starting an empty one. */
export function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split(/\r\n|\r|\n/);
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

/**
 * A refinement for argument objects that accept two spellings of an argument (Pincer's and a
 * dataset's own): exactly one of each pair must be given.
 */
export function oneOfEach(pairs: ReadonlyArray<readonly [string, string]>) {
  return (args: Record<string, unknown>, ctx: z.RefinementCtx): void => {
    for (const [a, b] of pairs) {
      const given = [a, b].filter((k) => args[k] !== undefined);
      if (given.length === 0) ctx.addIssue({ code: "custom", path: [a], message: `give ${a} (or ${b})` });
      if (given.length === 2) ctx.addIssue({ code: "custom", path: [b], message: `give ${a} or ${b}, not both` });
    }
  };
}
