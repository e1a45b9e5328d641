import { describe, expect, test } from "vitest";
import { sleep } from "@pincer/shared";
import { createBenchmark, createEnvironment, createMemoryEnv, createTask, evaluator } from "@pincer/controller";

// Evaluation after a step that does not end the episode never waits for the machine: an evaluator's
// wait applies to the round that judges the end, and a step's round is cut at its limit.

describe("a step's evaluation round", () => {
  test("a waiting evaluator looks once after an intermediate step and waits in the round that judges the end", async () => {
    const rounds: boolean[] = [];
    // As check_window_exists: waits (here for what the last step "started") only when the round judges the end.
    const appears = evaluator({
      name: "appears_late",
      description: "d",
      local: true,
      run: async (_p, { episode, signal }) => {
        const ending = episode?.ending?.() ?? true;
        rounds.push(ending);
        if (!ending) return false;
        await sleep(50, signal);
        return true;
      },
    });
    const bench = createBenchmark({
      environments: [createEnvironment({ name: "vm", env: createMemoryEnv() })],
      tasks: [createTask({ id: "t", description: "d", evaluator: appears })],
    });
    await bench.start("t");
    expect((await bench.step({ tool: "root__wait", args: { seconds: 0 } })).reason).toBeNull();
    expect((await bench.step({ tool: "root__wait", args: { seconds: 0 } })).reason).toBeNull();
    expect(await bench.step({ tool: "root__complete" })).toMatchObject({ reason: "success", terminated: true });
    expect(rounds).toEqual([false, false, true]);
  });

  test("a round after a step that outlasts its limit is cut (even when the evaluator ignores the signal); later steps skip theirs; the end waits", async () => {
    const rounds: Array<{ ending: boolean; step: number }> = [];
    let release: (() => void) | undefined;
    // An evaluator that blocks until released and does not heed the signal: only the benchmark's bound ends the step.
    const stubborn = evaluator({
      name: "stubborn",
      description: "d",
      local: true,
      run: async (_p, { episode }) => {
        const ending = episode?.ending?.() ?? true;
        rounds.push({ ending, step: episode?.step ?? -1 });
        if (ending) return true;
        await new Promise<void>((resolve) => {
          release = resolve;
        });
        return true;
      },
    });
    const bench = createBenchmark({
      environments: [createEnvironment({ name: "vm", env: createMemoryEnv() })],
      tasks: [createTask({ id: "t", description: "d", evaluator: stubborn })],
      stepEvaluationLimitMs: 200,
    });
    await bench.start("t");
    const first = await bench.step({ tool: "root__wait", args: { seconds: 0 } });
    // Cut: the round says nothing (no check recorded), and the episode goes on.
    expect(first).toMatchObject({ reason: null, terminated: false });
    expect(first.evaluation.nodes).toEqual({ stubborn: "pending" });
    // The cut round finishes later with a pass: it must not count, nor end the episode.
    release?.();
    await sleep(20);
    const second = await bench.step({ tool: "root__wait", args: { seconds: 0 } });
    expect(second).toMatchObject({ reason: null, terminated: false });
    expect(rounds).toEqual([{ ending: false, step: 1 }]);
    expect(await bench.step({ tool: "root__complete" })).toMatchObject({ reason: "success", terminated: true });
    expect(rounds).toEqual([
      { ending: false, step: 1 },
      { ending: true, step: 3 },
    ]);
    expect(bench.metrics()).toMatchObject({ success: true, score: 1 });
  });
});
