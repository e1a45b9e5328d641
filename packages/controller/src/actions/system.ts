import { isAbsolute, resolve } from "node:path";
import { sleep } from "@pincer/shared";
import { NotFoundError, TimeoutError } from "@pincer/shared";
import { z } from "zod";
import { windowMatches, type WindowInfo } from "../env/windows.js";
import { withLocalFileRead, withLocalFileWrite } from "../env/localRoot.js";
import { action } from "./action.js";

/** Options of {@link createSystemActions}. */
export interface SystemActionsOptions {
  /**
   * Controller-side directory that `upload_file` reads from and `download_file` writes to; local
   * paths are resolved against it and may not leave it: `..`, paths outside it and symlinks that
   * lead out are refused, checked at the open as the daemon's --file-root checks. Set it whenever a
   * model can call these actions. @default no restriction (paths resolve against the working directory)
   */
  localRoot?: string;
  /**
   * More directories `upload_file` reads from, in order, when a relative path is not under
   * `localRoot` (a task's own folder, so a solution can upload the task's files by name). Paths may
   * not leave them either, symlinks included. @default none
   */
  readRoots?: readonly string[];
  /** Characters of stdout and of stderr that `run_command` returns to the caller. @default 20_000 */
  maxOutputChars?: number;
}

const remotePath = (what: string) =>
  z
    .string()
    .min(1)
    .refine((p) => p.startsWith("/"), "must be an absolute path")
    .describe(what);

function clip(text: string, max: number, truncated: boolean): string {
  if (text.length <= max && !truncated) return text;
  return `${text.slice(0, max)}\n[… output truncated]`;
}

const LOCAL_ROOT = "the local root (localRoot, pincer mcp --local-root)";

/**
 * Where upload_file reads and download_file writes on the controller. With a local root, every
 * path is confined to it (and reads also to `readRoots`) by the daemon's jail, checked at the open:
 * `..`, an absolute path outside it and a symlink that leads out are refused.
 */
interface LocalFiles {
  /** Runs `fn` with a path that opens the local file to upload. */
  read<T>(p: string, fn: (at: string) => Promise<T>): Promise<T>;
  /** Runs `fn` with the path to write a download to; returns `fn`'s result and the path to report. */
  write<T>(p: string, fn: (at: string) => Promise<T>): Promise<{ result: T; path: string }>;
}

function localFiles(localRoot: string | undefined, readRoots: readonly string[]): LocalFiles {
  if (localRoot === undefined) {
    // No restriction: paths resolve against the working directory.
    return {
      read: (p, fn) => fn(resolve(p)),
      write: async (p, fn) => ({ result: await fn(resolve(p)), path: resolve(p) }),
    };
  }
  const root = resolve(localRoot);
  const opts = (field: string) => ({ field, what: LOCAL_ROOT, allowAbsolute: true });
  return {
    // Under the local root if it is there, else under the first of readRoots that has it; else the local root's error.
    async read(p, fn) {
      const roots = isAbsolute(p) ? [root] : [root, ...readRoots.map((r) => resolve(r))];
      let first: unknown;
      for (const dir of roots) {
        let reached = false;
        try {
          return await withLocalFileRead(dir, p, opts("local_path"), (at) => {
            reached = true;
            return fn(at);
          });
        } catch (err) {
          if (reached || !(err instanceof NotFoundError)) throw err;
          first ??= err;
        }
      }
      throw first;
    },
    write: async (p, fn) => ({ result: await withLocalFileWrite(root, p, opts("local_path"), fn), path: resolve(root, p) }),
  };
}

function commandActions(maxOutputChars: number) {
  return {
    run_command: action({
      name: "run_command",
      description: "Run a shell command line on the machine and wait for it to finish. A non-zero exit code is reported in the result, not as an error.",
      params: z.object({
        command: z.string().min(1).describe("The command line, run by /bin/sh -c"),
        cwd: remotePath("Working directory on the machine").optional(),
        timeout_seconds: z.number().min(1).max(3600).default(60).describe("Kill the command (and its children) after this many seconds"),
      }),
      returns: z.object({
        exit_code: z.number().nullable(),
        signal: z.string().nullable(),
        stdout: z.string(),
        stderr: z.string(),
        timed_out: z.boolean(),
      }),
      async run({ command, cwd, timeout_seconds }, { env, signal }) {
        const r = await env.process.run(command, { signal, commandTimeoutMs: timeout_seconds * 1000, ...(cwd ? { cwd } : {}) });
        return {
          exit_code: r.exitCode,
          signal: r.signal,
          stdout: clip(r.stdout, maxOutputChars, r.stdoutTruncated),
          stderr: clip(r.stderr, maxOutputChars, r.stderrTruncated),
          timed_out: r.timedOut,
        };
      },
    }),
  };
}

const transferred = z.object({ path: z.string(), size: z.number(), sha256: z.string() });

