import { spawn } from "node:child_process";
import { readdir, readFile, readlink, rm } from "node:fs/promises";
import { join } from "node:path";
import type { DockerEngine } from "../dockerEngine.js";
import { cacheRoot, type ImageManifest } from "./build.js";
import { tryLock } from "./lock.js";

/** Options of {@link pruneImages}. */
export interface PruneOptions {
  /** Images kept per profile, the profile's current one (`<profile>.json`) first, then the newest. @default 1 */
  keep?: number;
  /** Only this profile's images. @default every profile */
  profile?: string;
  /** Where images are kept. @default $PINCER_CACHE_DIR, else ~/.cache/pincer */
  cacheDir?: string;
  /** Opens the container engine that holds the images' container tags; called only when one is to be removed. */
  openEngine?: () => Promise<DockerEngine>;
  /** Say what would be removed, and remove nothing. */
  dryRun?: boolean;
}

/** What {@link pruneImages} did with one image. */
export interface PruneEntry {
  image: ImageManifest;
  /** kept: one of the images to keep; removed; "to remove" in a dry run; skipped: in use, with the reason. */
  outcome: "kept" | "removed" | "to remove" | "skipped";
  reason: string;
  /** Bytes of the image's folder (what removing it frees; a container image's layers come on top). */
  bytes: number;
}

/**
 * The images in Pincer's cache folder of images (`<cache>/images`), newest first, each with the
 * folder its image.json is in. A manifest cut short by a crash is passed over: the build that owns
 * its folder writes it again.
 */
export async function cachedImages(imagesDir: string): Promise<Array<{ manifest: ImageManifest; folder: string }>> {
  const names = await readdir(imagesDir).catch(() => [] as string[]);
  const found: Array<{ manifest: ImageManifest; folder: string }> = [];
  for (const n of names) {
    const text = await readFile(join(imagesDir, n, "image.json"), "utf8").catch(() => undefined);
    if (text === undefined) continue;
    try {
      found.push({ manifest: JSON.parse(text) as ImageManifest, folder: join(imagesDir, n) });
    } catch {
      // cut short: passed over
    }
  }
  return found.sort((a, b) => b.manifest.created.localeCompare(a.manifest.created));
}

/** The key `<profile>.json` names: the image `--image <profile>` uses. */
async function currentKey(imagesDir: string, profile: string): Promise<string | undefined> {
  try {
    return (JSON.parse(await readFile(join(imagesDir, `${profile}.json`), "utf8")) as ImageManifest).key;
  } catch {
    return undefined;
  }
}

/** Bytes under `dir` as `du -sb` counts them; 0 when du fails. */
function bytesOf(dir: string): Promise<number> {
  return new Promise((resolve) => {
    const du = spawn("du", ["-sb", dir], { stdio: ["ignore", "pipe", "ignore"] });
    let out = "";
    du.stdout.on("data", (d: Buffer) => (out += d.toString()));
    du.once("error", () => resolve(0));
    du.once("close", () => resolve(Number.parseInt(out, 10) || 0));
  });
}

/** A process with a file under `dir` open (a VM on its qcow2 disk, a copy in progress), or undefined. */
async function processUsing(dir: string): Promise<number | undefined> {
  const prefix = `${dir.replace(/\/+$/, "")}/`;
  for (const pid of await readdir("/proc").catch(() => [] as string[])) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
    const fds = await readdir(`/proc/${pid}/fd`).catch(() => [] as string[]);
    for (const fd of fds) {
      const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => "");
      if (target.startsWith(prefix)) return Number(pid);
    }
  }
  return undefined;
}

/** Removes the image's container tag; a reason when the engine refuses (a container uses it). */
async function removeTag(engine: DockerEngine, tag: string): Promise<string | undefined> {
  try {
    await engine.docker.getImage(tag).remove();
    return undefined;
  } catch (err) {
    const code = (err as { statusCode?: number }).statusCode;
    if (code === 404) return undefined;
    const message = ((err as { json?: { message?: string } }).json?.message ?? (err as Error).message).trim();
    return code === 409 ? `a container uses ${tag} (${message}); remove the container first` : `${engine.description} did not remove ${tag}: ${message}`;
  }
}

