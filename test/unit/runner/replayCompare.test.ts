import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { AgentObservation } from "@pincer/controller/agents";
import { recordedTurns, ReplayAgent, type Summary, type TrajectoryLine } from "@pincer/controller/runner";
import { compareTask, type AttemptRecordOnDisk } from "../../../packages/controller/src/replay/stepDifferences.js";
import type { StepLine } from "../../../packages/controller/src/runFolder/schemas.js";

let work: string;

/** A 320x200 JPEG screenshot, grey, with a white box of `box` pixels square in its corner. */
async function screenshot(dir: string, name: string, box: number): Promise<string> {
  mkdirSync(join(dir, "screenshots"), { recursive: true });
  const file = join("screenshots", name);
  const base = sharp({ create: { width: 320, height: 200, channels: 3, background: { r: 90, g: 90, b: 90 } } });
  const overlay =
    box > 0 ? [{ input: { create: { width: box, height: box, channels: 3 as const, background: { r: 255, g: 255, b: 255 } } }, left: 0, top: 0 }] : [];
  await base.composite(overlay).jpeg({ quality: 70 }).toFile(join(dir, file));
  return file;
}

const summary = (score: number, steps: number) =>
  ({ id: "t", results: { score, state: score === 1 ? "passed" : "failed", steps, end_reason: "agent_complete" } }) as unknown as Summary;

function attempt(name: string, trajectory: TrajectoryLine[], score = 1): AttemptRecordOnDisk {
  const dir = join(work, name);
  return { attempt: 1, summary: summary(score, trajectory.filter((l) => l.step).length), trajectory, dir, relDir: "t/x/attempt-1" };
}

const step = (n: number, result: unknown, screenshots: Record<string, string> = {}): StepLine => ({
  turn: n,
  step: n,
  tool: "desktop__run_command",
  args: { command: `step ${n}` },
  ok: true,
  result,
  evaluation: { nodes: { goal: "pending" }, success: false },
  reason: null,
  screenshots,
});

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "pincer-replay-compare-"));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("comparing a replay with its original", () => {
  test("process ids and the attempt's own folder are not differences; another output is, at its step", async () => {
    const o = attempt("o1", []);
    const r = attempt("r1", []);
    o.trajectory.push(step(1, { pid: 41, path: join(o.dir, "token.txt") }), step(2, { stdout: "seed\n" }), step(3, { stdout: "x" }));
    r.trajectory.push(step(1, { pid: 977, path: join(r.dir, "token.txt") }), step(2, { stdout: "" }), step(3, { stdout: "y" }));
    const c = await compareTask("t/x", o, r, { waits: "recorded", changed: false });
    expect(c.outcome).toBe("same");
    expect(c.first_divergence).toMatchObject({ step: 2, differences: [{ kind: "result", original: { stdout: "seed\n" }, replay: { stdout: "" } }] });
    expect(c.diverging_steps.map((s) => s.step)).toEqual([2, 3]);
  });

  test("a screen differs beyond the threshold; JPEG noise and a small change within it do not", async () => {
    const o = attempt("o2", []);
    const r = attempt("r2", []);
    o.trajectory.push(step(1, {}, { desktop: await screenshot(o.dir, "a.jpg", 0) }), step(2, {}, { desktop: await screenshot(o.dir, "b.jpg", 0) }));
    // Step 1: the same screen saved again at another quality. Step 2: a 60x60 box, 5.6% of the pixels.
    const again = join("screenshots", "a.jpg");
    await screenshot(r.dir, "tmp.jpg", 0);
    await sharp(join(r.dir, "screenshots", "tmp.jpg"))
      .jpeg({ quality: 40 })
      .toFile(join(r.dir, again));
    r.trajectory.push(step(1, {}, { desktop: again }), step(2, {}, { desktop: await screenshot(r.dir, "b.jpg", 60) }));
    const strict = await compareTask("t/x", o, r, { waits: "recorded", changed: false }, { screenThreshold: 0.01 });
    expect(strict.first_divergence).toMatchObject({ step: 2, differences: [{ kind: "screen", env: "desktop" }] });
    expect(strict.first_divergence!.differences[0]!.fraction).toBeCloseTo(3600 / 64000, 2);
    const loose = await compareTask("t/x", o, r, { waits: "recorded", changed: false }, { screenThreshold: 0.1 });
    expect(loose.first_divergence).toBeNull();
  });

  test("a replay that ends early misses the original's steps, and a different score is a different outcome", async () => {
    const o = attempt("o3", [step(1, {}), step(2, {})], 1);
    const r = attempt("r3", [step(1, {})], 0);
    const c = await compareTask("t/x", o, r, { waits: "model_ms", changed: true });
    expect(c).toMatchObject({ outcome: "different", outcome_differences: ["score 1 → 0", "state passed → failed"], waits: "model_ms", task_changed: true });
    expect(c.first_divergence).toMatchObject({ step: 2, differences: [{ kind: "missing" }] });
  });
});

