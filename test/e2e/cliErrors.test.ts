import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { ROOT, runPincer } from "../fixtures/cli.js";
import { spawnDaemon } from "../fixtures/daemon.js";

// A new user's wrong turns: each ends at once with what happened and what to do, before any
// machine starts (no "starting … slot(s)" line) and without leaving a run folder behind.

const out = mkdtempSync(join(tmpdir(), "pincer-cli-errors-"));
afterAll(() => rmSync(out, { recursive: true, force: true }));

/** Runs pincer with --out in a folder of its own; returns what it printed and the folder's entries after. */
async function pincerIn(name: string, args: string[]) {
  const dir = join(out, name);
  mkdirSync(dir);
  const r = await runPincer([...args, "--out", dir]);
  return { ...r, left: readdirSync(dir) };
}

function expectNothingStarted(r: { stderr: string; left: string[] }, left: string[] = []) {
  expect(r.stderr).not.toMatch(/starting \d+ local slot/);
  expect(r.left).toEqual(left);
}

describe("pincer run: wrong turns end before any machine starts", () => {
  test("--resume without --run-id names the flag and the runs there are", async () => {
    const dir = join(out, "resume");
    mkdirSync(join(dir, "run-20260101-000000"), { recursive: true });
    writeFileSync(join(dir, "run-20260101-000000", "manifest.json"), "{}");
    const r = await runPincer(["run", "examples", "--resume", "--out", dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/resume: name the run to continue with --run-id .*the runs in .*resume: run-20260101-000000/);
    expectNothingStarted({ stderr: r.stderr, left: readdirSync(dir) }, ["run-20260101-000000"]);
  });

  test("--resume of a run that does not exist", async () => {
    const r = await pincerIn("resume-missing", ["run", "examples", "--resume", "--run-id", "run-nope"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/resume: .*run-nope does not exist; .*holds no run/);
    expectNothingStarted(r);
  });

  test("a machines file with a misspelt key says which key was meant", async () => {
    const file = join(out, "machines.json");
    writeFileSync(file, JSON.stringify({ desktop: { adress: "127.0.0.1:50051" } }));
    const r = await pincerIn("machines", ["run", "examples", "--machines", file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("desktop: address is missing");
    expect(r.stderr).toContain('desktop: unknown key "adress" (did you mean "address"?); a machine has address, tokenFile, tls, reset');
    expect(r.stderr).not.toMatch(/Invalid input/);
    expectNothingStarted(r);
  });

  test("a machines file's tls with a misspelt file key, and a list with a bad address", async () => {
    const file = join(out, "machines-tls.json");
    writeFileSync(file, JSON.stringify({ desktop: [{ address: "10.0.0.2:50051", tls: { cax: "ca.pem" } }, { address: "10.0.0.3" }] }));
    const r = await pincerIn("machines-tls", ["run", "examples", "--machines", file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('desktop.0.tls: unknown key "cax" (did you mean "ca"?)');
    expect(r.stderr).toContain("desktop.1.address: write host:port");
    expectNothingStarted(r);
  });

  test("--env without a port is refused, not dialled on port 443", async () => {
    const r = await pincerIn("env-port", ["run", "examples", "--env", "desktop=localhost", "--env", "server=localhost:50051"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('--env desktop=localhost: "localhost" has no port; write desktop=localhost:50051');
    expect(r.stderr).not.toMatch(/443/);
    expectNothingStarted(r);
  });
});

describe("a dataset that is not there", () => {
  test("validate shows the absolute path, not ../../", async () => {
    const r = await runPincer(["validate", "/nonexistent/ds"]);
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toMatch(/^\/nonexistent\/ds: error: no such file or directory$/m);
  });

  test("check ends with exit 2 and starts no machine", async () => {
    const r = await runPincer(["check", "/nonexistent/ds"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^\/nonexistent\/ds: error: no such file or directory$/m);
    expect(r.stderr).toMatch(/no runnable tasks to check/);
    expect(r.stderr).not.toMatch(/starting \d+ local slot/);
  });
});

describe("a task module without an evaluator", () => {
  test("validate, check and run name what is missing, and run starts no machine", async () => {
    const dir = join(out, "no-evaluator", "m");
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, "noeval.task.ts"),
      [
        'import { defineTask } from "@pincer/controller/datasets";',
        'export default defineTask({ id: "noeval", instruction: "x", environments: ["desktop"], build: () => ({ setup: [] }) as never });',
      ].join("\n"),
    );
    const expected = /noeval\.task\.ts:build: error: the task cannot be built: task noeval: evaluator is missing: give one made with evaluator\(/;
    const validate = await runPincer(["validate", join(out, "no-evaluator")]);
    expect(validate.code).toBe(1);
    expect(validate.stdout).toMatch(expected);
    expect(validate.stdout).not.toMatch(/Cannot read properties/);
    for (const cmd of ["run", "check"]) {
      const r = await runPincer([cmd, join(out, "no-evaluator"), ...(cmd === "run" ? ["--out", join(out, "no-evaluator-out")] : [])]);
      expect(r.code, cmd).toBe(2);
      expect(r.stderr).toMatch(expected);
      expect(r.stderr).not.toMatch(/starting \d+ local slot/);
    }
  });
});

describe("a machine without a screen, for a run that looks at screens", () => {
  test("the run fails before its first task, naming the machine and how to give it a display; a scripted run still goes", async () => {
    const daemon = await spawnDaemon({ env: { DISPLAY: "" } });
    try {
      const model = await pincerIn("no-screen", [
        "run",
        "examples",
        "--task",
        "terminal/write-greeting",
        "--env",
        `desktop=${daemon.address}`,
        "--agent",
        "openai",
        "--model",
        "m",
        "--base-url",
        "http://127.0.0.1:1/v1",
      ]);
      expect(model.code).toBe(1);
      expect(model.stderr).toMatch(/cannot use these machines:\n {2}desktop \(slot 1\): it has no usable screen, and the run takes screenshots: /);
      expect(model.stderr).toMatch(/no X display configured.*pincer-daemon --display :1/);
      expect(model.left).toEqual([]);
      const scripted = await pincerIn("no-screen-scripted", ["run", "examples", "--task", "terminal/write-greeting", "--env", `desktop=${daemon.address}`]);
      expect(scripted.stderr).not.toMatch(/no usable screen/);
      expect(scripted.left).toHaveLength(1);
    } finally {
      await daemon.close();
    }
  });
});

describe("npm run pincer without --", () => {
  /** `npm run pincer <args>` from the repository, as docs/install.md has it. */
  function npmRun(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const child = spawn("npm", ["run", "--silent", "pincer", ...args], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
    return new Promise((res) => child.once("exit", (code) => res({ code, stdout, stderr })));
  }

  test("a flag npm took for itself is named, with the -- that passes it on; with the --, the same command runs", async () => {
    const lost = await npmRun(["validate", "examples", "--task", "terminal/open-clock", "--app", "xterm"]);
    expect(lost.code).toBe(1);
    // npm leaves --task in the environment (npm_config_task); --app it reads as its own -a -p.
    expect(lost.stderr).toMatch(/^pincer: npm took --task for itself: `npm run pincer` passes flags on only after a --, so nothing ran/);
    expect(lost.stderr).toMatch(/npm run pincer -- validate examples --task …/);
    expect(lost.stderr).not.toMatch(/too many arguments/);
    // A flag npm leaves no trace of: commander's error, and what npm did.
    const unnamed = await npmRun(["validate", "examples", "--app", "xterm"]);
    expect(unnamed.code).toBe(1);
    expect(unnamed.stderr).toMatch(/too many arguments for 'validate'[\s\S]*under npm run, flags before a -- go to npm, not to pincer: npm run pincer -- /);
    const passed = await npmRun(["--", "validate", "examples", "--task", "terminal/open-clock"]);
    expect(passed.code, passed.stderr).toBe(0);
    expect(passed.stdout).toMatch(/^1 task\(s\) valid/m);
  });
});
