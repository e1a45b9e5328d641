/**
 * `pincer machine install ssh://user@host`: the daemon bundle onto a Linux host over SSH, as a
 * systemd service of a desktop user, with a token; `--upgrade` replaces the bundle and keeps the
 * service's settings and token; `--uninstall` removes all of it. Before anything is copied the host is
 * checked (preflight.sh, and an X connection through the SSH channel): a host it cannot serve is
 * refused with the reasons.
 */

import { existsSync } from "node:fs";
import { chmod, mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { connect } from "../env/index.js";
import { BUNDLE_GLIBC_FLOOR, BUNDLE_PREFLIGHT, type BundleManifest, compareGlibc, daemonBundle, readBundleManifest } from "./images/portableBundle.js";
import { parseSshTarget, type SshOptions, SshSession, shellQuote } from "./sshTarget.js";
import { cookieFor, parseXauthority, probeX } from "./xProbe.js";

export interface HostInstallOptions extends SshOptions {
  /** ssh://user@host[:port] */
  target: string;
  /** The desktop user the daemon runs as (install; an upgrade keeps the installed one). */
  user?: string;
  display?: string;
  xauthority?: string;
  /** Headless: the daemon starts its own Xvfb of this size instead of using a session's display. */
  xvfb?: string;
  /** Where the daemon listens on the host (default 0.0.0.0: controllers elsewhere reach it with the token). */
  listen?: string;
  port?: number;
  /** host:port controllers use (default: the SSH host and the port). */
  address?: string;
  /** Where the token is kept here (default ~/.config/pincer/tokens/HOST-PORT.token). */
  tokenFile?: string;
  /** A machines file to add the machine to (made if missing), under `name`. */
  machinesFile?: string;
  name?: string;
  /** The bundle folder to install (default: this checkout's, built into the cache). */
  bundle?: string;
  prefix?: string;
  log?: (line: string) => void;
}

export type HostMode = "install" | "upgrade" | "uninstall";

/** What preflight.sh printed, by key. */
export type Preflight = Record<string, string>;

export function parsePreflight(out: string): Preflight {
  const p: Preflight = {};
  for (const line of out.split("\n")) {
    const i = line.indexOf("=");
    if (i > 0) p[line.slice(0, i)] = line.slice(i + 1);
  }
  return p;
}

/** The reasons a host is refused for `mode`, from its preflight: none when it can go ahead. */
export function refusals(p: Preflight, mode: HostMode, bundle: BundleManifest | undefined, o: { user?: string; xvfb?: string; display?: string }): string[] {
  const out: string[] = [];
  if (p.end !== "1") return [`the host's check did not finish: ${p.error ?? "no output"}`];
  const installed = p.installed;
  if (mode === "uninstall") {
    if (!installed) out.push(`pincer-daemon is not installed in ${p.prefix ?? "the prefix"}: nothing to remove`);
    else if (installed === "other") out.push("the prefix holds something that is not a pincer-daemon bundle (no bundle.json): not removing it");
    return out;
  }
  if (mode === "install" && installed) {
    out.push(
      installed === "other"
        ? "the prefix exists and is not a pincer-daemon bundle: choose another --prefix"
        : "pincer-daemon is already installed there: use --upgrade (or --uninstall first)",
    );
  }
  if (mode === "upgrade" && !installed) out.push("pincer-daemon is not installed there: install it first (without --upgrade)");
  if (mode === "upgrade" && installed === "other") out.push("the prefix is not a pincer-daemon bundle (no bundle.json)");
  if (p.arch !== "x86_64") out.push(`the host is ${p.arch || "of an unknown architecture"}; the bundle is for x86_64`);
  const floor = bundle && compareGlibc(bundle.glibcNeeded, BUNDLE_GLIBC_FLOOR) > 0 ? bundle.glibcNeeded : BUNDLE_GLIBC_FLOOR;
  if (!p.glibc) out.push("no glibc found on the host (musl systems such as Alpine are not supported)");
  else if (compareGlibc(p.glibc, floor) < 0) out.push(`the host's glibc is ${p.glibc}; the bundle needs ${floor} or newer (Debian 11, Ubuntu 20.04 or later)`);
  if (p.systemd !== "yes")
    out.push(
      "systemd is not running on the host: the daemon is installed as a systemd service (start it by hand from a copied bundle instead: docs/machines.md)",
    );
  if (mode === "install" && !o.user) out.push("name the desktop user the daemon runs as: --user USER");
  if (mode === "install" && o.user && !p.user) out.push(`no user ${o.user} on the host`);
  if (p.libs_missing)
    out.push(`the host lacks shared libraries the daemon needs: ${p.libs_missing} (Debian/Ubuntu: apt-get install libx11-6 libxtst6 libstdc++6)`);
  if (o.xvfb) {
    if (!p.xvfb) out.push("--xvfb needs Xvfb on the host (Debian/Ubuntu: apt-get install xvfb)");
  } else if (mode === "install" && p.user) {
    if (!p.display_number) out.push(`${o.display ?? ":0"} is not a local display: give --display :N`);
    else if (!p.display_socket)
      out.push(
        `no X display ${o.display ?? ":0"} on the host (no /tmp/.X11-unix/X${p.display_number}): ` +
          "log the desktop user in (autologin), give --display, or use --xvfb WxHxD",
      );
  }
  return out;
}

/** The install's settings read back from the host, for an upgrade. */
interface Installed {
  user: string;
  config: { host?: string; port?: number; display?: string; xvfb?: string };
  xauthority?: string;
}

const CONFIG_DIR = "/etc/pincer";
const UNIT = "/etc/systemd/system/pincer-daemon.service";

async function readInstalled(ssh: SshSession): Promise<Installed> {
  const r = await ssh.run(`cat ${CONFIG_DIR}/daemon.json; echo; echo '--'; grep -E '^(User|Environment=XAUTHORITY)=' ${UNIT}`);
  const [json, unit] = r.stdout.split("\n--\n");
  if (r.exitCode !== 0 || !json || !unit)
    throw new Error(`could not read the installed service's settings (${CONFIG_DIR}/daemon.json, ${UNIT}): ${r.stderr.trim()}`);
  return {
    config: JSON.parse(json) as Installed["config"],
    user: /^User=(.+)$/m.exec(unit)?.[1] ?? "",
    ...(/^Environment=XAUTHORITY=(.+)$/m.exec(unit) ? { xauthority: /^Environment=XAUTHORITY=(.+)$/m.exec(unit)![1]! } : {}),
  };
}

async function runPreflight(ssh: SshSession, bundleDir: string, m: BundleManifest | undefined, o: HostInstallOptions & { user?: string }, prefix: string) {
  const script = await readFile(join(bundleDir, BUNDLE_PREFLIGHT), "utf8");
  const args = ["--prefix", prefix, "--display", o.display ?? ":0", ...(o.user ? ["--user", o.user] : [])];
  if (o.xvfb) args.push("--xvfb");
  if (o.xauthority) args.push("--xauthority", o.xauthority);
  if (m) args.push("--libs", m.systemLibraries.join(" "));
  const r = await ssh.run(`sh -s -- ${args.map(shellQuote).join(" ")}`, { input: script });
  const p = parsePreflight(r.stdout);
  p.prefix = prefix;
  return p;
}

/** The X server's answer through the SSH channel: a reason to refuse, or undefined. */
async function checkDisplay(ssh: SshSession, p: Preflight): Promise<string | undefined> {
  const cookie = p.xauthority_hex ? cookieFor(parseXauthority(Buffer.from(p.xauthority_hex, "hex")), Number(p.display_number)) : undefined;
  const channel = await ssh.socketStream(p.display_socket!);
  const r = await probeX(channel, cookie).catch((err: Error) => ({ ok: false as const, reason: err.message }));
  const sshSaid = (await channel.close()).trim();
  if (!r.ok) return `${r.reason}${sshSaid ? ` (ssh: ${sshSaid})` : ""}${p.xauthority ? "" : "; no Xauthority file was found for the user: give --xauthority"}`;
  if (!r.xtest)
    return (
      `the X server on :${p.display_number} (${r.vendor}) has no XTEST extension, which the daemon's mouse and keyboard need: ` +
      `enable it (Xorg: Section "Extensions" Option "XTEST" "Enable")`
    );
  return undefined;
}

function defaultTokenFile(address: string): string {
  return join(homedir(), ".config", "pincer", "tokens", `${address.replace(/[^A-Za-z0-9.-]+/g, "-")}.token`);
}

async function writePrivate(file: string, text: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, text, { mode: 0o600 });
  await chmod(tmp, 0o600);
  await rename(tmp, file);
}

