import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { runPincer } from "../fixtures/cli.js";

// A fourth dataset format, made up for the test (test/fixtures/textTaskFormat.ts: `key: value`
// lines in `<name>.task.txt` files), registered without touching Pincer: `--format` on validate,
// check and run reads its tasks as Pincer's own formats are read.

const FORMAT = "test/fixtures/textTaskFormat.ts";
let out: string;
beforeAll(async () => {
  out = await mkdtemp(join(tmpdir(), "pincer-format-"));
});
afterAll(async () => {
  await rm(out, { recursive: true, force: true });
});

test("validate reads the made-up format's tasks, and its problems with their lines", async () => {
  const ok = await runPincer(["validate", "test/fixtures/text-tasks", "--format", FORMAT]);
  expect(ok.stdout, ok.stderr).toMatch(/^2 task\(s\) valid; 0 error\(s\), 0 warning\(s\)$/m);
  expect(ok.code).toBe(0);
  const broken = await runPincer(["validate", "test/fixtures/text-tasks-broken", "--format", FORMAT]);
  expect(broken.stdout).toMatch(/typo\.task\.txt:line 2: error: write one of id, instruction, check, expect, solution, tags/);
  expect(broken.stdout).toMatch(/typo\.task\.txt:instruction: error: give instruction/);
  expect(broken.code).toBe(1);
  // Without --format, nothing there is a task.
  const unknown = await runPincer(["validate", "test/fixtures/text-tasks"]);
  expect(unknown.stdout).toMatch(/no tasks found/);
  expect(unknown.code).toBe(1);
});

test("check proves the made-up format's tasks on local machines, and run scores them", async () => {
  const check = await runPincer(["check", "test/fixtures/text-tasks", "--format", FORMAT]);
  expect(check.stdout, check.stderr).toMatch(/^ok {3}files\/count$/m);
  expect(check.stdout).toMatch(/^ok {3}files\/greet$/m);
  expect(check.stdout).toMatch(/^2 of 2 tasks check out$/m);
  expect(check.code).toBe(0);
  const run = await runPincer(["run", "test/fixtures/text-tasks", "--format", FORMAT, "--task", "greet", "--out", out, "--run-id", "r"]);
  expect(run.stdout, run.stderr).toMatch(/tasks 1: passed 1/);
  const summary = JSON.parse(await readFile(join(out, "r", "files", "greet", "attempt-1", "summary.json"), "utf8"));
  expect(summary.results).toMatchObject({ state: "passed", score: 1, eval_reason: 'prints "hello"' });
  expect(summary).toMatchObject({ id: "greet", instruction: "Write hello into /tmp/greet.txt.", environments: ["desktop"] });
});

test("a --format module that is not a format says what it must export", async () => {
  const r = await runPincer(["validate", "test/fixtures/text-tasks", "--format", "test/fixtures/tasks.ts"]);
  expect(r.stderr).toMatch(/--format test\/fixtures\/tasks\.ts: its default export must be a dataset format: export default defineDatasetFormat/);
  expect(r.code).not.toBe(0);
});
