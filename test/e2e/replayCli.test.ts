import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { TrajectoryLine } from "@pincer/controller/runner";
import { ROOT, runPincer } from "../fixtures/cli.js";
import { launchChromium } from "../fixtures/chromium.js";

const FOLDER = "/tmp/pincer-replay-test";
const SEED = `rm -rf ${FOLDER} && mkdir -p ${FOLDER} && printf 'seed\\n' > ${FOLDER}/in.txt`;

/** A JSON task `t/<id>` whose setup runs `setup`, solved by `steps` (run_command), judged by comparing a file with `expected`. */
function writeTask(root: string, id: string, setup: string, steps: string[], file: string, expected: string): void {
  const dir = join(root, "t", id);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "expected.txt"), expected);
  const task = {
    id,
    instruction: `Make ${file} hold ${JSON.stringify(expected)}.`,
    config: [{ func: "execute", arguments: { command: setup } }],
    evaluation: { func: "compare_text_file", arguments: { local_expected: "expected.txt", vm_result: file } },
  };
  writeFileSync(join(dir, `${id}.json`), JSON.stringify(task, null, 2));
  writeFileSync(join(dir, "solution.json"), JSON.stringify(steps.map((command) => ({ tool: "desktop__run_command", args: { command } }))));
}

/** The dataset: `copy` needs the file its setup seeds (step 2 reads it); `greet` needs nothing. */
function writeDataset(root: string, seedCopy: boolean): void {
  writeTask(
    root,
    "copy",
    seedCopy ? SEED : `rm -rf ${FOLDER} && mkdir -p ${FOLDER}`,
    [`mkdir -p ${FOLDER}/work && echo made`, `cat ${FOLDER}/in.txt`, `cp ${FOLDER}/in.txt ${FOLDER}/out.txt`],
    `${FOLDER}/out.txt`,
    "seed\n",
  );
  writeTask(root, "greet", "mkdir -p /tmp/pincer-greet", ["sleep 0.3", "printf 'hello\\n' > /tmp/pincer-greet/g.txt"], "/tmp/pincer-greet/g.txt", "hello\n");
}

