/**
 * A host reached with OpenSSH's `ssh`: keys, an agent or the user's ssh config, never a password
 * (BatchMode: ssh fails instead of asking). One master connection per session (ControlMaster), so
 * the commands after the first do not log in again.
 */

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { connect } from "node:net";
import { join } from "node:path";
import type { Readable, Writable } from "node:stream";
import { execa } from "execa";

export interface SshTarget {
  user: string;
  host: string;
  port?: number;
}

/** `ssh://user@host[:port]` (or `user@host`). A password in it is refused: use a key or an agent. */
export function parseSshTarget(text: string): SshTarget {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text) && !/^ssh:\/\//i.test(text)) throw new Error(`${JSON.stringify(text)}: write ssh://USER@HOST[:PORT]`);
  const url = /^ssh:\/\//i.test(text) ? text : `ssh://${text}`;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new Error(`${JSON.stringify(text)}: write ssh://USER@HOST[:PORT]`);
  }
  if (u.protocol !== "ssh:" || !u.hostname) throw new Error(`${JSON.stringify(text)}: write ssh://USER@HOST[:PORT]`);
  if (u.password) throw new Error(`${JSON.stringify(text)}: no password in the address: Pincer logs in with a key or an agent (ssh-copy-id USER@HOST)`);
  if (!u.username) throw new Error(`${JSON.stringify(text)}: name the user to log in as: ssh://USER@${u.host}`);
  if (u.pathname && u.pathname !== "/") throw new Error(`${JSON.stringify(text)}: no path after the host`);
  return { user: decodeURIComponent(u.username), host: u.hostname.replace(/^\[|\]$/g, ""), ...(u.port ? { port: Number(u.port) } : {}) };
}

/** A word for the remote shell, single-quoted. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

export interface SshOptions {
  /** A private key file (ssh -i). */
  identity?: string;
  /** More `-o` options (e.g. StrictHostKeyChecking=accept-new, UserKnownHostsFile=FILE). */
  options?: readonly string[];
}

export class SshSession {
  readonly target: SshTarget;
  readonly #opts: SshOptions;
  #dir: string | undefined;
  /** Commands that need root are run with `sudo -n` when the login is not root. */
  #sudo = false;
  #forwards = 0;

  constructor(target: SshTarget, opts: SshOptions = {}) {
    this.target = target;
    this.#opts = opts;
  }

  get label(): string {
    return `${this.target.user}@${this.target.host}${this.target.port ? `:${this.target.port}` : ""}`;
  }

  async #args(): Promise<string[]> {
    this.#dir ??= await mkdtemp(join(tmpdir(), "pincer-ssh-"));
    const o = ["BatchMode=yes", "ConnectTimeout=15", "ControlMaster=auto", `ControlPath=${this.#dir}/cm`, "ControlPersist=120", ...(this.#opts.options ?? [])];
    return [
      ...o.flatMap((x) => ["-o", x]),
      ...(this.target.port ? ["-p", String(this.target.port)] : []),
      ...(this.#opts.identity ? ["-i", this.#opts.identity] : []),
      "-l",
      this.target.user,
      this.target.host,
    ];
  }

  /**
   * Logs in and finds out how to become root: the login itself, or `sudo -n`. Throws with ssh's own
   * words when the login fails.
   */
  async open(): Promise<void> {
    const r = await this.run("id -u", { root: false });
    if (r.exitCode !== 0)
      throw new Error(`ssh ${this.label} failed: ${r.stderr.trim() || `exit ${r.exitCode}`} (Pincer logs in with a key or an agent, never a password)`);
    if (r.stdout.trim() === "0") return;
    const s = await this.run("sudo -n true", { root: false });
    if (s.exitCode !== 0) {
      throw new Error(
        `${this.label} is not root and cannot become root without a password (sudo -n: ${s.stderr.trim()}): ` +
          `log in as root, or allow ${this.target.user} sudo without a password`,
      );
    }
    this.#sudo = true;
  }

  /** Runs a shell command on the host (as root unless `root: false`); never rejects for its exit status. */
  async run(command: string, opts: { root?: boolean; input?: string | Buffer; timeoutMs?: number } = {}) {
    const cmd = opts.root !== false && this.#sudo ? `sudo -n sh -c ${shellQuote(command)}` : command;
    const r = await execa("ssh", [...(await this.#args()), cmd], {
      reject: false,
      stripFinalNewline: false,
      ...(opts.input !== undefined ? { input: opts.input } : { stdin: "ignore" }),
      timeout: opts.timeoutMs ?? 120_000,
    });
    return { stdout: String(r.stdout), stderr: String(r.stderr), exitCode: r.exitCode ?? -1 };
  }

  /** Runs a command (as root) with its stdin fed from a local command's stdout: a tar pipe. */
  async pipe(local: string[], command: string, timeoutMs = 600_000) {
    const cmd = this.#sudo ? `sudo -n sh -c ${shellQuote(command)}` : command;
    const source = execa(local[0]!, local.slice(1), { reject: false, timeout: timeoutMs, buffer: { stdout: false } });
    const sink = await source.pipe("ssh", [...(await this.#args()), cmd], { reject: false, timeout: timeoutMs });
    const a = await source;
    if (a.exitCode !== 0) throw new Error(`${local.join(" ")} failed: ${String(a.stderr).trim()}`);
    if (sink.exitCode !== 0) throw new Error(`${command} on ${this.label} failed: ${String(sink.stderr).trim() || `exit ${sink.exitCode}`}`);
  }

  /**
   * A byte stream to a Unix socket on the host, as the login user: a forwarding (ssh -L) from a socket
   * in this session's private folder, added to the master connection and cancelled by `close`.
   */
  async socketStream(path: string): Promise<{ input: Writable; output: Readable; close: () => Promise<string> }> {
    const args = await this.#args();
    const local = join(this.#dir!, `fwd-${++this.#forwards}.sock`);
    const spec = `${local}:${path}`;
    const added = await execa("ssh", [...args.slice(0, -3), "-O", "forward", "-L", spec, ...args.slice(-3)], { reject: false, timeout: 30_000 });
    if (added.exitCode !== 0) throw new Error(`ssh could not forward ${path}: ${String(added.stderr).trim()}`);
    const socket = connect(local);
    socket.on("error", () => {});
    return {
      input: socket,
      output: socket,
      close: async () => {
        socket.destroy();
        const r = await execa("ssh", [...args.slice(0, -3), "-O", "cancel", "-L", spec, ...args.slice(-3)], { reject: false, timeout: 30_000 });
        return r.exitCode === 0 ? "" : String(r.stderr);
      },
    };
  }

  /** Ends the master connection and removes its socket's folder. */
  async close(): Promise<void> {
    if (!this.#dir) return;
    await execa("ssh", [...(await this.#args()).slice(0, -3), "-O", "exit", "-l", this.target.user, this.target.host], { reject: false, timeout: 10_000 });
    await rm(this.#dir, { recursive: true, force: true });
    this.#dir = undefined;
  }
}
