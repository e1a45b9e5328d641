import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { ImageManifest } from "../../packages/controller/src/machines/images/build.js";
import { type PruneEntry, pruneImages } from "../../packages/controller/src/machines/images/prune.js";
import { type DockerEngine, openEngine } from "../../packages/controller/src/machines/dockerEngine.js";
import { runPincer } from "../fixtures/cli.js";

// `pincer image prune` on a cache folder of its own and the real container engine: tags made with
// `podman import` of an empty archive, a container made (not started) from one of them, a process
// holding a disk open, and a build lock held by a live process.

const cache = mkdtempSync(join(tmpdir(), "pincer-prune-"));
const images = join(cache, "images");
const repo = `localhost/pincer-prunetest-${process.pid}`;
let engine: DockerEngine;
let container: string | undefined;
let holder: ChildProcess | undefined;

/** An image folder with its image.json; `tag` is imported into the engine. */
function image(profile: ImageManifest["profile"], key: string, created: string, tag?: string): ImageManifest {
  const dir = join(images, `${profile}-${key}`);
  mkdirSync(join(dir, "rootfs"), { recursive: true });
  writeFileSync(join(dir, "rootfs", "file"), Buffer.alloc(64 * 1024));
  const m: ImageManifest = { profile, key, created, suite: "bookworm", mirror: "m", packages: [], addPackages: [], rootfs: join(dir, "rootfs"), dir };
  if (tag) {
    execFileSync("sh", ["-c", `tar -cf - -T /dev/null | podman import -q - ${tag}`], { stdio: "ignore" });
    m.container = { tag, engine: "Podman" };
  }
  writeFileSync(join(dir, "image.json"), JSON.stringify(m));
  return m;
}

async function tagExists(tag: string): Promise<boolean> {
  return engine.docker
    .getImage(tag)
    .inspect()
    .then(() => true)
    .catch(() => false);
}

beforeAll(async () => {
  engine = await openEngine();
  image("minimal", "old1", "2026-01-01T00:00:00Z", `${repo}:old1`);
  image("minimal", "cur", "2026-01-15T00:00:00Z");
  image("minimal", "old2", "2026-02-01T00:00:00Z");
  image("minimal", "new", "2026-03-01T00:00:00Z", `${repo}:new`);
  writeFileSync(join(images, "minimal.json"), JSON.stringify({ profile: "minimal", key: "cur" }));
  image("office", "busy", "2026-01-01T00:00:00Z", `${repo}:busy`);
  image("office", "building", "2026-01-02T00:00:00Z");
  image("office", "cur", "2026-01-03T00:00:00Z");
  writeFileSync(join(images, "office.json"), JSON.stringify({ profile: "office", key: "cur" }));
  mkdirSync(join(images, "apt-archives"));
  // A VM on old2's disk: a process with a file of the folder open.
  writeFileSync(join(images, "minimal-old2", "disk.qcow2"), "disk");
  holder = spawn("sleep", ["600"], { stdio: [openSync(join(images, "minimal-old2", "disk.qcow2"), "r"), "ignore", "ignore"] });
  // A build of office-building in progress: its lock, held by this (live) process.
  mkdirSync(join(images, "office-building", "lock"));
  writeFileSync(join(images, "office-building", "lock", "pid"), `${process.pid}\n`);
  container = (await engine.docker.createContainer({ Image: `${repo}:busy`, Cmd: ["/nothing"] })).id;
}, 120_000);

afterAll(async () => {
  holder?.kill("SIGKILL");
  if (container) await engine.docker.getContainer(container).remove({ force: true });
  for (const t of ["old1", "new", "busy"])
    await engine.docker
      .getImage(`${repo}:${t}`)
      .remove({ force: true })
      .catch(() => undefined);
  await engine.close();
  rmSync(cache, { recursive: true, force: true });
});

const outcomes = (entries: PruneEntry[]) => Object.fromEntries(entries.map((e) => [`${e.image.profile}-${e.image.key}`, e.outcome]));

test("a dry run names what would go and removes nothing", async () => {
  const r = await runPincer(["image", "prune", "--dry-run", "--cache-dir", cache]);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toMatch(/^to remove +minimal-new \(built 2026-03-01T00:00:00Z, 0 MB\): and localhost\/pincer-prunetest-\d+:new \(dry run\)$/m);
  expect(r.stdout).toMatch(/^kept +minimal-cur .*: the current minimal image$/m);
  expect(r.stdout).toMatch(/^would free 0 MB in 5 image\(s\); kept 2; skipped 0 in use$/m);
  for (const d of ["minimal-old1", "minimal-new", "office-busy"]) expect(existsSync(join(images, d, "image.json"))).toBe(true);
  expect(await tagExists(`${repo}:new`)).toBe(true);
});

test("each profile keeps its current image; older folders and tags go, images in use are skipped with the reason", async () => {
  const entries = await pruneImages({ cacheDir: cache, keep: 1, openEngine: () => openEngine() });
  expect(outcomes(entries)).toEqual({
    "minimal-new": "removed",
    "minimal-old2": "skipped",
    "minimal-cur": "kept",
    "minimal-old1": "removed",
    "office-cur": "kept",
    "office-building": "skipped",
    "office-busy": "skipped",
  });
  const reason = (k: string) => entries.find((e) => `${e.image.profile}-${e.image.key}` === k)!.reason;
  expect(reason("minimal-old2")).toBe(`process ${holder!.pid} has its files open (a VM on its disk?)`);
  expect(reason("office-building")).toBe("a build of it is running (its lock is held)");
  expect(reason("office-busy")).toMatch(/^a container uses localhost\/pincer-prunetest-\d+:busy \(.*\); remove the container first$/);
  for (const d of ["minimal-new", "minimal-old1"]) expect(existsSync(join(images, d))).toBe(false);
  for (const d of ["minimal-cur", "minimal-old2", "office-cur", "office-building", "office-busy", "apt-archives"])
    expect(existsSync(join(images, d))).toBe(true);
  expect(await tagExists(`${repo}:new`)).toBe(false);
  expect(await tagExists(`${repo}:old1`)).toBe(false);
  expect(await tagExists(`${repo}:busy`)).toBe(true);
  // The lock this run did not own is still held; the skipped images are whole.
  expect(existsSync(join(images, "office-building", "lock", "pid"))).toBe(true);
  expect(existsSync(join(images, "minimal-old2", "lock"))).toBe(false);

  // Once nothing uses them, they go too; --keep 2 keeps the newest beside the current one.
  holder!.kill("SIGKILL");
  await new Promise((r) => holder!.once("exit", r));
  await engine.docker.getContainer(container!).remove({ force: true });
  container = undefined;
  rmSync(join(images, "office-building", "lock"), { recursive: true });
  const again = await pruneImages({ cacheDir: cache, keep: 2, openEngine: () => openEngine() });
  expect(outcomes(again)).toEqual({ "minimal-old2": "kept", "minimal-cur": "kept", "office-cur": "kept", "office-building": "kept", "office-busy": "removed" });
  expect(await tagExists(`${repo}:busy`)).toBe(false);
});

test("--keep below 1 is refused before anything is touched", async () => {
  const r = await runPincer(["image", "prune", "--keep", "0", "--cache-dir", cache]);
  expect(r.code).toBe(1);
  expect(r.stderr).toMatch(/--keep <n>.*"0": give a whole number of 1 or more/);
  await expect(pruneImages({ cacheDir: cache, keep: 0 })).rejects.toThrow(/keep at least 1/);
});
