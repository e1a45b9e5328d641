import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { createRegistries, loadDataset } from "@pincer/controller/datasets";
import type { TaskFunctionContext } from "../../packages/controller/src/datasets/taskFunctions.js";
import { buildBenchmark } from "../../packages/controller/src/runner/taskBuilder.js";
import { createEvaluationRegistry } from "../../packages/controller/src/datasets/evaluationFunctions/index.js";
import { spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";
import { startXvfb, type XServer } from "../fixtures/xvfb.js";

// check_window_exists with `wait`: a window that a task's last step started appears a moment after
// the step; a check without a wait looked once and failed the task (the demo's open-clock, on a
// loaded machine).

const helper = createEvaluationRegistry().get("check_window_exists")!;
let xs: XServer;
let daemon: RunningDaemon;
let ctx: TaskFunctionContext;

beforeAll(async () => {
  xs = await startXvfb({ width: 800, height: 600 });
  daemon = await spawnDaemon({ display: xs.display });
  ctx = { env: daemon.env, envs: { main: daemon.env }, taskDir: "/", signal: new AbortController().signal };
});

afterAll(async () => {
  await daemon?.close();
  await xs?.close();
});

test("with wait, a window that appears late is found; without, the check looks once and says what is open", async () => {
  const title = `late-window-${process.pid}`;
  // 3 s: the check without a wait has long looked by then, even on a loaded machine.
  const late = () => daemon.env.process.start(["sh", "-c", `sleep 3; exec xterm -T ${title}`]);
  const first = late();
  first.wait().catch(() => undefined);
  const once = await helper.run(helper.args.parse({ title }), ctx);
  expect(once.score).toBe(0);
  expect(once.reason).toMatch(new RegExp(`^no window titled like "${title}"; open windows: `));
  const waited = await helper.run(helper.args.parse({ title, wait: 20 }), ctx);
  expect(waited).toMatchObject({ score: 1, reason: `window "${title}" (XTerm) is open` });
  first.kill();
  // A window that never comes: the wait ends at its deadline, and the reason says so.
  const never = await helper.run(helper.args.parse({ class: "NoSuchClass", wait: 0.5 }), ctx);
  expect(never).toMatchObject({ score: 0 });
  expect(never.reason).toMatch(/^no window of class NoSuchClass within 0.5 s; open windows: /);
  expect(() => helper.args.parse({ title, wait: 61 })).toThrow();
}, 60_000);

test("a JSON task's rounds after its steps look once; only the round that judges the end waits", async () => {
  const dir = mkdtempSync(join(tmpdir(), "pincer-window-wait-"));
  try {
    mkdirSync(join(dir, "t", "w"), { recursive: true });
    const evaluation = { func: "check_window_exists", arguments: { class: "NoSuchClass", wait: 8 } };
    writeFileSync(join(dir, "t", "w", "w.json"), JSON.stringify({ id: "w", instruction: "Open it.", config: [], evaluation }));
    const registries = createRegistries();
    const { tasks } = await loadDataset(dir, registries);
    const input = { task: tasks[0]!, envs: { desktop: daemon.env }, registries, agent: {}, maxSteps: 5, timeLimitMs: 120_000 };
    const { bench } = buildBenchmark(input, join(dir, "attempt"));
    await bench.start("w");
    // Before, every round waited its 8 s: a model agent waited after every step.
    const t0 = performance.now();
    const step = await bench.step({ tool: "desktop__run_command", args: { command: "true" } });
    expect(step.ok).toBe(true);
    expect(performance.now() - t0).toBeLessThan(6_000);
    expect(step.evaluation.reason).toMatch(/^no window of class NoSuchClass; open windows: /);
    const t1 = performance.now();
    const final = await bench.evaluate();
    expect(performance.now() - t1).toBeGreaterThanOrEqual(7_900);
    expect(final.reason).toMatch(/^no window of class NoSuchClass within 8 s; /);
    await bench.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);