function transferActions(local: LocalFiles) {
  return {
    upload_file: action({
      name: "upload_file",
      description: "Copy a file from the controller to the machine (sha256-verified; parent directories are created).",
      params: z.object({
        local_path: z.string().min(1).describe("Path of the file on the controller"),
        remote_path: remotePath("Absolute destination path on the machine"),
      }),
      returns: transferred,
      async run({ local_path, remote_path }, { env, signal }) {
        const r = await local.read(local_path, (at) => env.files.upload(at, remote_path, { signal }));
        return { path: r.path, size: r.size, sha256: r.sha256 };
      },
    }),
    download_file: action({
      name: "download_file",
      description: "Copy a file from the machine to the controller (sha256-verified, written atomically).",
      params: z.object({
        remote_path: remotePath("Absolute path of the file on the machine"),
        local_path: z.string().min(1).describe("Destination path on the controller"),
      }),
      returns: transferred,
      async run({ remote_path, local_path }, { env, signal }) {
        const { result: r, path } = await local.write(local_path, (at) => env.files.download(remote_path, at, { signal }));
        return { path, size: r.size, sha256: r.sha256 };
      },
    }),
  };
}

const programActions = {
  launch: action({
    name: "launch",
    description: "Start a GUI program in the background (detached), optionally waiting until its window appears.",
    params: z.object({
      command: z.string().min(1).describe('The command line, e.g. "xterm" or "gedit notes.txt"'),
      wait_for_title: z.string().min(1).optional().describe("Wait until a window whose title contains this text appears"),
    }),
    returns: z.object({ pid: z.number(), window_title: z.string().nullable() }),
    async run({ command, wait_for_title }, { env, signal }) {
      const r = await env.process.launch(command, { signal, ...(wait_for_title ? { waitForTitle: wait_for_title } : {}) });
      return { pid: r.pid, window_title: r.window?.title ?? null };
    },
  }),
  wait_for: action({
    name: "wait_for",
    description:
      "Wait until a window (by title or WM_CLASS) is open or a file exists on the machine: for what a program does after the action that started it " +
      "returned (a dialog, a saved file). Fails when it does not happen in time.",
    params: z
      .object({
        window_title: z.string().min(1).optional().describe("A window whose title contains this text"),
        window_class: z.string().min(1).optional().describe("A window whose WM_CLASS (class or instance) is this"),
        file: remotePath("An absolute path on the machine that must exist").optional(),
        timeout_seconds: z.number().min(0.1).max(120).default(10).describe("How long to wait, in seconds"),
      })
      .refine((a) => a.window_title || a.window_class || a.file, "give window_title, window_class or file"),
    returns: z.object({ waited_ms: z.number(), window_title: z.string().nullable() }),
    async run(a, { env, signal }) {
      const started = performance.now();
      const window = (w: WindowInfo) => windowMatches(w, { title: a.window_title, class: a.window_class });
      for (;;) {
        const found = a.window_title || a.window_class ? (await env.windows.list({ signal })).find(window) : undefined;
        const windowOk = !(a.window_title || a.window_class) || found !== undefined;
        const fileOk = !a.file || (await env.files.exists(a.file, { signal }));
        const waited = performance.now() - started;
        if (windowOk && fileOk) return { waited_ms: Math.round(waited), window_title: found?.title ?? null };
        if (waited >= a.timeout_seconds * 1000) {
          const which = [a.window_title && `titled like ${JSON.stringify(a.window_title)}`, a.window_class && `of class ${a.window_class}`];
          const missing = [!windowOk && `no window ${which.filter(Boolean).join(" ")}`, !fileOk && `no file ${a.file}`].filter(Boolean);
          throw new TimeoutError(`wait_for: after ${a.timeout_seconds} s there is still ${missing.join(" and ")}`);
        }
        await sleep(100, signal);
      }
    },
  }),
  open: action({
    name: "open",
    description: "Open a file, folder or URL on the machine with its default application (xdg-open).",
    params: z.object({ target: z.string().min(1).describe("A path on the machine or a URL") }),
    returns: z.object({ pid: z.number() }),
    async run({ target }, { env, signal }) {
      const r = await env.process.launch(["xdg-open", target], { signal });
      return { pid: r.pid };
    },
  }),
};

/**
 * Actions over the machine's processes and files: run_command, upload_file, download_file, launch,
 * wait_for and open. They need a daemon with the Process and Files services (`RemoteEnv`); the
 * in-memory environment does not model them.
 */
export function createSystemActions(opts: SystemActionsOptions = {}) {
  const local = localFiles(opts.localRoot, opts.readRoots ?? []);
  return { ...commandActions(opts.maxOutputChars ?? 20_000), ...transferActions(local), ...programActions };
}

/** The system actions without a local root (see {@link createSystemActions}). */
export const systemActions = createSystemActions();
