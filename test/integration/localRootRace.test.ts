import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { readLocalFile, writeLocalFile } from "../../packages/controller/src/env/localRoot.js";

// The controller's confinement is checked at the open, not only before it: while another process
// swaps a name in the folder between a regular file (or directory) and a symlink to a stand-in
// for a host file, thousands of confined writes and reads run. None writes through a symlink, none
// reads the stand-in; every failure is a refusal.

const UNTOUCHED = "stand-in for a host file\n";
let base: string;
let root: string;
let host: string;
let target: string;

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), "pincer-local-race-"));
  root = join(base, "root");
  host = join(base, "host");
  mkdirSync(root);
  mkdirSync(host);
  target = join(host, "target.txt");
  writeFileSync(target, UNTOUCHED);
});

afterAll(() => {
  if (base) rmSync(base, { recursive: true, force: true });
});

/** A process that, until killed, puts a symlink to `to` at `at` and takes it away again, atomically (rename). */
function swapper(at: string, to: string, real: "file" | "dir") {
  const script = `
import os, shutil, sys
at, to, real = sys.argv[1], sys.argv[2], sys.argv[3]
tmp, aside = at + ".swap", at + ".aside"
while True:
    if real == "file":
        try:
            os.symlink(to, tmp); os.replace(tmp, at)
            open(tmp, "w").close(); os.replace(tmp, at)
        except OSError:
            pass
        continue
    # A directory: moved aside, a symlink put in its place, then the directory back.
    try: os.rename(at, aside)
    except OSError: pass
    try: os.symlink(to, at)
    except OSError:
        shutil.rmtree(at, ignore_errors=True); continue
    os.unlink(at)
    try: os.rename(aside, at)
    except OSError: shutil.rmtree(aside, ignore_errors=True)
`;
  return spawn("python3", ["-c", script, at, to, real], { stdio: "ignore" });
}

const REFUSED = /symlink|symbolic link|outside|does not exist|no such file|not a regular file|not a directory|parent|moved or replaced/;

async function race(what: string, swap: ReturnType<typeof swapper>, attempt: () => Promise<unknown>): Promise<{ ok: number; refused: number }> {
  const counts = { ok: 0, refused: 0 };
  try {
    const deadline = Date.now() + 2500;
    while (Date.now() < deadline) {
      try {
        await attempt();
        counts.ok++;
      } catch (err) {
        if (!REFUSED.test((err as Error).message)) console.log(`${what}: ${(err as Error).message}`);
        expect((err as Error).message, what).toMatch(REFUSED);
        counts.refused++;
      }
    }
  } finally {
    swap.kill();
  }
  console.log(`${what}: ${counts.ok} done, ${counts.refused} refused`);
  return counts;
}

test("writes never go through a symlink swapped in where the file goes or on its way", async () => {
  const opts = { field: "stdout", what: "the attempt's cache folder" };
  const file = await race("final name swapped", swapper(join(root, "out.txt"), target, "file"), () => writeLocalFile(root, "out.txt", "PWNED\n", opts));
  const dir = await race("directory swapped", swapper(join(root, "sub"), host, "dir"), () => writeLocalFile(root, "sub/target.txt", "PWNED\n", opts));
  expect(file.ok + file.refused).toBeGreaterThan(100);
  expect(dir.ok + dir.refused).toBeGreaterThan(100);
  expect(readFileSync(target, "utf8")).toBe(UNTOUCHED);
  expect(readdirSync(host)).toEqual(["target.txt"]);
});

test("reads never return the file a swapped-in symlink points to", async () => {
  const opts = { field: "local_path", what: "the task's folder" };
  writeFileSync(join(root, "in.txt"), "inside\n");
  const seen = new Set<string>();
  const r = await race("final name swapped", swapper(join(root, "in.txt"), target, "file"), async () =>
    seen.add((await readLocalFile(root, "in.txt", opts)).toString()),
  );
  expect(r.ok + r.refused).toBeGreaterThan(100);
  expect([...seen].every((t) => t === "" || t === "inside\n")).toBe(true);
  expect(seen.has(UNTOUCHED)).toBe(false);
  expect(statSync(target).size).toBe(UNTOUCHED.length);
  expect(existsSync(join(host, "sub"))).toBe(false);
});