/** Adds (or replaces, by address) the machine under `name` in a machines file, written atomically. */
export async function addToMachinesFile(file: string, name: string, entry: { address: string; tokenFile: string }): Promise<void> {
  const current = existsSync(file) ? (JSON.parse(await readFile(file, "utf8")) as Record<string, unknown>) : {};
  const had = current[name];
  const list = had === undefined ? [] : Array.isArray(had) ? had : [had];
  const others = list.filter((m) => (m as { address?: string }).address !== entry.address);
  current[name] = others.length === 0 ? entry : [...others, entry];
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, `${JSON.stringify(current, null, 2)}\n`);
  await rename(tmp, file);
}

/** Calls the daemon until it answers (systemd restarts it while the session's X server is not up). */
async function checkDaemon(address: string, token: string, ssh: SshSession, timeoutMs = 90_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let last = "";
  while (Date.now() < deadline) {
    const env = connect(address, { token });
    try {
      const info = await env.system.info({ timeoutMs: 5_000 });
      const screen = info.screen ? ` ${info.screen.width}x${info.screen.height}` : "";
      return `display ${info.display}${screen}, ${info.hostname}, daemon ${info.daemonVersion}, Node.js ${info.nodeVersion}`;
    } catch (err) {
      last = (err as Error).message;
    } finally {
      env.close();
    }
    await new Promise((r) => setTimeout(r, 1_000));
  }
  const journal = await ssh.run("journalctl -u pincer-daemon -n 25 --no-pager 2>&1 || systemctl status pincer-daemon --no-pager 2>&1");
  throw new Error(`the daemon did not answer at ${address} within ${timeoutMs / 1000} s (${last}). Its log on the host:\n${journal.stdout.trim()}`);
}

