import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { expect, test } from "vitest";
import { alive, descendants } from "../support/processTree.js";

// `pincer run` killed with SIGKILL (no handler runs) must not leave its local machines behind:
// each daemon holds a pipe from the runner and stops when it closes, taking its Xvfb along.

const ROOT = resolve(import.meta.dirname, "../..");
const CLI = resolve(ROOT, "packages/controller/src/cli/main.ts");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test("SIGKILL of pincer run leaves no Xvfb or daemon of it running", async () => {
  const out = mkdtempSync(join(tmpdir(), "pincer-killed-"));
  const child = spawn(process.execPath, ["--conditions=@pincer/source", "--import", "tsx", CLI, "run", "examples", "--concurrency", "2", "--out", out], {
    cwd: ROOT,
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  try {
    // Wait until the machines run (two slots: daemons and their Xvfb) and a task is under way.
    let machines: Array<{ pid: number; cmd: string }> = [];
    for (const until = Date.now() + 60_000; Date.now() < until; await sleep(200)) {
      machines = descendants(child.pid!).filter((p) => /Xvfb|pincer-daemon|daemon\/dist\/main\.js/.test(p.cmd));
      if (machines.filter((p) => p.cmd.startsWith("Xvfb")).length >= 2 && /passed|failed/.test(stderr)) break;
    }
    expect(machines.filter((p) => p.cmd.startsWith("Xvfb")).length, stderr).toBeGreaterThanOrEqual(2);
    const everything = descendants(child.pid!);
    child.kill("SIGKILL");
    await new Promise((r) => child.once("exit", r));
    for (const until = Date.now() + 15_000; everything.some((p) => alive(p.pid)) && Date.now() < until; ) await sleep(100);
    const left = everything.filter((p) => alive(p.pid));
    for (const p of left) process.kill(p.pid, "SIGKILL"); // do not leave them to the next test
    expect(left.map((p) => p.cmd)).toEqual([]);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}, 120_000);
