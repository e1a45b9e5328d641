import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { ScriptedAgent } from "../../packages/controller/src/agents/scripted.js";
import { importTaskModule } from "../../packages/controller/src/datasets/moduleImport.js";
import { loadDataset } from "../../packages/controller/src/datasets/loader.js";
import { createRegistries } from "../../packages/controller/src/datasets/registries.js";
import { remotePool } from "../../packages/controller/src/machines/remoteProvider.js";
import { runTasks } from "../../packages/controller/src/runner/runner.js";
import { spawnDaemon, type RunningDaemon } from "../../test/fixtures/daemon.js";
import { startTcpProxy } from "../../test/fixtures/tcpProxy.js";
import { startXvfb } from "../../test/fixtures/xvfb.js";

const ROOT = resolve(import.meta.dirname, "../..");

/** Audit lines (one per call) a daemon has written so far. */
const auditLines = (log: string) => log.split("\n").filter((l) => l.includes('"type":"audit"')).length;

/** Median time and calls per step of the hand-over task under the runner, each daemon behind a proxy adding `delayMs` each way. */
async function measureSteps(delayMs: number, screenshots: boolean, runs: number): Promise<{ ms: number; calls: number }> {
  // Real displays, so the screenshots are real captures and encodings.
  const displays = await Promise.all([startXvfb(), startXvfb()]);
  const [desktop, server] = (await Promise.all(displays.map((x) => spawnDaemon({ display: x.display })))) as [RunningDaemon, RunningDaemon];
  const [pd, ps] = await Promise.all([startTcpProxy(desktop.address, { delayMs }), startTcpProxy(server.address, { delayMs })]);
  const out = mkdtempSync(join(tmpdir(), "pincer-stepbench-"));
  try {
    const registries = createRegistries();
    const ds = await loadDataset(join(ROOT, "examples/multi"), registries, { importModule: importTaskModule });
    const perStepMs: number[] = [];
    const perStepCalls: number[] = [];
    for (let i = 0; i < runs; i++) {
      const pool = await remotePool([`desktop=${pd.address}`, `server=${ps.address}`]);
      const calls0 = auditLines(desktop.log()) + auditLines(server.log());
      // A step's cycle is the time between two of the agent's turns: the action, its evaluation and
      // the next observation (the model's own time is nil here).
      const turns: number[] = [];
      try {
        const { runDir } = await runTasks({
          tasks: ds.tasks,
          registries,
          pool,
          agentFor: (t) => {
            const agent = new ScriptedAgent(t.solution ?? []);
            const act = agent.act.bind(agent);
            agent.act = (o) => {
              turns.push(performance.now());
              return act(o);
            };
            return agent;
          },
          outDir: out,
          runId: `r-${i}`,
          screenshots,
        });
        const summary = JSON.parse(readFileSync(join(runDir, "multi", "hand-over", "attempt-1", "summary.json"), "utf8"));
        const { steps, state } = summary.results as { steps: number; state: string };
        if (state !== "passed") throw new Error(`the hand-over task ended ${state}`);
        // Audit lines are written as calls end; give the last ones a moment.
        await new Promise((r) => setTimeout(r, 200));
        perStepMs.push((turns.at(-1)! - turns[0]!) / (turns.length - 1));
        perStepCalls.push((auditLines(desktop.log()) + auditLines(server.log()) - calls0) / steps);
      } finally {
        await pool.close();
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    return { ms: median(perStepMs), calls: median(perStepCalls) };
  } finally {
    await Promise.all([pd.close(), ps.close()]);
    await Promise.all([desktop.close(), server.close()]);
    await Promise.all(displays.map((x) => x.close()));
    rmSync(out, { recursive: true, force: true });
  }
}

/**
 * A benchmark step over a link with added latency: the two-machine example (examples/multi) run by
 * the runner with its scripted solution, each daemon behind a TCP proxy that holds every chunk
 * `delayMs` each way (this kernel has no netem), and behind the same proxy without delay. The
 * sequential round trips a step costs are the time the latency added, divided by the round-trip
 * time: work done meanwhile (capture, encoding, the runner's own) cancels out.
 */
export async function stepFigures(delayMs = 10, runs = 5): Promise<string[]> {
  const rtt = 2 * delayMs;
  const lines: string[] = [];
  for (const screenshots of [true, false]) {
    const near = await measureSteps(0, screenshots, runs);
    const far = await measureSteps(delayMs, screenshots, runs);
    lines.push(
      `| hand-over under the runner, screenshots ${screenshots ? "on" : "off"} | ${near.ms.toFixed(0)} | ${far.ms.toFixed(0)} | ` +
        `${far.calls.toFixed(1)} | ${((far.ms - near.ms) / rtt).toFixed(1)} |`,
    );
  }
  return [
    `link: ${rtt} ms round-trip time added by a TCP proxy in front of each daemon; median of ${runs} runs; ` +
      `a step is the time from one of the agent's turns to the next (action, evaluation, next screenshots)`,
    "",
    `| what | ms per step, no delay | ms per step, +${rtt} ms RTT | calls per step (all of the attempt's, setup included) | ` +
      "sequential round trips per step (added ms / RTT; goal ≤ 3) |",
    "|---|---:|---:|---:|---:|",
    ...lines,
  ];
}
