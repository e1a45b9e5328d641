import { InvalidArgumentError, sleep } from "@pincer/shared";
import { z } from "zod";
import type { WindowInfo } from "../../env/windows.js";
import { expandUser, type OsworldContext, pyFlag, shlexSplit, substitutePlaceholders } from "./context.js";
import { chromeCloseTabs, chromeCloseTabsParams, chromeOpenTabs, chromeOpenTabsParams } from "./chrome/tabSteps.js";
import { browserCommand } from "./chrome/browser.js";
import { cachePath, writeCacheFile } from "./cacheFiles.js";
import { defineConfigType, type OsworldConfigType } from "./configType.js";
import { updateBrowseHistoryType } from "./chrome/history.js";
import { isPyautoguiCommand, parsePyautogui, runPyautogui } from "./pyautogui.js";

export { defineConfigType, type OsworldConfigType } from "./configType.js";

const command = z.union([z.string().min(1), z.array(z.string()).min(1)]);

/** `command` as argv: a string is split like shlex unless it is for a shell; `~/` arguments expanded. */
async function argvOf(cmd: string | string[], shell: boolean, ctx: OsworldContext): Promise<string | string[]> {
  if (shell) return Array.isArray(cmd) ? cmd.join(" ") : cmd;
  const argv = typeof cmd === "string" ? shlexSplit(cmd) : cmd;
  return Promise.all(argv.map((a) => (a.startsWith("~/") ? expandUser(a, ctx) : a)));
}

const executeParams = z.strictObject({
  command,
  shell: pyFlag,
  /** A file of the attempt's cache folder that gets the command's stdout ("": none). */
  stdout: z.union([z.literal(""), cachePath]).default(""),
  /** The same for stderr. */
  stderr: z.union([z.literal(""), cachePath]).default(""),
  until: z.strictObject({ returncode: z.number().int().optional(), stdout: z.string().optional(), stderr: z.string().optional() }).optional(),
});

const pyautoguiProblems = (p: { command: string | string[] }): string[] => {
  if (!isPyautoguiCommand(p.command)) return [];
  try {
    // Placeholders are numbers by the time it runs.
    parsePyautogui(p.command[2]!.replace(/\{(SCREEN_WIDTH|SCREEN_HEIGHT)(_HALF)?\}/g, "0"));
    return [];
  } catch (err) {
    return [`execute (${(err as Error).message.replace(/^pyautogui script: /, "pyautogui: ")})`];
  }
};

/**
 * OSWorld's `execute` (and `command`): runs a command, 120 s at most; a failure is logged, not fatal;
 * `until` repeats it. `stdout` and `stderr` name files of the cache folder, confined to it at the
 * open: one that leads out fails the step.
 */
async function execute(p: z.infer<typeof executeParams>, ctx: OsworldContext): Promise<void> {
  const cmd = await substitutePlaceholders(p.command, ctx);
  if (isPyautoguiCommand(cmd)) return runPyautogui(ctx.env, cmd[2]!, ctx.signal);
  const argv = await argvOf(cmd, p.shell, ctx);
  const until = p.until ?? {};
  for (let attempt = 1; ; attempt++) {
    let r: { stdout: string; stderr: string; exitCode: number | null } | undefined;
    try {
      r = await ctx.env.process.run(argv, { signal: ctx.signal, commandTimeoutMs: 120_000 });
      if (r.exitCode !== 0) ctx.log(`execute ${JSON.stringify(cmd)}: exit ${r.exitCode}: ${r.stderr.trim().slice(-300)}`);
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      ctx.log(`execute ${JSON.stringify(cmd)}: ${(err as Error).message}`);
    }
    // Outside the try: a path that leads out of the cache folder is the task's error, not the command's.
    if (r && p.stdout) await writeCacheFile(ctx, p.stdout, r.stdout, "stdout");
    if (r && p.stderr) await writeCacheFile(ctx, p.stderr, r.stderr, "stderr");
    const met =
      Object.keys(until).length === 0 ||
      (r !== undefined &&
        ((until.returncode !== undefined && r.exitCode === until.returncode) ||
          (until.stdout !== undefined && r.stdout.includes(until.stdout)) ||
          (until.stderr !== undefined && r.stderr.includes(until.stderr))));
    if (met || (r === undefined && attempt >= 5)) return;
    if (attempt >= 400) throw new InvalidArgumentError(`execute ${JSON.stringify(cmd)}: "until" ${JSON.stringify(until)} not met after ${attempt} runs`);
    await sleep(300, ctx.signal);
  }
}

/** Windows that `wmctrl -a <name>` (`-F` strict, `-x` by class) would pick, first one first. */
async function windowsNamed(ctx: OsworldContext, name: string, strict: boolean, byClass: boolean): Promise<WindowInfo[]> {
  const all = await ctx.env.windows.list({ signal: ctx.signal });
  const field = (w: WindowInfo) => (byClass ? `${w.instance}.${w.class}` : w.title);
  return all.filter((w) => (strict ? field(w) === name : field(w).toLowerCase().includes(name.toLowerCase())));
}

const windowParams = z.strictObject({ window_name: z.string().min(1), strict: pyFlag, by_class: pyFlag });

/** How long `open` waits for the file's window (OSWorld's server waits up to 1800 s). */
export const OPEN_WINDOW_TIMEOUT_MS = 180_000;

