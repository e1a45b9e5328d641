import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { runPincer } from "../fixtures/cli.js";

const pincer = (args: string[]) => runPincer(args);

describe("pincer CLI", () => {
  test("the demo: every example task passes with its solution on the embedded default", async () => {
    const out = mkdtempSync(join(tmpdir(), "pincer-demo-"));
    try {
      const r = await pincer(["run", "examples", "--concurrency", "2", "--strict", "--print-report", "--out", out]);
      expect(r.code, r.stderr + r.stdout).toBe(0);
      expect(r.stdout).toMatch(/tasks 14: passed 14, failed 0, errors 0; success rate 100\.0%/);
      expect(r.stdout).toMatch(/## Counterpart pairs/);
      expect(r.stderr).toMatch(/starting 2 local slot\(s\) with desktop, server \(an Xvfb display and a pincer-daemon each, in a sandbox\)/);
      // Plain progress lines when not on a terminal, one per finished task.
      expect(r.stderr.split("\n").filter((l) => /: passed \(score 1\.00, attempt 1\)/.test(l))).toHaveLength(14);
      const [runId] = readdirSync(out);
      // The run viewer, beside report.json and report.md.
      expect(readFileSync(join(out, runId!, "report.html"), "utf8")).toContain('<script type="application/json" id="pincer-data">');
      const summary = JSON.parse(readFileSync(join(out, runId!, "multi", "hand-over", "attempt-1", "summary.json"), "utf8"));
      expect(summary.results).toMatchObject({ state: "passed", score: 1, metrics: { completionRatio: 1, success: true } });
      expect(Object.keys(summary.results.environments)).toEqual(["desktop", "server"]);
      const shots = readdirSync(join(out, runId!, "terminal", "type-in-terminal", "attempt-1", "screenshots"));
      expect(shots.length).toBeGreaterThan(0);
      // A one-machine task on a two-machine slot: only its own machine is shown, screenshotted and recorded.
      expect(shots.every((f) => f.endsWith("-desktop.jpg"))).toBe(true);
      const single = JSON.parse(readFileSync(join(out, runId!, "terminal", "type-in-terminal", "attempt-1", "summary.json"), "utf8"));
      expect(Object.keys(single.results.environments)).toEqual(["desktop"]);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });

  test("the demo on local machines whose daemons run the portable drivers (nut-js, execa)", async () => {
    const out = mkdtempSync(join(tmpdir(), "pincer-demo-portable-"));
    try {
      const r = await pincer(["run", "examples", "--concurrency", "2", "--strict", "--drivers", "portable", "--out", out]);
      expect(r.code, r.stderr + r.stdout).toBe(0);
      expect(r.stdout).toMatch(/tasks 14: passed 14, failed 0, errors 0; success rate 100\.0%/);
      expect(r.stderr).toMatch(/an Xvfb display and a pincer-daemon \(portable drivers\) each/);
      // The provider started its daemons with --drivers portable, as the run's manifest records.
      const [runId] = readdirSync(out);
      expect(readFileSync(join(out, runId!, "manifest.json"), "utf8")).toMatch(/"drivers":\s*"portable"/);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
    // nut-js loads in each daemon, and typing goes key by key: more than the project's 120 s on a loaded host.
  }, 240_000);

  test("validate: the examples are valid; a broken dataset lists its problems and exits 1", async () => {
    const good = await pincer(["validate", "examples"]);
    expect(good.code).toBe(0);
    expect(good.stdout).toMatch(/14 task\(s\) valid; 0 error\(s\), 0 warning\(s\)/);
    const bad = await pincer(["validate", "test/fixtures/broken-dataset"]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/broken-dataset\/apps\/typo\/typo\.json:evaluation\.func: error: unknown evaluation function "compare_txt_file"/);
  });

  test("check: a task that cannot pass and one that passes by itself are named; exit 1", async () => {
    const r = await pincer(["check", "test/fixtures/check-dataset"]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/^ok {3}t\/good$/m);
    expect(r.stdout).toMatch(/^FAIL t\/passes-alone: with no actions it scores 1 \(passed\): it passes by itself$/m);
    expect(r.stdout).toContain(
      "FAIL t/unsolvable: its solution scores 0 (failed): every step ran, and the evaluation says: /tmp/pincer-check/never.txt does not exist " +
        "(the solution does not reach the goal, or the expected result is wrong)\n",
    );
    expect(r.stdout).toMatch(
      /^FAIL t\/bad-step: its solution scores 0 \(failed\): step 1 \(desktop__download_file\) failed: .*absent\.txt.* \(the solution is at fault\)$/m,
    );
    // A solution whose last step starts a program and ends at once is judged before the program is done: check says so.
    expect(r.stdout).toContain(
      "FAIL t/racy: its solution scores 0 (failed): every step ran, and the evaluation says: /tmp/pincer-check/racy.txt does not exist " +
        "(the solution does not reach the goal, or the expected result is wrong); its last step, desktop__launch, hands work to a program " +
        "that may still be doing it when the evaluation runs: wait for the result before the solution ends",
    );
    expect(r.stdout).toMatch(/1 of 5 tasks check out/);
  });

  test("a task without a solution: validate says check cannot prove it, and check says so before any machine starts", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pincer-unsolved-"));
    try {
      mkdirSync(join(dir, "t", "bare"), { recursive: true });
      const task = { id: "bare", instruction: "x", config: [], evaluation: { func: "check_file_exists", arguments: { vm_file: "/tmp/x" } } };
      writeFileSync(join(dir, "t", "bare", "bare.json"), JSON.stringify(task));
      const v = await pincer(["validate", dir]);
      expect(v.code).toBe(0);
      expect(v.stdout).toContain("1 task(s) without a solution (t/bare): pincer check cannot prove them; add a solution.json beside each");
      const c = await pincer(["check", dir]);
      expect(c.code).toBe(1);
      expect(c.stdout).toContain("FAIL t/bare: no solution.json: write the tool calls that solve it beside the task file\n0 of 1 tasks check out");
      // No machine was started for it.
      expect(c.stderr).not.toMatch(/pincer-daemon/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("run --task and --tag pick tasks; a pattern that matches nothing stops the run before it starts", async () => {
    const out = mkdtempSync(join(tmpdir(), "pincer-select-"));
    try {
      const args = ["run", "examples", "--task", "terminal/write-greeting*", "--tag", "abstract", "--out", out, "--run-id", "r", "--no-screenshots"];
      // Without the sandbox, the run says so, and why.
      const r = await runPincer(args, { env: { ...process.env, PINCER_SANDBOX: "none" } });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain("a pincer-daemon each, WITHOUT a sandbox (PINCER_SANDBOX=none): tasks act on this computer)");
      expect(r.stdout).toMatch(/tasks 1: passed 1/);
      expect(readdirSync(join(out, "r", "terminal"))).toEqual(["write-greeting"]);
      const typo = await pincer(["run", "examples", "--task", "write-greting", "--out", out]);
      expect(typo.code).not.toBe(0);
      expect(typo.stderr).toMatch(/--task "write-greting" matches no task/);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });

  test("bad arguments say what to do", async () => {
    const r = await pincer(["run", "examples", "--env", "desktop"]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/--env "desktop": write name=host:port/);
    const agent = await pincer(["run", "examples", "--agent", "gpt"]);
    expect(agent.code).not.toBe(0);
    expect(agent.stderr).toMatch(/--agent gpt: use scripted, openai/);
  });
});