describe("the replay agent", () => {
  const lines: TrajectoryLine[] = [
    // Turn 2 acted 250 ms after turn 1's step (and its evaluation) ended; turn 3 at once after turn 2's.
    { ...step(1, {}), at_ms: 10, duration_ms: 20, model_ms: 5 },
    { ...step(2, {}), turn: 2, at_ms: 280, duration_ms: 10, model_ms: 5 },
    { ...step(3, {}), turn: 2, at_ms: 290, duration_ms: 10 },
    { turn: 3, done: true, at_ms: 300 },
  ];

  test("plays the recorded turns, their calls in order, then says done", async () => {
    const turns = recordedTurns(lines);
    expect(turns.map((t) => t.calls.length)).toEqual([1, 2, 0]);
    const agent = new ReplayAgent(turns);
    const signal = new AbortController().signal;
    agent.start({ taskId: "t", instruction: "", tools: [], maxSteps: 10, signal });
    const obs = { step: 0, environments: {}, screenshots: {}, settle: {}, lastResults: [], signal };
    expect((await agent.act(obs)).calls).toEqual([{ tool: "desktop__run_command", args: { command: "step 1" } }]);
    // Turn 1's step took 100 ms here: turn 2 comes 250 ms after it ended, 350 ms after turn 1 was handed over.
    const t0 = performance.now();
    const lastResults = [{ ok: true, step: 1, tool: "desktop__run_command", durationMs: 100 }] as unknown as AgentObservation["lastResults"];
    const second = await agent.act({ ...obs, lastResults });
    expect(performance.now() - t0).toBeGreaterThanOrEqual(340);
    expect(second.calls.map((c) => ("tool" in c ? c.tool : ""))).toEqual(["desktop__run_command", "desktop__run_command"]);
    expect(await agent.act(obs)).toMatchObject({ calls: [], done: true });
  });

  test("a person's actions (human lines) are not the agent's: a replay leaves them out, even before the first turn", () => {
    const lines = [
      { turn: 0, human: true, tool: "desktop__click", args: { x: 1, y: 2 }, ok: true, duration_ms: 10, at_ms: 5 },
      { turn: 1, step: 1, tool: "desktop__run_command", args: { command: "step 1" }, ok: true, at_ms: 100, duration_ms: 10 },
      { turn: 1, human: true, tool: "desktop__type", args: { text: "x" }, ok: true, duration_ms: 10, at_ms: 200 },
      { turn: 2, done: true, at_ms: 300 },
    ] as TrajectoryLine[];
    const turns = recordedTurns(lines);
    expect(turns.map((t) => [t.turn, t.calls.map((c) => ("tool" in c ? c.tool : ""))])).toEqual([
      [1, ["desktop__run_command"]],
      [2, []],
    ]);
  });

  test("a turn where the recorded agent failed fails again", async () => {
    const agent = new ReplayAgent(recordedTurns([{ turn: 1, agent_error: "agent: rate limited", at_ms: 0 }]));
    const signal = new AbortController().signal;
    agent.start({ taskId: "t", instruction: "", tools: [], maxSteps: 10, signal });
    await expect(agent.act({ step: 0, environments: {}, screenshots: {}, settle: {}, lastResults: [], signal })).rejects.toThrow(
      /the recorded attempt's agent failed at this turn: agent: rate limited/,
    );
  });
});