/** OSWorld's `open`: opens a file with xdg-open (or runs a program on PATH) and activates its window. */
async function open(p: { path: string }, ctx: OsworldContext): Promise<void> {
  const path = await expandUser(p.path, ctx);
  const isFile = await ctx.env.files.exists(path, { signal: ctx.signal });
  if (!isFile) {
    const which = await ctx.env.process.run(["sh", "-c", 'command -v "$1"', "sh", path], { signal: ctx.signal });
    if (which.exitCode !== 0) throw new InvalidArgumentError(`open: application/file not found: ${p.path}`);
  }
  await ctx.env.process.launch(isFile ? ["xdg-open", path] : [path], { signal: ctx.signal });
  const name = isFile ? path.slice(path.lastIndexOf("/") + 1) : path;
  const stem = name.includes(".") ? name.slice(0, name.lastIndexOf(".")) : name;
  const deadline = Date.now() + OPEN_WINDOW_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const w = (await ctx.env.windows.list({ signal: ctx.signal })).find((x) => x.title.includes(name) || x.title.includes(stem));
    if (w) {
      await ctx.env.windows.focus(w.id, { signal: ctx.signal });
      return;
    }
    await sleep(1000, ctx.signal);
  }
  throw new InvalidArgumentError(`open: no window for ${name} within ${OPEN_WINDOW_TIMEOUT_MS / 1000} s`);
}

/**
 * OSWorld's `launch`: starts a program detached; a failure is logged. `google-chrome` runs Debian's
 * chromium where Chrome is absent, and `pkill chrome` then stops chromium.
 */
async function launch(p: { command: string | string[]; shell: boolean }, ctx: OsworldContext): Promise<void> {
  let argv = await argvOf(p.command, p.shell, ctx);
  if (Array.isArray(argv) && argv[0] === "google-chrome") argv = [await browserCommand(ctx), ...argv.slice(1)];
  // `pkill chrome` (to make Chrome write its profile out) does not match Chromium's process name.
  if (Array.isArray(argv) && argv[0] === "pkill" && argv[1] === "chrome" && argv.length === 2 && (await browserCommand(ctx)) === "chromium")
    argv = ["pkill", "chromium"];
  try {
    await ctx.env.process.launch(argv, { signal: ctx.signal });
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    ctx.log(`launch ${JSON.stringify(argv)}: ${(err as Error).message}`);
  }
}

const downloadParams = z.strictObject({
  files: z
    .array(
      z.strictObject({
        url: z.string().min(1),
        path: z.string().min(1),
        sha256: z
          .string()
          .regex(/^[0-9a-fA-F]{64}$/)
          .optional(),
      }),
    )
    .min(1),
});

/** OSWorld's `download`: each file from the download cache (fetched once) onto the machine; a failure ends the setup. */
async function download(p: z.infer<typeof downloadParams>, ctx: OsworldContext): Promise<void> {
  for (const f of p.files) {
    const local = await ctx.downloads.get(f.url, { signal: ctx.signal, ...(f.sha256 ? { sha256: f.sha256 } : {}) });
    const path = await expandUser(f.path, ctx);
    await ctx.env.files.upload(local, path, { signal: ctx.signal, createParents: true });
  }
}

/** The config types Pincer runs, by name. */
export const OSWORLD_CONFIG_TYPES: ReadonlyMap<string, OsworldConfigType> = new Map(
  [
    defineConfigType({ name: "execute", parameters: executeParams, unsupported: pyautoguiProblems, run: execute }),
    defineConfigType({ name: "command", parameters: executeParams, unsupported: pyautoguiProblems, run: execute }),
    defineConfigType({ name: "launch", parameters: z.strictObject({ command, shell: pyFlag }), run: launch }),
    defineConfigType({ name: "open", parameters: z.strictObject({ path: z.string().min(1) }), run: open }),
    defineConfigType({
      name: "sleep",
      parameters: z.strictObject({ seconds: z.number().nonnegative() }),
      run: (p, ctx) => sleep(p.seconds * 1000, ctx.signal),
    }),
    defineConfigType({
      name: "activate_window",
      parameters: windowParams,
      run: async (p, ctx) => {
        const [w] = await windowsNamed(ctx, p.window_name, p.strict, p.by_class);
        if (w) await ctx.env.windows.focus(w.id, { signal: ctx.signal });
        else ctx.log(`activate_window: no window ${JSON.stringify(p.window_name)}`);
      },
    }),
    defineConfigType({
      name: "close_window",
      parameters: windowParams,
      run: async (p, ctx) => {
        const [w] = await windowsNamed(ctx, p.window_name, p.strict, p.by_class);
        if (w) await ctx.env.windows.close(w.id, { signal: ctx.signal });
        else ctx.log(`close_window: no window ${JSON.stringify(p.window_name)}`);
      },
    }),
    defineConfigType({ name: "download", parameters: downloadParams, run: download }),
    defineConfigType({ name: "chrome_open_tabs", parameters: chromeOpenTabsParams, run: chromeOpenTabs }),
    defineConfigType({ name: "chrome_close_tabs", parameters: chromeCloseTabsParams, run: chromeCloseTabs }),
    updateBrowseHistoryType,
  ].map((c) => [c.name, c]),
);