export interface HostInstallResult {
  mode: HostMode;
  address?: string;
  tokenFile?: string;
  machinesLine?: string;
  answered?: string;
  removed?: string[];
}

/** Installs, upgrades or uninstalls pincer-daemon on the host `opts.target` (see the module's comment). */
export async function manageHost(mode: HostMode, opts: HostInstallOptions): Promise<HostInstallResult> {
  const log = opts.log ?? (() => {});
  const target = parseSshTarget(opts.target);
  const prefix = opts.prefix ?? "/opt/pincer";
  const ssh = new SshSession(target, opts);
  try {
    await ssh.open();
    if (mode === "uninstall") return await uninstall(ssh, opts, prefix, log);
    const bundle = opts.bundle ? { dir: resolve(opts.bundle), manifest: await readBundleManifest(resolve(opts.bundle)) } : await daemonBundle({ log });
    if (!bundle.manifest) throw new Error(`${opts.bundle} is not a daemon bundle (no bundle.json): pincer image bundle --out DIR writes one`);
    const given = (["user", "display", "xauthority", "xvfb", "listen", "port"] as const).filter((k) => opts[k] !== undefined);
    if (mode === "upgrade" && given.length > 0) {
      throw new Error(
        `--upgrade keeps the service's settings and does not take --${given.join(", --")}: ` +
          "change them with install.sh in the bundle's folder on the host, or --uninstall and install again",
      );
    }
    const installed = mode === "upgrade" ? await readInstalled(ssh).catch(() => undefined) : undefined;
    const settings = {
      ...opts,
      user: opts.user ?? installed?.user,
      display: opts.display ?? installed?.config.display,
      xvfb: opts.xvfb ?? installed?.config.xvfb,
      xauthority: opts.xauthority ?? installed?.xauthority,
      listen: opts.listen ?? installed?.config.host ?? "0.0.0.0",
      port: opts.port ?? installed?.config.port ?? 50051,
    };
    log(`checking ${ssh.label}`);
    const p = await runPreflight(ssh, bundle.dir, bundle.manifest, settings, prefix);
    const reasons = refusals(p, mode, bundle.manifest, settings);
    if (reasons.length === 0 && !settings.xvfb && p.display_socket) {
      const x = await checkDisplay(ssh, p);
      if (x) reasons.push(x);
    }
    if (reasons.length > 0) throw new Error(`${ssh.label} refused, nothing was copied:\n${reasons.map((r) => `  - ${r}`).join("\n")}`);
    log(
      `${ssh.label}: ${p.os ?? "Linux"}, glibc ${p.glibc}, ` +
        `${settings.xvfb ? `its own Xvfb ${settings.xvfb}` : `display ${settings.display ?? ":0"}`}${p.xauthority ? ` (Xauthority ${p.xauthority})` : ""}`,
    );
    return await place(ssh, mode, bundle as { dir: string; manifest: BundleManifest }, settings, p, prefix, log);
  } finally {
    await ssh.close();
  }
}

