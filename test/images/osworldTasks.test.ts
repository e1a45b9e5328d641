import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { runPincer } from "../fixtures/cli.js";
import { osworldImage } from "../fixtures/image.js";

// OSWorld's own task files, copied unchanged from xlang-ai/OSWorld's evaluation_examples/examples
// (three apps: os, vlc, chrome), with solutions written for them (<uuid>.solution.json). They need no
// internet access. `pincer check` runs each with its solution (must score 1) and with no actions
// (must score 0), each on a fresh container of a desktop image with VLC and Chromium, as user `user`.
const TASKS = "test/fixtures/osworld";

test("eleven OSWorld tasks from three apps pass pincer check on a container with the apps installed", async () => {
  const image = await osworldImage();
  const validate = await runPincer(["validate", TASKS]);
  expect(validate.stdout).toMatch(/^11 task\(s\) valid; 0 error\(s\), 0 warning\(s\)$/m);
  const r = await runPincer(["check", TASKS, "--provider", "container", "--image", image.dir, "--concurrency", "2"]);
  expect(r.stdout, r.stderr).toMatch(/^11 of 11 tasks check out$/m);
  expect(r.code).toBe(0);
  const apps = new Set([...r.stdout.matchAll(/^ok {3}(\w+)\//gm)].map((m) => m[1]));
  expect([...apps].sort()).toEqual(["chrome", "os", "vlc"]);
});

test("chrome_open_tabs on a real Chromium, and accessibility_tree with check_accessibility_tree on a real GTK terminal", async () => {
  const image = await osworldImage();
  const out = await mkdtemp(join(tmpdir(), "pincer-osworld-chrome-"));
  try {
    const r = await runPincer(["check", "test/fixtures/osworld-synthetic", "--provider", "container", "--image", image.dir]);
    expect(r.stdout, r.stderr).toMatch(/^ok {3}chrome\/open-tabs$/m);
    // The terminal's text, read through the accessibility bus of the image, shows the command's output.
    expect(r.stdout).toMatch(/^ok {3}os\/terminal-text$/m);
    expect(r.stdout).toMatch(/^2 of 2 tasks check out$/m);
    // With the solution, both tabs were listed by Chromium itself (the first check) and counted (the second).
    const run = await runPincer([
      "run",
      "test/fixtures/osworld-synthetic",
      "--task",
      "chrome/*",
      "--provider",
      "container",
      "--image",
      image.dir,
      "--out",
      out,
      "--run-id",
      "r",
    ]);
    expect(run.stdout, run.stderr).toMatch(/tasks 1: passed 1/);
    const attempt = join(out, "r", "chrome", "open-tabs", "attempt-1");
    const fetched = await readdir(join(attempt, "osworld-cache")).catch(() => []);
    expect(fetched).toEqual([]);
    const summary = JSON.parse(await readFile(join(attempt, "summary.json"), "utf8"));
    expect(summary.results).toMatchObject({ state: "passed", score: 1 });
  } finally {
    await rm(out, { recursive: true, force: true });
  }
});
