/**
 * The daemon bundle: pincer-daemon, its dependencies, its native parts and a Node.js runtime in one
 * folder that runs on x86-64 Linux with glibc ≥ {@link BUNDLE_GLIBC_FLOOR} and nothing else installed
 * but the X client libraries a desktop has. `pincer image bundle` writes it; `pincer machine install`
 * copies it to a host over SSH.
 */

import { existsSync } from "node:fs";
import { chmod, mkdir, open, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { execa } from "execa";
import { cacheRoot } from "./build.js";
import { buildDaemon, type DaemonSources, daemonDigest, daemonSources, filesUnder, stageDaemon } from "./daemonBundle.js";
import { daemonExec } from "./guestFiles.js";
import { withBuildLock } from "./lock.js";

/**
 * The oldest glibc the bundle is made for: Ubuntu 20.04 and Debian 11 (2.31). Its parts need at most
 * 2.28 (Node.js 20's official build and sharp's libvips); the bundle's manifest says what they need.
 */
export const BUNDLE_GLIBC_FLOOR = "2.31";

/** bundle.json, at the top of a bundle. */
export interface BundleManifest {
  format: 1;
  /** @pincer/daemon's version. */
  daemon: string;
  /** The digest of everything in it ({@link daemonDigest}): equal digests, equal bundles. */
  digest: string;
  node: string;
  arch: "x86_64";
  /** The newest glibc symbol version any of its programs and libraries needs. */
  glibcNeeded: string;
  /** Shared libraries it takes from the system (the X client libraries, libstdc++, glibc's). */
  systemLibraries: string[];
  bytes: number;
  created: string;
}

/** Paths inside a bundle. */
export const BUNDLE_MAIN = "node_modules/@pincer/daemon/dist/main.js";
export const BUNDLE_SERVICE = "node_modules/@pincer/daemon/service/service.sh";
export const BUNDLE_PREFLIGHT = "node_modules/@pincer/daemon/service/preflight.sh";

/** Packages of other systems that npm installs with nut-js (its addons for Windows and macOS). */
const FOREIGN = ["node_modules/@nut-tree-fork/libnut-win32", "node_modules/@nut-tree-fork/libnut-darwin"];

/** glibc version strings compared as numbers: -1, 0, 1. */
export function compareGlibc(a: string, b: string): number {
  const pa = a.split(".").map(Number);
  const pb = b.split(".").map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

async function isElf(file: string): Promise<boolean> {
  const fh = await open(file, "r");
  try {
    const { buffer, bytesRead } = await fh.read(Buffer.alloc(4), 0, 4, 0);
    return bytesRead === 4 && buffer.toString("latin1") === "\x7fELF";
  } finally {
    await fh.close();
  }
}

/** What the ELF files under `dir` need from the system: the newest GLIBC_ version, and libraries not in `dir`. */
export async function systemNeeds(dir: string): Promise<{ glibc: string; libraries: string[]; files: number }> {
  const files = await filesUnder(dir);
  const elves: string[] = [];
  for (const f of files) if (await isElf(f)) elves.push(f);
  const own = new Set(elves.map((f) => f.slice(f.lastIndexOf("/") + 1)));
  let glibc = "2.2.5";
  const needed = new Set<string>();
  for (const f of elves) {
    const dyn = await execa("objdump", ["-T", f], { reject: false });
    for (const m of dyn.stdout.matchAll(/\bGLIBC_(\d+\.\d+(?:\.\d+)?)\b/g)) if (compareGlibc(m[1]!, glibc) > 0) glibc = m[1]!;
    const head = await execa("objdump", ["-p", f], { reject: false });
    if (head.exitCode !== 0) throw new Error(`objdump -p ${f}: ${head.stderr.trim()} (objdump is in Debian's binutils)`);
    for (const m of head.stdout.matchAll(/^\s*NEEDED\s+(\S+)$/gm)) if (!own.has(m[1]!)) needed.add(m[1]!);
  }
  return { glibc, libraries: [...needed].sort(), files: elves.length };
}

async function treeBytes(dir: string): Promise<number> {
  let n = 0;
  for (const f of await filesUnder(dir)) n += (await stat(f)).size;
  return n;
}

function launcher(): string {
  return `#!/bin/sh
# pincer-daemon with the bundle's own Node.js: bin/pincer-daemon --help
here="$(cd "$(dirname "$0")/.." && pwd)"
${daemonExec('"$here/bin/node"', `"$here/${BUNDLE_MAIN}"`)} "$@"
`;
}

function installScript(version: string): string {
  return `#!/usr/bin/env bash
# Installs this bundle's pincer-daemon as a systemd service of a desktop user, from where the bundle
# is (copy the folder to its place first, e.g. /opt/pincer): sudo ./install.sh --user alice
# Options: ./install.sh --help. Undo: sudo ./uninstall.sh (removes the service, the token and this folder).
set -euo pipefail
here="$(cd "$(dirname "\${BASH_SOURCE[0]}")" && pwd)"
exec bash "$here/${BUNDLE_SERVICE}" install --node "$here/bin/node" --main "$here/${BUNDLE_MAIN}" \\
  --written-by "pincer-daemon bundle ${version} ($here/install.sh); remove with $here/uninstall.sh" "$@"
`;
}

function uninstallScript(): string {
  return `#!/usr/bin/env bash
# Stops and removes the service install.sh made (its unit, config and token), then this bundle's folder.
# --keep-config keeps the token for a later install; the same --config-dir/--unit-dir/--service as the install.
set -euo pipefail
here="$(cd "$(dirname "\${BASH_SOURCE[0]}")" && pwd)"
[ -f "$here/bundle.json" ] || { echo "uninstall.sh: $here has no bundle.json: not a pincer-daemon bundle; not removing it" >&2; exit 1; }
bash "$here/${BUNDLE_SERVICE}" uninstall "$@"
case " $* " in *" --dry-run "*) echo "+ rm -rf $here"; exit 0 ;; esac
rm -rf "$here"
echo "+ removed $here"
`;
}

/** Stages the bundle into `tree`: the daemon (static spawner), Node.js, the launcher and the scripts. */
async function stageBundle(src: DaemonSources, tree: string, digest: string, log: (l: string) => void): Promise<BundleManifest> {
  const scratch = `${tree}.scratch`;
  await rm(scratch, { recursive: true, force: true });
  try {
    await stageDaemon(src, tree, scratch, { staticSpawner: true });
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  for (const f of FOREIGN) await rm(join(tree, f), { recursive: true, force: true });
  const spawner = join(tree, "node_modules/@pincer/daemon/native/build/pincer-spawner");
  if (!existsSync(spawner))
    throw new Error("the daemon's spawner was not linked statically: install glibc's static library (Debian: apt-get install libc6-dev)");
  const daemon = JSON.parse(await readFile(join(src.daemon, "package.json"), "utf8")) as { version: string };
  await writeFile(join(tree, "package.json"), `${JSON.stringify({ name: "pincer-daemon-bundle", private: true }, null, 2)}\n`);
  await writeFile(join(tree, "bin", "pincer-daemon"), launcher(), { mode: 0o755 });
  await writeFile(join(tree, "install.sh"), installScript(daemon.version), { mode: 0o755 });
  await writeFile(join(tree, "uninstall.sh"), uninstallScript(), { mode: 0o755 });
  await execa("chmod", ["-R", "a+rX,go-w", tree]);
  const needs = await systemNeeds(tree);
  log(`bundle: ${needs.files} programs and libraries need glibc ≥ ${needs.glibc} and ${needs.libraries.join(", ")}`);
  if (compareGlibc(needs.glibc, BUNDLE_GLIBC_FLOOR) > 0) {
    throw new Error(`the bundle's parts need glibc ${needs.glibc}, newer than the ${BUNDLE_GLIBC_FLOOR} it promises: build it on an older system`);
  }
  const manifest: BundleManifest = {
    format: 1,
    daemon: daemon.version,
    digest,
    node: process.version,
    arch: "x86_64",
    glibcNeeded: needs.glibc,
    systemLibraries: needs.libraries,
    bytes: 0,
    created: new Date().toISOString(),
  };
  manifest.bytes = (await treeBytes(tree)) + 1024;
  await writeFile(join(tree, "bundle.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

export interface BundleOptions {
  cacheDir?: string;
  /** Build again even if the cache holds this bundle. */
  rebuild?: boolean;
  log?: (line: string) => void;
}

/**
 * The bundle of this checkout's daemon, built into Pincer's cache (`bundles/<digest>/tree`) or found
 * there. Concurrent callers wait for one build.
 */
export async function daemonBundle(opts: BundleOptions = {}): Promise<{ dir: string; manifest: BundleManifest }> {
  if (process.platform !== "linux" || process.arch !== "x64") throw new Error("a daemon bundle is built on x86-64 Linux (it carries this Node.js)");
  const log = opts.log ?? (() => {});
  const src = daemonSources();
  await buildDaemon(src);
  const digest = await daemonDigest(src);
  const root = join(cacheRoot(opts.cacheDir), "bundles", digest.slice(0, 16));
  await mkdir(root, { recursive: true });
  return withBuildLock(join(root, "lock"), log, async () => {
    const tree = join(root, "tree");
    const cached = opts.rebuild ? undefined : await readBundleManifest(tree);
    if (cached?.digest === digest) {
      log(`bundle: cached (${tree})`);
      return { dir: tree, manifest: cached };
    }
    const staging = join(root, "tree.tmp");
    await rm(staging, { recursive: true, force: true });
    const t0 = performance.now();
    const manifest = await stageBundle(src, staging, digest, log);
    await rm(tree, { recursive: true, force: true });
    await rename(staging, tree);
    log(`bundle: built ${tree} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    await pruneBundles(dirname(root), root, log);
    return { dir: tree, manifest };
  });
}

/** Keeps the two newest bundles of the cache (another checkout's may be in use) and removes the rest. */
async function pruneBundles(bundlesDir: string, keep: string, log: (l: string) => void): Promise<void> {
  const found: Array<{ dir: string; at: number }> = [];
  for (const name of await readdir(bundlesDir)) {
    const dir = join(bundlesDir, name);
    if (dir === keep || existsSync(join(dir, "lock"))) continue;
    const at = await stat(join(dir, "tree", "bundle.json")).then(
      (s) => s.mtimeMs,
      () => 0,
    );
    found.push({ dir, at });
  }
  found.sort((a, b) => b.at - a.at);
  for (const old of found.slice(1)) {
    await rm(old.dir, { recursive: true, force: true });
    log(`bundle: removed an older bundle (${old.dir})`);
  }
}

/** A bundle's bundle.json, or undefined where there is none. */
export async function readBundleManifest(dir: string): Promise<BundleManifest | undefined> {
  try {
    const m = JSON.parse(await readFile(join(dir, "bundle.json"), "utf8")) as BundleManifest;
    return m.format === 1 ? m : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Writes the bundle as a folder (`out`) or a .tar.gz (`out` ends so), whose one top folder is
 * `pincer-daemon-<version>`. Refuses a path that exists; writes beside it and renames, so a failure
 * leaves nothing.
 */
export async function writeBundle(bundle: { dir: string; manifest: BundleManifest }, out: string): Promise<string> {
  if (existsSync(out)) throw new Error(`${out} exists: give a new path (a folder, or a file ending in .tar.gz)`);
  await mkdir(dirname(out), { recursive: true });
  const tmp = join(dirname(out), `.${out.slice(dirname(out).length + 1)}.${process.pid}.tmp`);
  try {
    if (/\.(tar\.gz|tgz)$/.test(out)) {
      const top = `pincer-daemon-${bundle.manifest.daemon}`;
      await execa("tar", ["-czf", tmp, "--owner=0", "--group=0", `--transform=s,^\\.,${top},`, "-C", bundle.dir, "."]);
      await chmod(tmp, 0o644);
    } else {
      await execa("cp", ["-a", bundle.dir, tmp]);
    }
    await rename(tmp, out);
  } catch (err) {
    await rm(tmp, { recursive: true, force: true });
    throw err;
  }
  return out;
}