const trajectory = (dir: string) =>
  readFileSync(join(dir, "trajectory.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as TrajectoryLine);
const json = (file: string) => JSON.parse(readFileSync(file, "utf8"));

let work: string;
let data: string;
let out: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "pincer-replay-"));
  data = join(work, "dataset");
  out = join(work, "results");
  writeDataset(data, true);
  const r = await runPincer(["run", data, "--agent", "scripted", "--out", out, "--run-id", "original", "--strict"]);
  expect(r.code, r.stderr + r.stdout).toBe(0);
});

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("pincer replay", () => {
  test("a scripted run replayed on fresh machines: the same scores and action results, with the recorded waits; no divergence", async () => {
    const r = await runPincer(["replay", join(out, "original"), "--out", out, "--run-id", "same"]);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(r.stdout).toMatch(/replay of original: 2 task\(s\); 2 with the same outcome \(score and state\), 0 different; 0 diverged at some step/);
    const replay = json(join(out, "same", "replay.json"));
    expect(replay).toMatchObject({ run_id: "same", replay_of: { run_id: "original", run_dir: join(out, "original") }, tasks: 2, same_outcome: 2, diverged: 0 });
    for (const t of replay.per_task) expect(t).toMatchObject({ outcome: "same", first_divergence: null, diverging_steps: [], waits: "recorded" });
    expect(json(join(out, "same", "manifest.json")).replay_of).toEqual({ run_id: "original", run_dir: join(out, "original") });
    for (const id of ["copy", "greet"]) {
      const a = join(out, "original", "t", id, "attempt-1");
      const b = join(out, "same", "t", id, "attempt-1");
      expect(json(join(b, "summary.json")).results).toMatchObject({ score: 1, state: "passed", agent: "replay" });
      const steps = (lines: TrajectoryLine[]) =>
        lines.filter((l) => l.step).map(({ step, tool, args, ok, result, error }) => ({ step, tool, args, ok, result, error }));
      expect(steps(trajectory(b))).toEqual(steps(trajectory(a)));
    }
    // Each step records when it acted, which the replay keeps (waits: "recorded", above).
    for (const run of ["original", "same"]) {
      expect(
        trajectory(join(out, run, "t", "greet", "attempt-1"))
          .filter((l) => l.step)
          .every((l) => typeof l.at_ms === "number"),
      ).toBe(true);
    }
    expect(existsSync(join(out, "same", "compare.html"))).toBe(true);
  });

  test("a task changed under the replay: its first diverging step is named, with what differed; the comparison page shows both runs", async () => {
    // The dataset's setup no longer seeds the file the task's step 2 reads.
    writeDataset(data, false);
    const r = await runPincer(["replay", join(out, "original"), "--out", out, "--run-id", "diverged"]);
    writeDataset(data, true);
    expect(r.code, r.stderr + r.stdout).toBe(1);
    expect(r.stderr).toMatch(/warning: t\/copy changed since the run/);
    expect(r.stdout).toMatch(/1 with the same outcome \(score and state\), 1 different; 1 diverged at some step/);
    expect(r.stdout).toMatch(
      /^ {2}t\/copy: score 1 → 0; state passed → failed; first diverging step 2 \(desktop__run_command\): another result: .*No such file/m,
    );
    const replay = json(join(out, "diverged", "replay.json"));
    const copy = replay.per_task.find((t: { task: string }) => t.task === "t/copy");
    expect(copy).toMatchObject({ outcome: "different", task_changed: true, first_divergence: { step: 2, tool: "desktop__run_command" } });
    expect(copy.first_divergence.differences.map((d: { kind: string }) => d.kind)).toContain("result");
    expect(copy.first_divergence.differences[0].original).toMatchObject({ exit_code: 0, stdout: "seed\n" });
    expect(copy.first_divergence.differences[0].replay).toMatchObject({ exit_code: 1 });
    expect(replay.per_task.find((t: { task: string }) => t.task === "t/greet")).toMatchObject({ outcome: "same", first_divergence: null });

    const browser = await launchChromium("the comparison page test");
    try {
      const page = await browser.newPage({ viewport: { width: 1500, height: 1000 } });
      const problems: string[] = [];
      page.on("pageerror", (e) => problems.push(e.message));
      page.on("request", (q) => {
        if (!q.url().startsWith("file:")) problems.push(`request: ${q.url()}`);
      });
      await page.goto(pathToFileURL(join(out, "diverged", "compare.html")).href);
      const row = page.locator('#tasks tr[data-key="t/copy"]');
      await expect.poll(() => row.getAttribute("data-outcome")).toBe("different");
      expect(await row.locator("td.divergence").textContent()).toMatch(/^step 2 \(desktop__run_command\): another result/);
      await row.click();
      const first = page.locator('#step-list button[data-divergence="first"]');
      expect(await first.textContent()).toBe("2 run_commandfirst divergence");
      await first.click();
      expect(await page.locator(".step-title").textContent()).toBe("Step 2 · the first divergence");
      // In words, not JSON: each field of the result that differs, as it was → as it became.
      const result = (await page.locator('.differences li[data-kind="result"]').textContent())!;
      expect(result).toMatch(/^another result: exit_code 0 → 1; /);
      expect(result).toMatch(/stdout "seed\\n" → ""/);
      expect([result, await row.locator("td.divergence").textContent()].filter((t) => t!.includes('{"'))).toEqual([]);
      const original = page.locator('.side[data-side="original"]');
      const replayed = page.locator('.side[data-side="replay"]');
      // The evaluation's nodes named as the run page names them: before a run's last evaluation, a node that did not hold is pending.
      for (const side of [original, replayed]) expect(await side.locator(".node").getAttribute("data-status")).toBe("pending");
      expect(await replayed.locator(".eval-reason").textContent()).toMatch(/^why: /);
      expect(await original.locator("pre.result").textContent()).toContain('"stdout": "seed\\n"');
      expect(await replayed.locator("pre.result").textContent()).toMatch(/"exit_code": 1[\s\S]*No such file/);
      // Both screenshots load: the original's from its own run folder, beside the replay's.
      for (const side of [original, replayed]) {
        const img = side.locator("figure.shot img");
        await expect.poll(() => img.evaluate((e) => (e as unknown as { naturalWidth: number }).naturalWidth)).toBe(1280);
      }
      expect(await original.locator("figure.shot img").getAttribute("src")).toBe("../original/t/copy/attempt-1/screenshots/turn-002-desktop.jpg");
      await page.screenshot({ path: join(ROOT, ".tmp", "replay-compare.png") });
      // Step 3: the original's last evaluation (final: passed); the replay's last comes when its agent is done.
      await page.keyboard.press("ArrowRight");
      expect(await page.locator('.differences li[data-kind="evaluation"]').textContent()).toBe(
        "the evaluation after the step: node evaluation passed → pending; goal reached → not reached",
      );
      expect(await original.locator(".node").getAttribute("data-status")).toBe("passed");
      expect(await replayed.locator(".node").getAttribute("data-status")).toBe("pending");
      // Step 1 agrees.
      await page.keyboard.press("ArrowLeft");
      await page.keyboard.press("ArrowLeft");
      expect(await page.locator(".differences").getAttribute("data-differences")).toBe("0");
      expect(problems).toEqual([]);
    } finally {
      await browser.close();
    }
  });

  test("bad input says what to do: not a run, a run still in progress, a task the run lacks, a dataset that is gone", async () => {
    const notRun = await runPincer(["replay", data]);
    expect(notRun.code).not.toBe(0);
    expect(notRun.stderr).toMatch(/is not a run folder: it has no manifest\.json/);
    const running = join(work, "running");
    cpSync(join(out, "original"), running, { recursive: true });
    const m = json(join(running, "manifest.json"));
    delete m.finished_at;
    writeFileSync(join(running, "manifest.json"), JSON.stringify(m));
    const none = join(work, "none");
    const r1 = await runPincer(["replay", running, "--out", none]);
    expect(r1.stderr).toMatch(/run original has not finished .*let it finish, or finish it with pincer run DATASET --resume --run-id original/);
    const r2 = await runPincer(["replay", join(out, "original"), "--task", "nope", "--out", none]);
    expect(r2.stderr).toMatch(/--task "nope" matches no task of run original \(its tasks: t\/copy, t\/greet\)/);
    const moved = join(work, "moved");
    renameSync(data, moved);
    try {
      const r3 = await runPincer(["replay", join(out, "original"), "--out", none]);
      expect(r3.stderr).toMatch(/the dataset run original came from, .*dataset, is gone: restore it, or give the folder it lives in now with --dataset DIR/);
      for (const r of [r1, r2, r3]) expect(r.code).not.toBe(0);
      // Nothing half-written: no run folder was started.
      expect(existsSync(none)).toBe(false);
    } finally {
      renameSync(moved, data);
    }
  });
});
