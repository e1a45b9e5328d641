import { basename, extname, join } from "node:path";
import { InvalidArgumentError, NotFoundError, PermissionDeniedError } from "@pincer/shared";
import { z } from "zod";
import { cacheFileProblem, cachePath, copyToCache, destName, downloadToCache } from "./cacheFiles.js";
import { expandUser, type OsworldContext, pyFlag, shlexSplit } from "./context.js";
import { defineGetter, type OsworldGetter } from "./getter.js";
import { accessibilityTreeGetter, terminalOutputGetter } from "./accessibilityTree.js";
import { relativeTimeGetter } from "./relativeTime.js";
import { chromeGetters } from "./chrome/index.js";
import { machineGetters } from "./machineGetters.js";
import { officeGetters } from "./officeGetters.js";

export { defineGetter, type OsworldGetter } from "./getter.js";

/** `path`/`dest` as lists (with `multi`), and the indexes given to the metric (`gives`, default [0]). */
function filesOf(c: { path: string | string[]; dest: string | string[]; multi: boolean; gives: number[] }): {
  pairs: Array<[string, string]>;
  gives: Set<number>;
} {
  const paths = c.multi ? [c.path].flat() : [c.path as string];
  const dests = c.multi ? [c.dest].flat() : [c.dest as string];
  if (!c.multi && (Array.isArray(c.path) || Array.isArray(c.dest))) throw new InvalidArgumentError("path and dest are lists: set multi to true");
  if (paths.length !== dests.length) throw new InvalidArgumentError(`path has ${paths.length} entries but dest has ${dests.length}`);
  for (const d of dests) if (d.includes("/") || d === ".." || d === ".") throw new InvalidArgumentError(`dest ${JSON.stringify(d)} must be a plain file name`);
  return { pairs: paths.map((p, i) => [p, dests[i]!]), gives: new Set(c.gives) };
}

/** One path when one is given, else the list (OSWorld's `cache_paths[0] if len == 1 else cache_paths`). */
const oneOrList = <T>(list: T[]): T | T[] => (list.length === 1 ? list[0]! : list);

const fileConfig = z.looseObject({
  path: z.union([z.string().min(1), z.array(z.string().min(1))]),
  dest: z.union([destName, z.array(destName)]),
  multi: pyFlag,
  gives: z.array(z.number().int().nonnegative()).default([0]),
  time_suffix: pyFlag,
  time_format: z.string().default("%Y%m%d_%H%M%S"),
});

/** Python's strftime for the codes `time_suffix` formats use. */
function strftime(format: string, d = new Date()): string {
  const p = (n: number) => String(n).padStart(2, "0");
  const codes: Record<string, string> = {
    Y: String(d.getFullYear()),
    m: p(d.getMonth() + 1),
    d: p(d.getDate()),
    H: p(d.getHours()),
    M: p(d.getMinutes()),
    S: p(d.getSeconds()),
  };
  return format.replace(/%([YmdHMS%])/g, (_, c: string) => (c === "%" ? "%" : codes[c]!));
}

/** OSWorld's `vm_file`: copies files from the machine into the cache folder; a missing file gives `null`. */
async function vmFile(c: z.infer<typeof fileConfig>, ctx: OsworldContext): Promise<unknown> {
  const { pairs, gives } = filesOf(c);
  if (!c.multi && c.time_suffix) {
    const d = pairs[0]![1];
    pairs[0]![1] = `${basename(d, extname(d))}_${strftime(c.time_format)}${extname(d)}`;
  }
  const out: Array<string | null> = [];
  for (const [i, [remote, dest]] of pairs.entries()) {
    try {
      const local = await downloadToCache(ctx, await expandUser(remote, ctx), dest);
      if (gives.has(i)) out.push(local);
    } catch (err) {
      if (ctx.signal.aborted || !(err instanceof NotFoundError)) throw err;
      ctx.log(`vm_file: ${remote} is not on the machine`);
      if (gives.has(i)) out.push(null);
    }
  }
  return oneOrList(out);
}

