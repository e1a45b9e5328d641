import { z } from "zod";
import type { Env } from "../../env/index.js";
import type { DownloadCache } from "./downloadCache.js";

/**
 * What OSWorld's config steps, getters and metrics reach: the machine, the attempt's local cache
 * folder (OSWorld's `env.cache_dir`: getters put the files they fetch there), the download cache,
 * and the values OSWorld substitutes into commands.
 */
export interface OsworldContext {
  /** The machine the task runs on. */
  env: Env;
  signal: AbortSignal;
  /** A local folder of this attempt where getters write what they fetch (`dest` names a file in it). */
  cacheDir: string;
  /** Files fetched by URL (`download`, `cloud_file`), shared by every task and run. */
  downloads: DownloadCache;
  /** `{CLIENT_PASSWORD}`: the sudo password of the machine's user. @default "password" */
  password: string;
  /** What happened that OSWorld only logs (a window not found, a command that failed): kept for the report. */
  log(line: string): void;
  /** The machine's port of Chrome's DevTools (OSWorld's `chromium_port`). @default 9222 */
  devtoolsPort?: number;
}

/**
 * A flag as OSWorld reads it: Python truthiness, so the strings some tasks write (`"shell": "true"`)
 * count as set, as they do there (any non-empty string, even "false").
 */
export const pyFlag = z
  .union([z.boolean(), z.string(), z.number(), z.null()])
  .default(false)
  .transform((v) => (typeof v === "string" ? v !== "" : typeof v === "number" ? v !== 0 : v === true));

const homes = new WeakMap<object, Promise<string>>();

/** The home folder of the machine's user (`~`), asked once per machine. */
export function homeOf(ctx: Pick<OsworldContext, "env" | "signal">): Promise<string> {
  let home = homes.get(ctx.env);
  if (!home) {
    home = ctx.env.process.run(["sh", "-c", 'printf %s "$HOME"'], { signal: ctx.signal, check: true }).then((r) => r.stdout || "/root");
    home.catch(() => homes.delete(ctx.env));
    homes.set(ctx.env, home);
  }
  return home;
}

/** Expands a leading `~/` (and a lone `~`) the way OSWorld's server does with `os.path.expanduser`. */
export async function expandUser(path: string, ctx: Pick<OsworldContext, "env" | "signal">): Promise<string> {
  return path === "~" || path.startsWith("~/") ? `${await homeOf(ctx)}${path.slice(1)}` : path;
}

/** Splits a command line like Python's `shlex.split` (POSIX mode): quotes and backslashes, no expansion. */
export function shlexSplit(line: string): string[] {
  const out: string[] = [];
  let cur: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new Error(`no closing quotation in ${line}`);
      cur = (cur ?? "") + line.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      let j = i + 1;
      cur ??= "";
      for (; j < line.length && line[j] !== '"'; j++) {
        if (line[j] === "\\" && '"\\$`'.includes(line[j + 1] ?? "")) j++;
        cur += line[j];
      }
      if (j >= line.length) throw new Error(`no closing quotation in ${line}`);
      i = j;
    } else if (c === "\\") {
      cur = (cur ?? "") + (line[++i] ?? "");
    } else if (/\s/.test(c)) {
      if (cur !== null) out.push(cur);
      cur = null;
    } else cur = (cur ?? "") + c;
  }
  if (cur !== null) out.push(cur);
  return out;
}

/**
 * OSWorld's command placeholders, as its setup controller substitutes them in `execute` and
 * `command` steps: `{CLIENT_PASSWORD}`, `{SCREEN_WIDTH}`, `{SCREEN_HEIGHT}` and their `_HALF`
 * (integer division).
 */
export async function substitutePlaceholders<T extends string | string[]>(command: T, ctx: OsworldContext): Promise<T> {
  const text: string = Array.isArray(command) ? command.join("\n") : (command as string);
  if (!/\{(CLIENT_PASSWORD|SCREEN_WIDTH|SCREEN_HEIGHT)/.test(text)) return command;
  const { width, height } = await ctx.env.screen.size({ signal: ctx.signal });
  const one = (s: string) =>
    s
      .replaceAll("{CLIENT_PASSWORD}", ctx.password)
      .replaceAll("{SCREEN_WIDTH_HALF}", String(Math.floor(width / 2)))
      .replaceAll("{SCREEN_HEIGHT_HALF}", String(Math.floor(height / 2)))
      .replaceAll("{SCREEN_WIDTH}", String(width))
      .replaceAll("{SCREEN_HEIGHT}", String(height));
  return (Array.isArray(command) ? command.map(one) : one(command as string)) as T;
}
