import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";

// --file-root against a local process that races the daemon: while uploads, downloads, listings
// and removals run under root/a, it keeps swapping `a` for a symlink that points out of the root,
// or moving `a` out of the root and leaving a symlink in its place. Nothing may be written, read,
// listed or removed outside the root.

let base: string;
let root: string;
let outside: string;
let daemon: RunningDaemon;

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), "pincer-race-"));
  root = join(base, "root");
  outside = join(base, "outside");
  mkdirSync(join(root, "a"), { recursive: true });
  mkdirSync(outside);
  // Bait outside the root: a download or listing that escapes would see it; a removal would delete it.
  writeFileSync(join(outside, "secret.txt"), "outside the root");
  daemon = await spawnDaemon({ args: ["--file-root", root] });
  await daemon.env.waitUntilReady({ timeoutMs: 20_000 });
});

afterAll(async () => {
  await daemon?.close();
  rmSync(base, { recursive: true, force: true });
});

/**
 * A local process that swaps root/a as fast as it can. `mode` "swap": a → a.real, symlink a →
 * outside, and back. "moveOut": a → outside/moved, symlink a → outside/moved, and back.
 */
function racer(mode: "swap" | "moveOut"): ChildProcess {
  const script = `
    const fs = require("fs");
    const [a, real, link] = process.argv.slice(1);
    for (;;) {
      try { fs.renameSync(a, real); fs.symlinkSync(link, a); fs.unlinkSync(a); fs.renameSync(real, a); } catch {}
    }`;
  const real = mode === "swap" ? join(root, "a.real") : join(outside, "moved");
  const link = mode === "swap" ? outside : join(outside, "moved");
  return spawn(process.execPath, ["-e", script, join(root, "a"), real, link], { stdio: "ignore" });
}

/** Files anywhere under `dir`, as paths relative to it. */
function filesUnder(dir: string, prefix = ""): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(join(dir, e.name), `${prefix}${e.name}/`) : [`${prefix}${e.name}`],
  );
}

/** Runs uploads, downloads, listings and removals under root/a while `mode` races, for `ms`. */
async function underRace(mode: "swap" | "moveOut", ms: number): Promise<{ uploads: number; committed: number; escapes: string[] }> {
  // Start from a clean outside: only the bait.
  for (const e of readdirSync(outside)) if (e !== "secret.txt") rmSync(join(outside, e), { recursive: true, force: true });
  const data = Buffer.alloc(2 * 1024 * 1024, 7);
  const escapes: string[] = [];
  let uploads = 0;
  let committed = 0;
  const child = racer(mode);
  try {
    for (const until = Date.now() + ms; Date.now() < until; ) {
      uploads += 1;
      const name = `u${uploads}.bin`;
      const ok = await daemon.env.files.upload(data, join(root, "a", name), { createParents: false }).then(
        () => true,
        () => false,
      );
      if (ok) committed += 1;
      const listing = await daemon.env.files.list(join(root, "a")).catch(() => undefined);
      if (listing?.entries.some((e) => e.name === "secret.txt")) escapes.push("list saw secret.txt");
      const read = await daemon.env.files.read(join(root, "a", "secret.txt")).catch(() => undefined);
      if (read !== undefined) escapes.push(`read secret.txt: ${read}`);
      await daemon.env.files.remove(join(root, "a", "secret.txt"), { missingOk: true }).catch(() => undefined);
    }
  } finally {
    child.kill("SIGKILL");
    await new Promise((r) => child.once("exit", r));
  }
  // Put `a` back where it belongs, whatever state the racer was killed in.
  if (lstatSync(join(root, "a"), { throwIfNoEntry: false })?.isSymbolicLink()) unlinkSync(join(root, "a"));
  for (const leftover of [join(root, "a.real"), join(outside, "moved")]) {
    if (existsSync(leftover)) renameSync(leftover, join(root, "a"));
  }
  const outsideFiles = filesUnder(outside).filter((f) => f !== "secret.txt");
  escapes.push(...outsideFiles.map((f) => `written outside: ${f}`));
  if (!filesUnder(outside).includes("secret.txt")) {
    escapes.push("secret.txt outside the root was removed");
    writeFileSync(join(outside, "secret.txt"), "outside the root");
  }
  return { uploads, committed, escapes };
}

test("a local process swapping a directory for a symlink never gets a call outside the root", async () => {
  const r = await underRace("swap", 6_000);
  console.log(`swap race: ${r.uploads} uploads, ${r.committed} committed, ${r.escapes.length} escapes`);
  expect(r.uploads).toBeGreaterThan(10);
  expect(r.escapes).toEqual([]);
  // A symlink replaced between the walk's lstat and its readlink is looked at again, not an INTERNAL.
  expect(daemon.log()).not.toMatch(/"internal error"/);
});

test("a local process moving a directory out of the root never gets a call outside the root", async () => {
  const r = await underRace("moveOut", 6_000);
  console.log(`move-out race: ${r.uploads} uploads, ${r.committed} committed, ${r.escapes.length} escapes`);
  expect(r.uploads).toBeGreaterThan(10);
  expect(r.escapes).toEqual([]);
  expect(daemon.log()).not.toMatch(/"internal error"/);
});

test("symlinks inside the root still work, and one pointing out of it is refused", async () => {
  mkdirSync(join(root, "real"), { recursive: true });
  symlinkSync(join(root, "real"), join(root, "inside-link"));
  symlinkSync("../outside", join(root, "escape-link"));
  await daemon.env.files.write(join(root, "inside-link", "x.txt"), "via a link");
  expect(await daemon.env.files.read(join(root, "real", "x.txt"))).toBe("via a link");
  await expect(daemon.env.files.read(join(root, "escape-link", "secret.txt"))).rejects.toThrow(/outside/);
  await expect(daemon.env.files.write(join(root, "escape-link", "y.txt"), "no")).rejects.toThrow(/outside/);
  await expect(daemon.env.files.list(join(root, "escape-link"))).rejects.toThrow(/outside/);
  await expect(daemon.env.files.read(join(root, "..", "outside", "secret.txt"))).rejects.toThrow(/outside/);
});