async function place(
  ssh: SshSession,
  mode: HostMode,
  bundle: { dir: string; manifest: BundleManifest },
  o: HostInstallOptions & { listen: string; port: number },
  p: Preflight,
  prefix: string,
  log: (l: string) => void,
): Promise<HostInstallResult> {
  const q = shellQuote;
  log(`copying the bundle (${(bundle.manifest.bytes / 2 ** 20).toFixed(0)} MiB) to ${ssh.label}:${prefix}`);
  const staging = `${prefix}.new`;
  await ssh.pipe(
    ["tar", "-czf", "-", "-C", bundle.dir, "."],
    `set -e; rm -rf ${q(staging)}; mkdir -p ${q(staging)}; tar -xzf - -C ${q(staging)} --no-same-owner`,
  );
  const install = [`${prefix}/install.sh`, "--host", o.listen, "--port", String(o.port), "--user", o.user!];
  if (o.xvfb) install.push("--xvfb", o.xvfb);
  else install.push("--display", o.display ?? ":0", ...(o.xauthority || p.xauthority ? ["--xauthority", (o.xauthority ?? p.xauthority)!] : []));
  // The new bundle takes the old one's place only once it is all there; the service restarts on it.
  const old = q(`${prefix}.old`);
  const [to, from] = [q(prefix), q(staging)];
  const swap = `set -e; chown -R root:root ${from}; if [ -d ${to} ]; then rm -rf ${old}; mv ${to} ${old}; fi; mv ${from} ${to}; rm -rf ${old}`;
  // An upgrade keeps the service as it is (its unit, config and token: TLS or limits set by hand too)
  // and restarts it on the new bundle, which has the same paths.
  const then = mode === "upgrade" ? "systemctl restart pincer-daemon && echo '+ restarted pincer-daemon'" : install.map(q).join(" ");
  const r = await ssh.run(`${swap}; ${then}`);
  if (r.exitCode !== 0) throw new Error(`installing on ${ssh.label} failed: ${(r.stderr || r.stdout).trim()}`);
  for (const line of r.stdout.trim().split("\n")) if (line.startsWith("+ ")) log(line.slice(2));
  const tok = await ssh.run(`cat ${CONFIG_DIR}/token`);
  const token = tok.stdout.trim();
  if (tok.exitCode !== 0 || !/^[0-9a-f]{32,}$/.test(token))
    throw new Error(`could not read the token from ${ssh.label}:${CONFIG_DIR}/token: ${tok.stderr.trim()}`);
  const address = o.address ?? `${ssh.target.host.includes(":") ? `[${ssh.target.host}]` : ssh.target.host}:${o.port}`;
  const tokenFile = resolve(o.tokenFile ?? defaultTokenFile(address));
  await writePrivate(tokenFile, `${token}\n`);
  const answered = await checkDaemon(address, token, ssh);
  log(`the daemon answers at ${address}: ${answered}`);
  const entry = { address, tokenFile };
  if (o.machinesFile) await addToMachinesFile(o.machinesFile, o.name ?? "desktop", entry);
  return { mode, address, tokenFile, answered, machinesLine: `${JSON.stringify(o.name ?? "desktop")}: ${JSON.stringify(entry)}` };
}

async function uninstall(ssh: SshSession, o: HostInstallOptions, prefix: string, log: (l: string) => void): Promise<HostInstallResult> {
  const p = parsePreflight(
    (
      await ssh.run(
        `if [ -f ${shellQuote(`${prefix}/bundle.json`)} ]; then echo installed=1; elif [ -e ${shellQuote(prefix)} ]; then echo installed=other; fi; echo end=1`,
      )
    ).stdout,
  );
  p.prefix = prefix;
  const reasons = refusals(p, "uninstall", undefined, {});
  if (reasons.length > 0) throw new Error(`${ssh.label}: ${reasons.join("; ")}`);
  const r = await ssh.run(`${shellQuote(`${prefix}/uninstall.sh`)}`);
  if (r.exitCode !== 0) throw new Error(`uninstalling on ${ssh.label} failed: ${(r.stderr || r.stdout).trim()}`);
  const removed = r.stdout
    .split("\n")
    .filter((l) => l.startsWith("+ "))
    .map((l) => l.slice(2));
  for (const l of removed) log(l);
  const tokenFile = o.tokenFile ?? (o.address ? defaultTokenFile(o.address) : undefined);
  if (tokenFile && existsSync(tokenFile)) {
    await rm(tokenFile);
    removed.push(`(here) ${tokenFile}`);
  }
  return { mode: "uninstall", removed };
}
