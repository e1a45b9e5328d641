import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { runPincer, type CliResult } from "../fixtures/cli.js";

const DATASET = "test/fixtures/program-dataset";
const PROGRAM = "test/fixtures/agent-programs/sdkClient.mjs";
/** The arguments the hung program's processes carry: none may be left after the run. */
const MARKERS = ["987651", "987652", "987653", "987654"];

/** Processes of this host whose command line holds one of the markers. */
function leftOver(): string[] {
  const found: string[] = [];
  for (const pid of readdirSync("/proc").filter((n) => /^\d+$/.test(n))) {
    let cmdline = "";
    try {
      cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
    } catch {
      continue;
    }
    if (MARKERS.some((m) => cmdline.includes(m))) found.push(`${pid}: ${cmdline}`);
  }
  return found;
}

const attemptDir = (out: string, id: string) => join(out, "r1", "programs", id, "attempt-1");
const summaryOf = (out: string, id: string) => JSON.parse(readFileSync(join(attemptDir(out, id), "summary.json"), "utf8"));
const trajectoryOf = (out: string, id: string) =>
  readFileSync(join(attemptDir(out, id), "trajectory.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
const agentFile = (out: string, id: string, name: string) => readFileSync(join(attemptDir(out, id), "agent", name), "utf8");

describe("pincer run --agent command: an MCP client program as the agent", () => {
  let out: string;
  let run: CliResult;
  beforeAll(async () => {
    out = mkdtempSync(join(tmpdir(), "pincer-program-"));
    const flags = ["--concurrency", "2", "--max-steps", "4", "--task-timeout", "20", "--out", out, "--run-id", "r1"];
    // The program gets nothing of this environment but what --agent-env names.
    const env = { ...process.env, PINCER_TEST_SECRET: "not for the agent", AGENT_VISIBLE: "passed on" };
    run = await runPincer(["run", DATASET, ...flags, "--agent", "command", "--agent-env", "AGENT_VISIBLE", "--", process.execPath, PROGRAM], { env });
  }, 180_000);
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  test("the MCP SDK's client solves a task over streamable HTTP; its calls are the trajectory's steps, with screenshots", () => {
    expect(run.stdout, run.stderr).toMatch(/tasks 5: passed 2, failed 2, errors 1/);
    expect(summaryOf(out, "solve").results).toMatchObject({ state: "passed", score: 1 });
    const steps = trajectoryOf(out, "solve").filter((l) => l.step !== undefined);
    expect(steps.map((l) => l.tool)).toEqual(["desktop__screenshot", "desktop__run_command"]);
    // Each call's line has the turn's screenshot; the screenshot call's own image is a file of the attempt.
    for (const l of steps) expect(Object.values(l.screenshots)).toHaveLength(1);
    expect(steps[0].result.file).toMatch(/^screenshots\/step-001-desktop\.png$/);
    expect(readdirSync(join(attemptDir(out, "solve"), "screenshots"))).toContain("step-001-desktop.png");
    const stdout = agentFile(out, "solve", "stdout.log");
    expect(stdout).toContain("instruction on stdin: Write the line 'solved' into /tmp/pincer-program/solve/out.txt");
    expect(stdout).toMatch(/^tools: .*desktop__screenshot .*desktop__run_command .*root__complete/m);
    expect(stdout).toMatch(/^screenshot: <image image\/png> \{"width":\d+,"height":\d+\}$/m);
    // The run_command answered the task: the episode ended with success, and the complete after it was refused.
    expect(stdout).toMatch(/^run_command: .*The attempt has ended \(success\)/m);
    expect(stdout).toMatch(/^complete: Refused: the attempt has ended \(success\)/m);
  });

  test("a client that starts the endpoint as a stdio command (pincer mcp --connect, from mcp-stdio.json) works the same", () => {
    expect(summaryOf(out, "solve-stdio").results).toMatchObject({ state: "passed", score: 1 });
    const config = JSON.parse(agentFile(out, "solve-stdio", "mcp-stdio.json")).mcpServers.pincer;
    expect(config.args).toEqual(expect.arrayContaining(["mcp", "--connect"]));
    expect(agentFile(out, "solve-stdio", "stdout.log")).toMatch(/^run_command: .*The attempt has ended \(success\)/m);
  });

  test("the program's environment holds only the attempt's variables and what --agent-env passes", () => {
    const http = JSON.parse(agentFile(out, "solve", "mcp.json")).mcpServers.pincer;
    expect(http).toMatchObject({ type: "http", url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/) });
    expect(http.headers.Authorization).toMatch(/^Bearer \S{20,}$/);
    expect(agentFile(out, "solve", "instruction.txt")).toBe("Write the line 'solved' into /tmp/pincer-program/solve/out.txt\n");
    const line = /^env: .*$/m.exec(agentFile(out, "solve", "stdout.log"))?.[0];
    expect(line).toMatch(/AGENT_VISIBLE=passed on PINCER_TEST_SECRET=- HOME=\/.*pincer-agent-home-/);
  });

  test("a hung program is stopped at the time limit with its whole process tree; the attempt is time_limit, evaluated", () => {
    expect(leftOver()).toEqual([]);
    const results = summaryOf(out, "hang").results;
    expect(results).toMatchObject({ state: "failed", agent_state: "time_limit" });
    expect(results.error).toMatch(/time limit of 20 s ran out while the agent program worked; it was stopped with its whole process tree/);
    expect(JSON.parse(agentFile(out, "hang", "exit.json"))).toMatchObject({ left: [], ended: expect.stringMatching(/^time_limit/) });
    const done = trajectoryOf(out, "hang").find((l) => l.done);
    expect(done.evaluation).toBeDefined();
  });

  test("a program that exits at once with an error is agent_error with its exit status and stderr", () => {
    const results = summaryOf(out, "crash").results;
    expect(results.state).toBe("agent_error");
    expect(results.error).toContain("the agent program exited with status 3; the end of its stderr:\nfatal: no API key for the model (set OPENAI_API_KEY)");
    expect(run.code).toBe(3);
  });

  test("calls past the step limit are refused and the attempt ends at the limit", () => {
    expect(summaryOf(out, "steps").results).toMatchObject({ state: "failed", agent_state: "step_limit" });
    const stdout = agentFile(out, "steps", "stdout.log");
    expect(stdout).toMatch(/^call 4: ok: .*The attempt has ended \(step_limit\)/m);
    expect(stdout).toMatch(/^call 5: error: Refused: the attempt has ended \(step_limit: the task's limit of 4 steps was reached\)/m);
    expect(stdout).not.toMatch(/^call 6/m);
    expect(trajectoryOf(out, "steps").filter((l) => l.step !== undefined)).toHaveLength(4);
  });
});

describe("the Python agent program of docs/agents.md", () => {
  test("examples/agents/mcp_agent.py solves a demo task under --agent command", async () => {
    const out = mkdtempSync(join(tmpdir(), "pincer-program-py-"));
    try {
      const task = "examples/terminal/write-greeting/write-greeting.json";
      const r = await runPincer([
        "run",
        task,
        "--out",
        out,
        "--run-id",
        "r1",
        "--strict",
        "--agent",
        "command",
        "--",
        "/usr/bin/python3",
        "examples/agents/mcp_agent.py",
      ]);
      expect(r.code, r.stderr + r.stdout).toBe(0);
      const log = readFileSync(join(out, "r1", "terminal", "write-greeting", "attempt-1", "agent", "stdout.log"), "utf8");
      expect(log).toMatch(/^desktop__run_command -> .*The attempt has ended \(success\)/m);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 120_000);
});
