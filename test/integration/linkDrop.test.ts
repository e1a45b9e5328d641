import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { ScriptedAgent, type Agent } from "@pincer/controller/agents";
import { createRegistries, loadDataset } from "@pincer/controller/datasets";
import { remotePool } from "@pincer/controller/machines";
import { runTasks, type Summary } from "@pincer/controller/runner";
import { spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";
import { startTcpProxy, type TcpProxy } from "../fixtures/tcpProxy.js";

// The link to a machine goes silent in the middle of a task (a proxy that stops forwarding, as a
// broken route or a dead switch does): the attempt ends in env_error, not as the agent's failure;
// once the link is back, the second attempt passes.

let daemon: RunningDaemon;
let proxy: TcpProxy;
let work: string;

beforeAll(async () => {
  daemon = await spawnDaemon();
  proxy = await startTcpProxy(daemon.address);
  work = mkdtempSync(join(tmpdir(), "pincer-link-"));
});

afterAll(async () => {
  await proxy?.close();
  await daemon?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

test("a link that goes silent mid-task is env_error, and the retry passes once it is back", async () => {
  const out = join(work, "out");
  const taskDir = join(work, "ds", "t", "relay");
  mkdirSync(taskDir, { recursive: true });
  const result = join(work, "result.txt");
  writeFileSync(join(taskDir, "expected.txt"), "two\n");
  const rc = (command: string) => ({ tool: "desktop__run_command", args: { command } });
  writeFileSync(
    join(taskDir, "relay.json"),
    JSON.stringify({
      id: "relay",
      instruction: "Write two into the result file.",
      evaluation: { func: "compare_text_file", arguments: { local_expected: "expected.txt", vm_result: result } },
    }),
  );
  const solution = [rc(`rm -f ${result}`), rc(`echo two > ${result}`)];
  const registries = createRegistries();
  const ds = await loadDataset(join(work, "ds"), registries);
  expect(ds.problems).toEqual([]);

  // The first attempt's agent cuts the link before its second action; the second attempt's puts it back.
  let agents = 0;
  const agentFor = (): Agent => {
    agents += 1;
    const scripted = new ScriptedAgent(solution);
    if (agents > 1) {
      void proxy.blackhole(false);
      return scripted;
    }
    return {
      name: "scripted",
      model: "",
      wantsScreenshots: false,
      start: (ctx) => scripted.start(ctx),
      act: async (obs) => {
        if (obs.step === 1) await proxy.blackhole(true);
        return scripted.act(obs);
      },
    };
  };
  // Short keepalive so that the test does not wait the default 10 s + 5 s.
  const pool = await remotePool(
    [`desktop=${proxy.address}`],
    {},
    { keepaliveMs: 1_000, keepaliveTimeoutMs: 1_000, maxReconnectBackoffMs: 1_000, connectTimeoutMs: 2_000 },
  );
  const t0 = Date.now();
  try {
    const { runDir, report } = await runTasks({ tasks: ds.tasks, registries, pool, agentFor, outDir: out, runId: "r", screenshots: false, attempts: 2 });
    const first: Summary = JSON.parse(readFileSync(join(runDir, "t", "relay", "attempt-1", "summary.json"), "utf8"));
    const second: Summary = JSON.parse(readFileSync(join(runDir, "t", "relay", "attempt-2", "summary.json"), "utf8"));
    const states = `attempt 1 ${first.results.state} (${first.results.error}); attempt 2 ${second.results.state} (${second.results.error})`;
    console.log(`link drop: ${states}; ${Date.now() - t0} ms`);
    expect(first.results.state).toBe("env_error");
    expect(first.results.error).toMatch(/unreachable|connection|UNAVAILABLE/i);
    expect(second.results.state).toBe("passed");
    expect(report.perTask[0]).toMatchObject({ state: "passed", attempts: 2 });
    // The proxy saw a new connection: the channel reconnected after the outage.
    expect(proxy.connections()).toBeGreaterThanOrEqual(2);
  } finally {
    await proxy.blackhole(false);
    await pool.close();
  }
}, 60_000);
