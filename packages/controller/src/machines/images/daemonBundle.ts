import { createHash } from "node:crypto";
import { copyFile, mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { execa } from "execa";

/** Where the daemon's sources and build output are: the checkout Pincer runs from. */
export interface DaemonSources {
  /** The repository root (holds proto/ and package-lock.json). */
  repo: string;
  shared: string;
  daemon: string;
}

/** The @pincer/shared and @pincer/daemon packages this controller runs with (a workspace checkout). */
export function daemonSources(): DaemonSources {
  const require = createRequire(import.meta.url);
  const daemon = dirname(require.resolve("@pincer/daemon/package.json"));
  return { repo: join(daemon, "..", ".."), shared: join(daemon, "..", "shared"), daemon };
}

/** Builds the daemon and its shared package (tsc -b: nothing to do when they are up to date). */
export async function buildDaemon(src: DaemonSources): Promise<void> {
  const tsc = join(src.repo, "node_modules", ".bin", "tsc");
  try {
    await execa(tsc, ["-b", join(src.daemon, "tsconfig.json")], { cwd: src.repo });
  } catch (err) {
    throw new Error(`could not build pincer-daemon for the image (${tsc} -b packages/daemon): ${(err as Error).message.slice(-2000)}`);
  }
}

/** The files under `dir`, at any depth, sorted. */
export async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

interface LockEntry {
  version?: string;
  integrity?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

/**
 * The lockfile entries of the daemon's production dependencies, and theirs, by name: what npm
 * installs into the image. Other packages' changes do not make a new image.
 */
async function daemonLockEntries(src: DaemonSources): Promise<Record<string, LockEntry>> {
  const lock = JSON.parse(await readFile(join(src.repo, "package-lock.json"), "utf8")) as { packages: Record<string, LockEntry> };
  const depsOf = (e: LockEntry | undefined) => Object.keys({ ...e?.dependencies, ...e?.optionalDependencies });
  const manifest = async (dir: string) => JSON.parse(await readFile(join(dir, "package.json"), "utf8")) as LockEntry;
  const queue = [...depsOf(await manifest(src.daemon)), ...depsOf(await manifest(src.shared))];
  const seen: Record<string, LockEntry> = {};
  while (queue.length > 0) {
    const name = queue.pop()!;
    if (seen[name] || name.startsWith("@pincer/")) continue;
    const entry = lock.packages[`node_modules/${name}`];
    if (!entry) continue;
    seen[name] = { ...(entry.version ? { version: entry.version } : {}), ...(entry.integrity ? { integrity: entry.integrity } : {}) };
    queue.push(...depsOf(entry));
  }
  return Object.fromEntries(Object.entries(seen).sort(([a], [b]) => a.localeCompare(b)));
}

/**
 * A digest of everything that goes into the image's copy of the daemon: the build output of
 * @pincer/shared and @pincer/daemon (the contract is embedded in it), the native spawner's source,
 * the lockfile entries that pin their dependencies, and the Node.js copied beside them.
 */
export async function daemonDigest(src: DaemonSources): Promise<string> {
  const hash = createHash("sha256");
  const roots = [join(src.shared, "dist"), join(src.daemon, "dist"), join(src.daemon, "native"), join(src.daemon, "service")];
  for (const root of roots) {
    for (const file of await filesUnder(root)) {
      if (file.includes(`${join(src.daemon, "native", "build")}/`)) continue;
      hash
        .update(relative(src.repo, file))
        .update("\0")
        .update(await readFile(file))
        .update("\0");
    }
  }
  hash.update(JSON.stringify(await daemonLockEntries(src)));
  const node = await stat(process.execPath);
  hash.update(`node ${process.version} ${process.arch} ${node.size}`);
  return hash.digest("hex");
}

/**
 * Installs the daemon with its production dependencies into `dest` (as scripts/install-daemon.sh
 * does on a machine: pack the two packages, npm install --omit=dev), and copies this Node.js to
 * `dest/bin/node`. Native parts are built here, for Debian 12 on x86-64, the images' system; with
 * `staticSpawner` the spawner is linked statically (for a bundle that runs on older systems).
 */
export async function stageDaemon(src: DaemonSources, dest: string, scratch: string, opts: { staticSpawner?: boolean } = {}): Promise<void> {
  const packs = join(scratch, "packs");
  await mkdir(packs, { recursive: true });
  // Each package's "files" says what it ships (dist/, the spawner's source and its build script).
  await execa("npm", ["pack", "--silent", "--pack-destination", packs, src.shared, src.daemon], { cwd: scratch });
  await mkdir(join(dest, "bin"), { recursive: true });
  await writeFile(join(dest, "package.json"), `${JSON.stringify({ name: "pincer-daemon-image", private: true }, null, 2)}\n`);
  const tarballs = (await readdir(packs)).filter((f) => f.endsWith(".tgz")).map((f) => join(packs, f));
  const npm = ["install", "--omit=dev", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error", "--prefix", dest, ...tarballs];
  try {
    await execa("npm", npm, { cwd: scratch, ...(opts.staticSpawner ? { env: { PINCER_STATIC_SPAWNER: "1" } } : {}) });
  } catch (err) {
    throw new Error(`npm could not install the daemon's dependencies for the image: ${(err as Error).message.slice(-2000)}`);
  }
  await copyFile(process.execPath, join(dest, "bin", "node"));
}