/** Which images to keep: per profile the current one, then the newest, `keep` in all. */
function chooseKept(images: ImageManifest[], current: Map<string, string | undefined>, keep: number): Set<ImageManifest> {
  const kept = new Set<ImageManifest>();
  const profiles = new Set(images.map((m) => m.profile));
  for (const profile of profiles) {
    const mine = images.filter((m) => m.profile === profile).sort((a, b) => b.created.localeCompare(a.created));
    const cur = mine.find((m) => m.key === current.get(profile));
    const ordered = cur ? [cur, ...mine.filter((m) => m !== cur)] : mine;
    for (const m of ordered.slice(0, keep)) kept.add(m);
  }
  return kept;
}

/**
 * Removes the images of Pincer's cache beyond the `keep` newest of each profile (the one
 * `<profile>.json` names always kept): each image's folder and its container tag in the engine.
 * An image in use is skipped and says why: one being built, one whose files a process holds open
 * (a VM on its disk), one a container uses. A tag is removed before its folder, so a failure leaves
 * the image whole. Every image is reported, kept, removed or skipped.
 */
export async function pruneImages(opts: PruneOptions = {}): Promise<PruneEntry[]> {
  const keep = opts.keep ?? 1;
  if (!Number.isInteger(keep) || keep < 1) throw new RangeError(`keep ${keep}: keep at least 1 image per profile`);
  const imagesDir = join(cacheRoot(opts.cacheDir), "images");
  const dirs = new Map((await cachedImages(imagesDir)).map((i) => [i.manifest, i.folder]));
  const images = [...dirs.keys()].filter((m) => opts.profile === undefined || m.profile === opts.profile);
  const current = new Map<string, string | undefined>();
  for (const p of new Set(images.map((m) => m.profile))) current.set(p, await currentKey(imagesDir, p));
  const kept = chooseKept(images, current, keep);
  const entries: PruneEntry[] = [];
  let engine: DockerEngine | undefined;
  try {
    for (const m of images.sort((a, b) => a.profile.localeCompare(b.profile) || b.created.localeCompare(a.created))) {
      const dir = dirs.get(m)!;
      const bytes = await bytesOf(dir);
      if (kept.has(m)) {
        entries.push({ image: m, outcome: "kept", reason: m.key === current.get(m.profile) ? `the current ${m.profile} image` : "among the newest", bytes });
        continue;
      }
      if (opts.dryRun) {
        entries.push({ image: m, outcome: "to remove", reason: m.container ? `and ${m.container.tag} (dry run)` : "(dry run)", bytes });
        continue;
      }
      if (m.container && !engine) {
        if (!opts.openEngine) throw new Error(`${m.profile}-${m.key} has a container image (${m.container.tag}): give an engine to remove it from`);
        engine = await opts.openEngine();
      }
      entries.push(await removeOne(m, dir, bytes, engine));
    }
  } finally {
    await engine?.close();
  }
  return entries;
}

async function removeOne(m: ImageManifest, dir: string, bytes: number, engine: DockerEngine | undefined): Promise<PruneEntry> {
  // The lock `pincer image build` holds: no build writes the folder while it is removed.
  const lock = await tryLock(join(dir, "lock"));
  if (!("release" in lock)) return { image: m, outcome: "skipped", reason: "a build of it is running (its lock is held)", bytes };
  try {
    const pid = await processUsing(dir);
    if (pid !== undefined) return { image: m, outcome: "skipped", reason: `process ${pid} has its files open (a VM on its disk?)`, bytes };
    if (m.container && engine) {
      const refused = await removeTag(engine, m.container.tag);
      if (refused) return { image: m, outcome: "skipped", reason: refused, bytes };
    }
    await rm(dir, { recursive: true, force: true });
    return { image: m, outcome: "removed", reason: m.container ? `and ${m.container.tag}` : "", bytes };
  } finally {
    // The folder is gone when removed; the lock went with it.
    await lock.release().catch(() => undefined);
  }
}

/** `1.9 GB`, `512 MB`. */
export function formatBytes(n: number): string {
  return n >= 1e9 ? `${(n / 1e9).toFixed(1)} GB` : `${Math.round(n / 1e6)} MB`;
}

/** One line for an entry: what happened to which image, and why. */
export function describeEntry(e: PruneEntry): string {
  const name = `${e.image.profile}-${e.image.key} (built ${e.image.created}, ${formatBytes(e.bytes)})`;
  return `${e.outcome.padEnd(9)} ${name}${e.reason ? `: ${e.reason}` : ""}`;
}
