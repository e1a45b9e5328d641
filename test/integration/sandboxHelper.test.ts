import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { expect, test } from "vitest";
import { prepareSandbox, sandboxSupport } from "../../packages/controller/src/machines/sandbox.js";
import { alive } from "../fixtures/processes.js";

// pincer-sandbox dies with the runner (SIGKILL as its parent-death signal), and its sandbox with it.
// Two moments escaped that: the sandbox's first process between its fork and setting its own
// parent-death signal, and after it takes the sandbox's ids (which clears that signal). A runner
// killed then left a process waiting forever on a pipe (seen in a clean-clone run of
// test/e2e/runnerKilled.test.ts) or a whole sandbox running. PINCER_SANDBOX_TEST_DELAY_MS holds the
// first process at both moments, so the helper can be killed there on purpose.

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const DELAY_MS = 1500;

/** Live processes whose command line contains `mark`. */
function processesWith(mark: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ");
      if (cmd.includes(mark) && alive(Number(pid))) found.push(`${pid} ${cmd.slice(0, 200)}`);
    } catch {
      // gone while reading
    }
  }
  return found;
}

/** Starts the helper with a command of its own (`sleep` for a minute, marked), and kills it (SIGKILL) once `when` resolves. */
async function killHelper(when: (helper: ReturnType<typeof spawn>, state: string) => Promise<void>): Promise<string[]> {
  const marker = `61.${process.pid}${Date.now() % 1000}`;
  const box = prepareSandbox(["/bin/sh", "-c", `exec sleep ${marker}`], "0".repeat(64));
  const [cmd, ...args] = box.argv;
  const state = args[args.indexOf("--state") + 1]!;
  const helper = spawn(cmd!, args, { stdio: ["ignore", "ignore", "pipe", "pipe"], env: { ...process.env, PINCER_SANDBOX_TEST_DELAY_MS: String(DELAY_MS) } });
  try {
    await when(helper, state);
    helper.kill("SIGKILL");
    await new Promise((r) => (helper.exitCode !== null || helper.signalCode !== null ? r(null) : helper.once("exit", r)));
    // Past the delay, with time to act on it.
    for (const end = Date.now() + DELAY_MS + 4_000; Date.now() < end; await sleep(100)) {
      if (processesWith(state).length === 0 && processesWith(marker).length === 0) return [];
    }
    return [...processesWith(state), ...processesWith(marker)];
  } finally {
    for (const line of [...processesWith(state), ...processesWith(marker)]) process.kill(Number(line.split(" ")[0]), "SIGKILL");
    box.release();
  }
}

test.runIf(sandboxSupport().mode === "overlay")("a helper killed right after it forks the sandbox's first process leaves nothing running", async () => {
  const left = await killHelper(async (helper) => {
    // The helper's child that stays (the one for the uid mapping lives a few milliseconds) is the
    // sandbox's first process, held by the delay right after the fork.
    const seen = new Map<string, number>();
    for (const end = Date.now() + 10_000; Date.now() < end; await sleep(20)) {
      let children: string[] = [];
      try {
        children = readFileSync(`/proc/${helper.pid}/task/${helper.pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean);
      } catch {
        break;
      }
      for (const c of children) if (!seen.has(c)) seen.set(c, Date.now());
      if (children.some((c) => Date.now() - seen.get(c)! >= 300)) return;
    }
    throw new Error(`the helper ${helper.pid} never forked the sandbox's first process`);
  });
  expect(left).toEqual([]);
});

test.runIf(sandboxSupport().mode === "overlay")("a helper killed once the sandbox has its ids, before it runs bubblewrap, leaves nothing running", async () => {
  const left = await killHelper(async (helper) => {
    // The helper prints the first process's pid after letting it take the ids.
    await new Promise<void>((resolve, reject) => {
      (helper.stdio[3] as NodeJS.ReadableStream).once("data", () => resolve());
      helper.once("exit", (code) => reject(new Error(`the helper exited (${code}) before the sandbox ran`)));
    });
  });
  expect(left).toEqual([]);
});