/** OSWorld's `cloud_file`: files by URL, through the download cache, copied into the cache folder as `dest`. */
async function cloudFile(c: z.infer<typeof fileConfig>, ctx: OsworldContext): Promise<unknown> {
  const { pairs, gives } = filesOf(c);
  const out: string[] = [];
  for (const [i, [url, dest]] of pairs.entries()) {
    const local = join(ctx.cacheDir, dest);
    if (gives.has(i)) out.push(local);
    // Fetched once per attempt: a regular file of the cache folder is kept; anything else (a symlink out) is refused by the copy.
    if (cacheFileProblem(ctx, dest, "dest") !== undefined) await copyToCache(ctx, await ctx.downloads.get(url, { signal: ctx.signal }), dest);
  }
  return oneOrList(out);
}

const commandConfig = z.looseObject({ command: z.union([z.string().min(1), z.array(z.string())]), shell: pyFlag });

/** Runs a getter's command as OSWorld's `/execute` does (shlex split unless `shell`, `~/` expanded, 120 s). */
async function runCommand(c: z.infer<typeof commandConfig>, ctx: OsworldContext): Promise<{ stdout: string; stderr: string } | null> {
  const cmd = c.shell
    ? [c.command].flat().join(" ")
    : await Promise.all((typeof c.command === "string" ? shlexSplit(c.command) : c.command).map((a) => (a.startsWith("~/") ? expandUser(a, ctx) : a)));
  try {
    return await ctx.env.process.run(cmd, { signal: ctx.signal, commandTimeoutMs: 120_000 });
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    ctx.log(`command ${JSON.stringify(c.command)}: ${(err as Error).message}`);
    return null;
  }
}

/** A file in the user's config folder, fetched into the cache folder as `dest` (`null` when absent). */
async function configFile(remote: string, dest: string, ctx: OsworldContext): Promise<string | null> {
  return (await vmFile({ path: remote, dest, multi: false, gives: [0], time_suffix: false, time_format: "" }, ctx)) as string | null;
}

/** The getters Pincer implements, by name. */
export const OSWORLD_GETTERS: ReadonlyMap<string, OsworldGetter> = new Map(
  [
    defineGetter({ name: "vm_file", config: fileConfig, get: vmFile }),
    defineGetter({ name: "cloud_file", config: fileConfig, get: cloudFile }),
    defineGetter({
      name: "cache_file",
      config: z.looseObject({ path: cachePath }),
      get: async (c, ctx) => {
        // Confined as every cache-folder path is: no way out through `..`, an absolute path or a symlink.
        const problem = cacheFileProblem(ctx, c.path, "path");
        if (problem === undefined) return join(ctx.cacheDir, c.path);
        if (problem.missing) throw new InvalidArgumentError(`cache_file: ${c.path} is not in the cache folder (an earlier step writes it there)`);
        throw new PermissionDeniedError(`cache_file: ${problem.message}`);
      },
    }),
    defineGetter({ name: "vm_command_line", config: commandConfig, get: async (c, ctx) => (await runCommand(c, ctx))?.stdout ?? null }),
    defineGetter({ name: "vm_command_error", config: commandConfig, get: async (c, ctx) => (await runCommand(c, ctx))?.stderr ?? null }),
    defineGetter({ name: "rule", config: z.looseObject({ rules: z.unknown() }), get: async (c) => c.rules }),
    defineGetter({ name: "vlc_config", config: z.looseObject({ dest: destName }), get: (c, ctx) => configFile("~/.config/vlc/vlcrc", c.dest, ctx) }),
    defineGetter({
      name: "gimp_config_file",
      config: z.looseObject({ file_name: z.string().min(1), dest: destName }),
      get: (c, ctx) => configFile(`~/.config/GIMP/2.10/${c.file_name}`, c.dest, ctx),
    }),
    relativeTimeGetter,
    accessibilityTreeGetter,
    terminalOutputGetter,
    ...chromeGetters,
    ...machineGetters,
    ...officeGetters,
  ].map((g) => [g.name, g]),
);
