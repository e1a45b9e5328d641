import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { ScriptedAgent } from "../../packages/controller/src/agents/scripted.js";
import { importTaskModule } from "../../packages/controller/src/cli/taskModules.js";
import { loadDataset } from "../../packages/controller/src/datasets/loader.js";
import { createRegistries } from "../../packages/controller/src/datasets/registries.js";
import { remotePool } from "../../packages/controller/src/machines/remoteProvider.js";
import { runTasks } from "../../packages/controller/src/runner/runner.js";
import { spawnDaemon } from "../../test/fixtures/daemon.js";
import { startTcpProxy } from "../../test/fixtures/tcpProxy.js";

const ROOT = resolve(import.meta.dirname, "../..");

/** Audit lines (one per call) a daemon has written so far. */
const auditLines = (log: string) => log.split("\n").filter((l) => l.includes('"type":"audit"')).length;

/**
 * A benchmark step over a link with added latency: the two-machine example (examples/multi) run by
 * the runner with its scripted solution, each daemon behind a TCP proxy that holds every chunk
 * `delayMs` each way (this kernel has no netem). Reports the time per step, the calls per step
 * (from the daemons' audit lines), and the sequential round trips a step costs (time / RTT).
 */
export async function stepFigures(delayMs = 10, runs = 5): Promise<string[]> {
  const rtt = 2 * delayMs;
  const [desktop, server] = await Promise.all([spawnDaemon(), spawnDaemon()]);
  const [pd, ps] = await Promise.all([startTcpProxy(desktop.address, { delayMs }), startTcpProxy(server.address, { delayMs })]);
  const out = mkdtempSync(join(tmpdir(), "pincer-stepbench-"));
  const lines: string[] = [];
  try {
    const registries = createRegistries();
    const ds = await loadDataset(join(ROOT, "examples/multi"), registries, { importModule: importTaskModule });
    for (const screenshots of [true, false]) {
      const perStepMs: number[] = [];
      const perStepCalls: number[] = [];
      for (let i = 0; i < runs; i++) {
        const pool = await remotePool([`desktop=${pd.address}`, `server=${ps.address}`]);
        const calls0 = auditLines(desktop.log()) + auditLines(server.log());
        try {
          const { runDir } = await runTasks({
            tasks: ds.tasks,
            registries,
            pool,
            agentFor: (t) => new ScriptedAgent(t.solution ?? []),
            outDir: out,
            runId: `r-${screenshots}-${i}`,
            screenshots,
          });
          const summary = JSON.parse(readFileSync(join(runDir, "multi", "hand-over", "attempt-1", "summary.json"), "utf8"));
          const { steps, total_timing } = summary.results as { steps: number; total_timing: { total_ms: number; setup_ms: number } };
          // Audit lines are written as calls end; give the last ones a moment.
          await new Promise((r) => setTimeout(r, 200));
          perStepMs.push((total_timing.total_ms - total_timing.setup_ms) / steps);
          perStepCalls.push((auditLines(desktop.log()) + auditLines(server.log()) - calls0) / steps);
        } finally {
          await pool.close();
        }
      }
      const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
      const ms = median(perStepMs);
      const calls = median(perStepCalls).toFixed(1);
      lines.push(`| hand-over under the runner, screenshots ${screenshots ? "on" : "off"} | ${ms.toFixed(0)} | ${calls} | ${(ms / rtt).toFixed(1)} |`);
    }
  } finally {
    await Promise.all([pd.close(), ps.close()]);
    await Promise.all([desktop.close(), server.close()]);
    rmSync(out, { recursive: true, force: true });
  }
  return [
    `link: ${rtt} ms round-trip time added by a TCP proxy in front of each daemon; median of ${runs} runs; a step's time excludes setup`,
    "",
    "| what | ms per step | calls per step (incl. setup and final evaluation) | sequential round trips per step (ms / RTT) |",
    "|---|---:|---:|---:|",
    ...lines,
  ];
}
