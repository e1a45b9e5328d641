import { accessSync, constants, realpathSync, statSync } from "node:fs";
import { delimiter, isAbsolute, join, resolve } from "node:path";
import { echo, InvalidArgumentError, PermissionDeniedError, quoted, ResourceExhaustedError } from "@pincer/shared";

/** Limits of one daemon. Each one exceeded is RESOURCE_EXHAUSTED naming the flag that raises it. */
export interface Limits {
  /** Largest file one upload may write, in bytes. @default Infinity */
  maxUploadBytes: number;
  /** Most commands (run, start, launch) running at once. @default 64 */
  maxProcesses: number;
  /** Most bytes Process/Run keeps of each of stdout and stderr. @default 32 MiB */
  maxOutputBytes: number;
  /** Largest message the daemon accepts, in bytes. @default 8 MiB */
  maxMessageBytes: number;
}

export const DEFAULT_LIMITS: Limits = {
  maxUploadBytes: Infinity,
  maxProcesses: 64,
  maxOutputBytes: 32 * 1024 * 1024,
  maxMessageBytes: 8 * 1024 * 1024,
};

/** Which commands the Process service may start: all, none, or the programs on a list. */
export type ExecMode = "all" | "none" | { allow: string[] };

export { ensureInsideRoot } from "@pincer/shared";

/** Resolves and checks the --file-root directory at start; returns its real path. */
export function realFileRoot(dir: string): string {
  if (!isAbsolute(dir)) dir = resolve(dir);
  let real: string;
  try {
    real = realpathSync(dir);
  } catch (err) {
    throw new Error(`--file-root ${dir}: ${(err as NodeJS.ErrnoException).code === "ENOENT" ? "no such directory" : (err as Error).message}`);
  }
  if (!statSync(real).isDirectory()) throw new Error(`--file-root ${dir}: not a directory`);
  return real;
}

/** Environment variables a client may not set when commands are restricted to a list. */
function forbiddenEnv(key: string): boolean {
  return key === "PATH" || key.startsWith("LD_") || key.startsWith("DYLD_");
}

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * The exec allowlist. A bare name ("ls") allows argv[0] "ls" (looked up on the daemon's PATH,
 * which a client may not override) and the absolute path that lookup finds at start
 * ("/usr/bin/ls"); an absolute entry allows exactly that path. argv[0] "/tmp/x/ls" is refused
 * even when "ls" is listed: otherwise uploading a program named like an allowed one would run it.
 * Shell command lines run /bin/sh, so they need "sh" or "/bin/sh" on the list.
 */
export class ExecAllowlist {
  private readonly names = new Set<string>();
  private readonly paths = new Set<string>();

  constructor(readonly entries: string[]) {
    for (const raw of entries) {
      const entry = raw.trim();
      if (!entry) continue;
      if (isAbsolute(entry)) {
        this.paths.add(resolve(entry));
      } else if (entry.includes("/")) {
        throw new Error(`--exec-allow: ${JSON.stringify(entry)} must be a program name (ls) or an absolute path (/usr/bin/ls)`);
      } else {
        this.names.add(entry);
        const found = onPath(entry);
        if (found) this.paths.add(found);
      }
    }
  }

  /** Throws PERMISSION_DENIED unless the command may run. */
  check(spec: { argv: string[]; shell: string; env: Record<string, string> }): void {
    const list = `allowed: ${this.entries.join(", ") || "nothing"} (--exec-allow)`;
    if (spec.shell) {
      if (!this.names.has("sh") && !this.paths.has("/bin/sh")) {
        throw new PermissionDeniedError(`shell: this daemon runs no shell command lines, only listed programs given as argv; ${list}`);
      }
    } else {
      const program = spec.argv[0] ?? "";
      const ok = isAbsolute(program) ? this.paths.has(resolve(program)) : !program.includes("/") && this.names.has(program);
      if (!ok) throw new PermissionDeniedError(`argv[0]: ${quoted(program)} is not a program this daemon may run; ${list}`);
    }
    for (const key of Object.keys(spec.env)) {
      if (forbiddenEnv(key)) throw new PermissionDeniedError(`env: ${echo(key)} may not be set when the daemon restricts programs (--exec-allow)`);
    }
  }
}

/** What the Process service enforces besides validation. */
export interface ProcessPolicy {
  /** Undefined: any program. */
  allowlist?: ExecAllowlist;
  /** Working directories must be inside it; it is the default working directory. */
  fileRoot?: string;
  maxProcesses: number;
  maxOutputBytes: number;
}

export function tooManyProcesses(running: number, max: number): ResourceExhaustedError {
  return new ResourceExhaustedError(
    `${running} commands started by this daemon are still running, its limit is ${max} at once; ` +
      `wait for some to exit or start the daemon with a higher --max-processes`,
  );
}

export function outputOverLimit(asked: number, max: number): ResourceExhaustedError {
  return new ResourceExhaustedError(
    `max_output_bytes: ${asked} is over this daemon's limit of ${max} bytes per stream; ask for less or start it with a higher --max-output-bytes`,
  );
}

/** Parses "1048576", "64K", "100M", "2G" (binary units; KiB etc. accepted) into bytes. */
export function parseBytes(value: string | number, what: string): number {
  if (typeof value === "number") {
    if (!Number.isSafeInteger(value) || value < 0) throw new InvalidArgumentError(`${what}: ${value} is not a byte count`);
    return value;
  }
  const m = /^\s*(\d+)\s*([kmgt]?)(i?b)?\s*$/i.exec(value);
  if (!m) throw new InvalidArgumentError(`${what}: ${JSON.stringify(value)} is not a size; use bytes or a K, M, G suffix (64K, 100M, 2G)`);
  const power = " kmgt".indexOf((m[2] || " ").toLowerCase());
  const n = Number(m[1]) * 1024 ** power;
  if (!Number.isSafeInteger(n)) throw new InvalidArgumentError(`${what}: ${value} is too large`);
  return n;
}
