import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { action, evaluator } from "@pincer/controller";
import { createRegistries, defineEvaluationFunction, defineTask, loadDataset, type DatasetTask } from "@pincer/controller/datasets";
import { remotePool } from "@pincer/controller/machines";
import { runTasks, type Summary } from "@pincer/controller/runner";
import { ScriptedAgent, type Agent } from "@pincer/controller/agents";
import { z } from "zod";
import { spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";
import { moduleTask } from "../fixtures/tasks.js";

let daemon: RunningDaemon;
let work: string;

beforeAll(async () => {
  daemon = await spawnDaemon();
  work = mkdtempSync(join(tmpdir(), "pincer-runner-"));
});
afterAll(async () => {
  await daemon?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

const throwing = defineEvaluationFunction({
  name: "broken_check",
  description: "Always throws (a bug in a check).",
  args: z.object({}),
  run: async () => {
    throw new Error("the check itself is broken");
  },
});
const registries = () => createRegistries({ evaluations: [throwing] });

/** Writes one task folder; returns the dataset root. */
function dataset(name: string, tasks: Array<{ id: string; json: Record<string, unknown>; solution?: unknown[]; files?: Record<string, string> }>): string {
  const root = join(work, name);
  for (const t of tasks) {
    const dir = join(root, "t", t.id);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${t.id}.json`), JSON.stringify({ id: t.id, instruction: `Task ${t.id}.`, ...t.json }));
    if (t.solution) writeFileSync(join(dir, "solution.json"), JSON.stringify(t.solution));
    for (const [f, text] of Object.entries(t.files ?? {})) writeFileSync(join(dir, f), text);
  }
  return root;
}

const rc = (command: string) => ({ tool: "desktop__run_command", args: { command } });
const fileIs = (path: string, expected = "expected.txt") => ({ func: "compare_text_file", arguments: { local_expected: expected, vm_result: path } });

async function run(
  root: string,
  opts: { agentFor?: (t: DatasetTask) => Agent; attempts?: number; maxSteps?: number; taskTimeoutMs?: number; address?: string; resume?: boolean } = {},
) {
  const regs = registries();
  const ds = await loadDataset(root, regs);
  expect(ds.problems.filter((p) => p.severity === "error")).toEqual([]);
  const pool = await remotePool([`desktop=${opts.address ?? daemon.address}`]);
  try {
    return await runTasks({
      tasks: ds.tasks,
      registries: regs,
      pool,
      agentFor: opts.agentFor ?? ((t) => new ScriptedAgent(t.solution ?? [])),
      outDir: join(root, "results"),
      runId: "r1",
      screenshots: false,
      ...(opts.attempts ? { attempts: opts.attempts } : {}),
      ...(opts.maxSteps ? { maxSteps: opts.maxSteps } : {}),
      ...(opts.taskTimeoutMs ? { taskTimeoutMs: opts.taskTimeoutMs } : {}),
      ...(opts.resume ? { resume: true } : {}),
    });
  } finally {
    await pool.close();
  }
}

const summary = (runDir: string, id: string, attempt = 1): Summary =>
  JSON.parse(readFileSync(join(runDir, "t", id, `attempt-${attempt}`, "summary.json"), "utf8"));
const trajectory = (runDir: string, id: string, attempt = 1) =>
  readFileSync(join(runDir, "t", id, `attempt-${attempt}`, "trajectory.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));

describe("the runner's states, on a real daemon", () => {
  test("passed and failed are the task's verdict; the summary keeps every task field", async () => {
    const d = join(work, "pf-out");
    const root = dataset("pass-fail", [
      {
        id: "ok",
        json: { tags: ["cli"], action_number: 1, config: [], evaluation: fileIs(`${d}/ok.txt`) },
        solution: [rc(`mkdir -p ${d} && echo yes > ${d}/ok.txt`)],
        files: { "expected.txt": "yes\n" },
      },
      {
        id: "wrong",
        json: { tags: ["cli"], config: [], evaluation: fileIs(`${d}/wrong.txt`) },
        solution: [rc(`mkdir -p ${d} && echo no > ${d}/wrong.txt`)],
        files: { "expected.txt": "yes\n" },
      },
    ]);
    const { runDir, report } = await run(root);
    const ok = summary(runDir, "ok");
    expect(ok).toMatchObject({ id: "ok", instruction: "Task ok.", tags: ["cli"], action_number: 1 });
    expect(ok.results).toMatchObject({
      score: 1,
      state: "passed",
      agent_state: "agent_done",
      end_reason: "success",
      eval_error: null,
      steps: 1,
      max_steps: 7,
      agent: "scripted",
    });
    expect(ok.results.daemon_versions.desktop).toMatch(/^\d+\.\d+\.\d+$/);
    const wrong = summary(runDir, "wrong");
    expect(wrong.results).toMatchObject({ score: 0, state: "failed", agent_state: "agent_done", end_reason: "agent_complete" });
    expect(wrong.results.eval_reason).toMatch(/line 1/);
    expect(trajectory(runDir, "ok")[0]).toMatchObject({ step: 1, tool: "desktop__run_command", ok: true, evaluation: { success: true } });
    expect(report).toMatchObject({ tasks: 2, passed: 1, failed: 1, errors: 0, successRate: 0.5 });
    expect(readFileSync(join(runDir, "report.md"), "utf8")).toMatch(/success rate: 50\.0%/);
  });

  test("a setup script that fails is setup_error with its output, retried up to --attempts", async () => {
    const root = dataset("setup", [
      {
        id: "bad-setup",
        json: {
          config: [{ func: "upload_script_and_execute", arguments: { local_path: "init.sh", remote_path: `${work}/setup/init.sh` } }],
          evaluation: fileIs("/nonexistent"),
        },
        solution: [rc("true")],
        files: { "init.sh": "#!/bin/sh\necho preparing\necho 'cannot find the dataset' >&2\nexit 3\n", "expected.txt": "x" },
      },
    ]);
    const { runDir, report } = await run(root, { attempts: 2 });
    for (const attempt of [1, 2]) {
      const s = summary(runDir, "bad-setup", attempt);
      expect(s.results).toMatchObject({ state: "setup_error", score: 0, attempt, steps: 0 });
      expect(s.results.error).toMatch(/exited with code 3:\n(.|\n)*cannot find the dataset/);
    }
    expect(report).toMatchObject({ errors: 1, errorsByState: { setup_error: 1 }, successRate: 0 });
    expect(report.perTask[0]).toMatchObject({ attempts: 2 });
  });

  test("an evaluator that throws is eval_error, not a score of 0; task failures are not retried", async () => {
    const root = dataset("eval", [
      { id: "broken", json: { config: [], evaluation: { func: "broken_check", arguments: {} } }, solution: [rc("true")] },
      { id: "fails", json: { config: [], evaluation: fileIs("/nonexistent/file") }, solution: [rc("true")], files: { "expected.txt": "x" } },
    ]);
    const { runDir } = await run(root, { attempts: 3 });
    expect(summary(runDir, "broken").results).toMatchObject({ state: "eval_error", eval_error: expect.stringMatching(/the check itself is broken/) });
    expect(summary(runDir, "fails").results).toMatchObject({ state: "failed", eval_error: null });
    expect(readdirSync(join(runDir, "t", "fails"))).toEqual(["attempt-1"]);
    expect(readdirSync(join(runDir, "t", "broken")).sort()).toEqual(["attempt-1", "attempt-2", "attempt-3"]);
  });

  test("a step limit and a time limit end the agent's part", async () => {
    const root = dataset("limits", [
      {
        id: "long",
        json: { config: [], evaluation: fileIs("/nonexistent/x") },
        solution: [rc("true"), rc("true"), rc("true"), rc("true")],
        files: { "expected.txt": "x" },
      },
      { id: "slow", json: { config: [], evaluation: fileIs("/nonexistent/y") }, solution: [rc("sleep 300")], files: { "expected.txt": "x" } },
    ]);
    const started = Date.now();
    const { runDir } = await run(root, { maxSteps: 2, taskTimeoutMs: 3_000 });
    expect(summary(runDir, "long").results).toMatchObject({ state: "failed", agent_state: "step_limit", steps: 2, max_steps: 2, max_steps_rule: "fixed 2" });
    expect(summary(runDir, "slow").results).toMatchObject({ state: "failed", agent_state: "time_limit" });
    // The sleep was cut, not waited for; two short tasks take seconds even on a loaded machine.
    expect(Date.now() - started).toBeLessThan(45_000);
  });

  test("a solution uploads the task's own files by relative path, and files it downloaded earlier", async () => {
    const out = join(work, "relative-out");
    mkdirSync(out, { recursive: true });
    const up = (local: string, remote: string) => ({ tool: "desktop__upload_file", args: { local_path: local, remote_path: remote } });
    const root = dataset("relative", [
      {
        id: "rel",
        json: { config: [], evaluation: fileIs(`${out}/round-trip.txt`) },
        solution: [
          up("expected.txt", `${out}/from-task.txt`),
          { tool: "desktop__download_file", args: { remote_path: `${out}/from-task.txt`, local_path: "fetched.txt" } },
          up("fetched.txt", `${out}/round-trip.txt`),
        ],
        files: { "expected.txt": "done\n" },
      },
    ]);
    const { runDir } = await run(root);
    expect(summary(runDir, "rel").results).toMatchObject({ state: "passed", score: 1 });
    // The download went to the attempt's folder, not into the dataset.
    expect(existsSync(join(root, "t", "rel", "fetched.txt"))).toBe(false);
  });

  test("an agent that throws is agent_error", async () => {
    const root = dataset("agent", [{ id: "a", json: { config: [], evaluation: fileIs("/nonexistent/z") }, solution: [], files: { "expected.txt": "x" } }]);
    const failing: Agent = {
      name: "failing",
      model: "none",
      wantsScreenshots: false,
      start() {},
      act: async () => {
        throw new Error("model endpoint returned 500");
      },
    };
    const { runDir } = await run(root, { agentFor: () => failing });
    expect(summary(runDir, "a").results).toMatchObject({ state: "agent_error", error: expect.stringMatching(/model endpoint returned 500/) });
  });

  test("a daemon that dies mid-task is env_error", async () => {
    const doomed = await spawnDaemon();
    try {
      const root = dataset("dies", [
        { id: "d", json: { config: [], evaluation: fileIs("/nonexistent/w") }, solution: [rc("true"), rc("true"), rc("true")], files: { "expected.txt": "x" } },
      ]);
      let turns = 0;
      const killer: Agent = {
        name: "killer",
        model: "",
        wantsScreenshots: false,
        start() {},
        act: async () => {
          turns += 1;
          if (turns === 2) doomed.process.kill("SIGKILL");
          return { calls: [rc("true")] };
        },
      };
      const { runDir } = await run(root, { agentFor: () => killer, address: doomed.address });
      const s = summary(runDir, "d");
      expect(s.results).toMatchObject({ state: "env_error", end_reason: "env_error" });
      expect(s.results.error).toMatch(/unreachable|UNAVAILABLE|Unavailable/i);
    } finally {
      await doomed.close();
    }
  });
});

describe("module tasks", () => {
  test("a task whose build() brings an action that clashes with an environment's is that task's setup_error; the other tasks still run", async () => {
    const dir = join(work, "clash");
    mkdirSync(dir, { recursive: true });
    const file = join(dir, "done.txt");
    const written = evaluator({ name: "written", description: "The file exists.", run: (_p, { env, signal }) => env.files.exists(file, { signal }) });
    const ownClick = action({ name: "click", description: "The task's own click.", params: z.object({}), run: async () => undefined });
    const clashing = moduleTask(
      defineTask({ id: "clashing", instruction: "Click.", build: () => ({ evaluator: written, extraActions: { desktop: [ownClick] } }) }),
      dir,
      "t",
    );
    const fine = moduleTask(defineTask({ id: "fine", instruction: `Write ${file}.`, build: () => ({ evaluator: written }) }), dir, "t");
    const pool = await remotePool([`desktop=${daemon.address}`]);
    try {
      const { runDir, report } = await runTasks({
        tasks: [clashing, fine],
        registries: registries(),
        pool,
        agentFor: (t) => new ScriptedAgent(t.id === "fine" ? [rc(`echo done > ${file}`)] : []),
        outDir: join(dir, "results"),
        runId: "r1",
        screenshots: false,
        attempts: 2,
      });
      for (const attempt of [1, 2]) {
        const s = summary(runDir, "clashing", attempt);
        expect(s.results).toMatchObject({ state: "setup_error", end_reason: "setup_error", score: 0, steps: 0, attempt });
        expect(s.results.error).toMatch(/^building the task: task clashing: extra action click clashes with an action of desktop/);
      }
      expect(summary(runDir, "fine").results).toMatchObject({ state: "passed", score: 1 });
      expect(report).toMatchObject({ tasks: 2, passed: 1, errors: 1, errorsByState: { setup_error: 1 } });
    } finally {
      await pool.close();
    }
  });
});

describe("a machine the run does not own", () => {
  test("after each task the runner stops what the task started, and nothing its user started through the same daemon", async () => {
    const users = daemon.env.process.start(["sleep", "300"]);
    const userPid = await users.pid;
    try {
      // A task whose setup starts a process that outlives the task (a program it opens, say).
      const startSleep = action({
        name: "start_sleep",
        description: "Starts sleep 301.",
        params: z.object({}),
        run: async (_a, { env }) => {
          await env.process.start(["sleep", "301"]).pid;
        },
      });
      const never = evaluator({ name: "never", description: "Fails.", run: async () => false });
      const task = defineTask({ id: "starts-one", instruction: "Nothing.", build: () => ({ evaluator: never, setup: [{ action: startSleep, args: {} }] }) });
      const pool = await remotePool([`desktop=${daemon.address}`]);
      let runDir: string;
      try {
        ({ runDir } = await runTasks({
          tasks: [moduleTask(task, work, "t")],
          registries: createRegistries(),
          pool,
          agentFor: () => new ScriptedAgent([]),
          outDir: join(work, "own-processes"),
          runId: "r",
          screenshots: false,
        }));
      } finally {
        await pool.close();
      }
      expect(summary(runDir, "starts-one").results.state).toBe("failed");
      const after = await daemon.env.process.list();
      expect(after.map((p) => p.pid)).toContain(userPid);
      expect(after.map((p) => p.argv.join(" "))).not.toContain("sleep 301");
    } finally {
      await daemon.env.process.signal(userPid, "SIGKILL").catch(() => undefined);
    }
  });
});

describe("resume", () => {
  test("a task that ended in an infrastructure error runs again on --resume once its cause is fixed; verdicts are kept", async () => {
    const marker = join(work, "resume-infra-fixed");
    const root = dataset("resume-infra", [
      {
        id: "needs-fix",
        json: {
          config: [{ func: "upload_script_and_execute", arguments: { local_path: "init.sh", remote_path: `${work}/resume-infra/init.sh` } }],
          evaluation: fileIs(marker),
        },
        solution: [rc("true")],
        files: { "init.sh": `#!/bin/sh\ntest -f ${marker} || { echo 'the data set is missing' >&2; exit 3; }\n`, "expected.txt": "fixed\n" },
      },
      { id: "verdict", json: { config: [], evaluation: fileIs("/nonexistent/file") }, solution: [rc("true")], files: { "expected.txt": "x" } },
    ]);
    const first = await run(root);
    expect(first.report).toMatchObject({ tasks: 2, failed: 1, errors: 1, errorsByState: { setup_error: 1 } });
    const verdict = readFileSync(join(first.runDir, "t", "verdict", "attempt-1", "summary.json"), "utf8");
    writeFileSync(marker, "fixed\n"); // the cause, fixed
    const second = await run(root, { resume: true });
    expect(summary(second.runDir, "needs-fix", 1).results.state).toBe("setup_error");
    expect(summary(second.runDir, "needs-fix", 2).results).toMatchObject({ state: "passed", attempt: 2 });
    // The task with a verdict is not run again.
    expect(readdirSync(join(second.runDir, "t", "verdict"))).toEqual(["attempt-1"]);
    expect(readFileSync(join(second.runDir, "t", "verdict", "attempt-1", "summary.json"), "utf8")).toBe(verdict);
    expect(second.report).toMatchObject({ tasks: 2, passed: 1, failed: 1, errors: 0 });
  });

  // Two runs of the CLI from source, each compiling it first: slow on a loaded machine, hence its own timeout.
  test("a run killed mid-way continues without losing or duplicating results", async () => {
    const out = join(work, "resume-out");
    const tasks = Array.from({ length: 6 }, (_, i) => ({
      id: `slow-${i}`,
      json: { config: [], evaluation: fileIs(`${out}/slow-${i}.txt`) },
      solution: [rc(`sleep 0.7 && mkdir -p ${out} && echo done > ${out}/slow-${i}.txt`)],
      files: { "expected.txt": "done\n" },
    }));
    const root = dataset("resume", tasks);
    const { spawn } = await import("node:child_process");
    const cli = join(import.meta.dirname, "../../packages/controller/src/cli/main.ts");
    const args = [
      "--conditions=@pincer/source",
      "--import",
      "tsx",
      cli,
      "run",
      root,
      "--env",
      `desktop=${daemon.address}`,
      "--out",
      join(root, "results"),
      "--run-id",
      "r",
      "--no-screenshots",
    ];
    const runDir = join(root, "results", "r");
    const finished = () => tasks.filter((t) => existsSync(join(runDir, "t", t.id, "attempt-1", "summary.json"))).length;
    // First run: killed hard once two tasks are done.
    const first = spawn(process.execPath, args, { stdio: "ignore" });
    await new Promise<void>((resolve, reject) => {
      const timer = setInterval(() => {
        if (finished() >= 2) {
          clearInterval(timer);
          first.kill("SIGKILL");
          resolve();
        }
      }, 50);
      first.once("exit", () => {
        clearInterval(timer);
        reject(new Error("the run ended before it could be killed"));
      });
    });
    await new Promise((r) => first.once("exit", r));
    const before = tasks.filter((t) => existsSync(join(runDir, "t", t.id, "attempt-1", "summary.json")));
    expect(before.length).toBeGreaterThanOrEqual(2);
    expect(before.length).toBeLessThan(6);
    const kept = Object.fromEntries(before.map((t) => [t.id, readFileSync(join(runDir, "t", t.id, "attempt-1", "summary.json"), "utf8")]));
    // Second run: --resume finishes the rest.
    const second = spawn(process.execPath, [...args, "--resume"], { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    second.stdout!.on("data", (d: Buffer) => (output += d.toString()));
    second.stderr!.on("data", (d: Buffer) => (output += d.toString()));
    const code = await new Promise((r) => second.once("exit", r));
    expect(code, output).toBe(0);
    expect(output).toMatch(/kept from before/);
    for (const t of tasks) {
      expect(readdirSync(join(runDir, "t", t.id))).toEqual(["attempt-1"]);
      expect(summary(runDir, t.id).results.state).toBe("passed");
    }
    // Summaries written before the kill are untouched.
    for (const [id, text] of Object.entries(kept)) expect(readFileSync(join(runDir, "t", id, "attempt-1", "summary.json"), "utf8")).toBe(text);
    const report = JSON.parse(readFileSync(join(runDir, "report.json"), "utf8"));
    expect(report).toMatchObject({ tasks: 6, passed: 6 });
  }, 120_000);
});
