import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { evaluator } from "@pincer/controller";
import { ScriptedAgent } from "@pincer/controller/agents";
import { createRegistries, defineTask, type DatasetTask } from "@pincer/controller/datasets";
import { openPool, remoteProvider, type MachineSpec } from "@pincer/controller/machines";
import { runTasks, type Summary } from "@pincer/controller/runner";
import { spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";
import { moduleTask } from "../fixtures/tasks.js";

let daemon: RunningDaemon;
let work: string;

beforeAll(async () => {
  daemon = await spawnDaemon();
  work = mkdtempSync(join(tmpdir(), "pincer-providers-"));
});
afterAll(async () => {
  await daemon?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

const rc = (command: string) => ({ tool: "desktop__run_command", args: { command } });

/**
 * Two tasks on one slot: the first leaves a file behind and passes when it is there; the second
 * passes only on a machine without it.
 */
function leftoverTasks(dir: string, marker: string): DatasetTask[] {
  const exists = evaluator({ name: "left", description: "The marker exists.", run: (_p, { env, signal }) => env.files.exists(marker, { signal }) });
  const clean = evaluator({
    name: "clean",
    description: "The marker is absent.",
    run: async (_p, { env, signal }) => !(await env.files.exists(marker, { signal })),
  });
  return [
    moduleTask(defineTask({ id: "a-leaves", instruction: `Write ${marker}.`, build: () => ({ evaluator: exists }) }), dir, "t"),
    moduleTask(defineTask({ id: "b-expects-clean", instruction: "Do nothing.", build: () => ({ evaluator: clean }) }), dir, "t"),
  ];
}

async function runOn(name: string, spec: Omit<MachineSpec, "address">, attempts = 1) {
  const dir = join(work, name);
  const marker = join(dir, "left-behind.txt");
  const provider = remoteProvider(new Map([["desktop", [{ address: daemon.address, ...spec }]]]));
  const pool = await openPool(provider, ["desktop"], 1);
  try {
    const { runDir, report } = await runTasks({
      tasks: leftoverTasks(dir, marker),
      registries: createRegistries(),
      pool,
      agentFor: (t) => new ScriptedAgent(t.id === "a-leaves" ? [rc(`mkdir -p ${dir} && echo x > ${marker}`)] : []),
      outDir: join(dir, "results"),
      runId: "r",
      screenshots: false,
      attempts,
    });
    const summary = (id: string, attempt = 1) => JSON.parse(readFileSync(join(runDir, "t", id, `attempt-${attempt}`, "summary.json"), "utf8")) as Summary;
    return { dir, report, summary, manifest: JSON.parse(readFileSync(join(runDir, "manifest.json"), "utf8")) };
  } finally {
    await pool.close();
  }
}

describe("the remote provider's reset", () => {
  test("a machine's reset command runs through its daemon before every attempt and removes what a task left", async () => {
    const log = join(work, "resets.log");
    const reset = `echo reset >> ${log} && rm -f ${join(work, "with-reset", "left-behind.txt")}`;
    const { report, summary, manifest } = await runOn("with-reset", { reset });
    expect(report).toMatchObject({ tasks: 2, passed: 2 });
    // Remote machines are never assumed clean: the first task is reset too.
    expect(readFileSync(log, "utf8")).toBe("reset\nreset\n");
    for (const id of ["a-leaves", "b-expects-clean"]) {
      const r = summary(id).results.machine_reset.desktop!;
      expect(r).toMatchObject({ provider: "remote", method: "command" });
      expect(r.ms).toBeGreaterThan(0);
    }
    expect(manifest.provider).toEqual({
      name: "remote",
      config: { machines: { desktop: [{ address: daemon.address, token_file: null, tls: null, reset }] } },
    });
  });

  test("without a reset command the next task sees what the last one left, and the summary says so", async () => {
    const { report, summary } = await runOn("no-reset", {});
    expect(summary("a-leaves").results).toMatchObject({ state: "passed", machine_reset: { desktop: { provider: "remote", method: "none" } } });
    // Nothing runs, but the time is measured around an await: a collection in between on a loaded
    // machine makes it 1 ms or more, so only its order of magnitude is checked.
    expect(summary("a-leaves").results.machine_reset.desktop!.ms).toBeLessThan(1000);
    expect(summary("b-expects-clean").results).toMatchObject({ state: "failed", machine_reset: { desktop: { method: "none" } } });
    expect(report).toMatchObject({ tasks: 2, passed: 1 });
  });

  test("a reset command that fails is the attempt's env_error (the machine failed, not the task), with its output, retried by attempts", async () => {
    const { summary, report } = await runOn("failing-reset", { reset: "echo snapshot missing >&2; exit 3" }, 2);
    for (const attempt of [1, 2]) {
      expect(summary("a-leaves", attempt).results).toMatchObject({ state: "env_error", steps: 0 });
      expect(summary("a-leaves", attempt).results.error).toMatch(/^resetting the machines: the reset command of .* exited with 3: snapshot missing/);
    }
    expect(report).toMatchObject({ tasks: 2, passed: 0, errorsByState: { env_error: 2 } });
  });

  test("a reset command that fails silently is named, with what it printed on stdout or that it printed nothing", async () => {
    const silent = await runOn("silent-reset", { reset: "exit 7" }, 1);
    expect(silent.summary("a-leaves").results.error).toMatch(/the reset command of \S+ \("exit 7"\) exited with 7: it printed nothing$/);
    const stdout = await runOn("stdout-reset", { reset: "echo no snapshot named clean; exit 7" }, 1);
    expect(stdout.summary("a-leaves").results.error).toMatch(/exited with 7: no snapshot named clean$/);
  });
});
