// Two machines, one task whose evaluator graph needs a click on each.
// Run: node --import tsx examples/readme-benchmark.ts (starts two local machines; needs Xvfb)
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { action, createBenchmark, createEnvironment, createGraphEvaluator, createTask, evaluator, type Env } from "@pincer/controller";
import { startLocalMachine, type LocalMachine } from "@pincer/controller/machines";

const click = action({
  name: "click",
  description: "Click at a point of the screen, in pixels.",
  params: z.object({ x: z.number().int().describe("pixels from the left"), y: z.number().int().describe("pixels from the top") }),
  run: ({ x, y }, { env, signal }) => env.mouse.click({ at: { x, y }, signal }),
});
const press = action({
  name: "press",
  description: "Press a key chord such as ctrl+s.",
  params: z.object({ keys: z.string().describe('e.g. "ctrl+s"') }),
  run: ({ keys }, { env, signal }) => env.keyboard.press(keys, { signal }),
});
const inBox = evaluator({
  name: "pointer_in_box",
  description: "Is the pointer inside the 200x150 box at (100, 100)?",
  run: async (_params, { env, signal }) => {
    const p = await env.mouse.position({ signal });
    return p.x >= 100 && p.x < 300 && p.y >= 100 && p.y < 250;
  },
});

/** Runs the task on two machines, named a and b, with scripted tool calls; returns the metrics. */
export async function clickBoth(a: Env, b: Env, log = console.log) {
  const graph = createGraphEvaluator({
    nodes: { on_a: { evaluator: inBox, env: "a" }, on_b: { evaluator: inBox, env: "b" } },
    edges: [["on_a", "on_b"]], // on_b counts only after on_a
    passPolicy: "sticky", // a passed node stays passed
  });
  const task = createTask({ id: "click-both", description: "Click the box on both machines.", evaluator: graph, maxSteps: 10 });
  const environments = Object.entries({ a, b }).map(([name, env]) => createEnvironment({ name, env, actions: [click, press] }));
  const bench = createBenchmark({ environments, tasks: [task] });
  try {
    await bench.start("click-both");
    const steps = [
      ["a__click", { x: 150, y: 120 }],
      ["b__press", { keys: "ctrl+s" }],
      ["b__click", { x: 180, y: 200 }],
    ] as const;
    for (const [tool, args] of steps) {
      const r = await bench.step({ tool, args, tokens: 100 }); // tool names are "<environment>__<action>"
      log(tool, r.ok ? "ok" : r.error.message, "completion", r.evaluation.completionRatio, r.reason ?? "");
    }
  } finally {
    await bench.close(); // ends the episode and runs the task's teardown
  }
  const metrics = bench.metrics(); // { completionRatio: 1, success: true, actions: 3, executionEfficiency: 0.33, stepsToComplete: 3, … }
  log(metrics.success ? "success" : "failure", "completion ratio", metrics.completionRatio, metrics);
  return metrics;
}

// As a script: two local machines (each an Xvfb display and a pincer-daemon on this computer).
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const machines: LocalMachine[] = [];
  try {
    for (let i = 0; i < 2; i++) machines.push(await startLocalMachine({ width: 1280, height: 800 }));
    const metrics = await clickBoth(machines[0]!.env, machines[1]!.env);
    if (!metrics.success) process.exitCode = 1;
  } finally {
    await Promise.all(machines.map((m) => m.close()));
  }
}
