import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { expect, test } from "vitest";
import { runPincer } from "../fixtures/cli.js";
import { osworldImage } from "../fixtures/image.js";

// OSWorld's own task files, copied unchanged from xlang-ai/OSWorld's evaluation_examples/examples
// (os, chrome, vlc, gimp, multi_apps, libreoffice_impress), with solutions written for them
// (<uuid>.solution.json). They need no internet access. `pincer check` runs each with its solution
// (must score 1) and with no actions (must score 0), each on a fresh container of the office image,
// as user `user`. docs/osworld.md lists them, and the tasks left out with the reason.
const TASKS = "test/fixtures/osworld";

/** The task files under TASKS as `app/id`, from their file names (a solution lies beside each). */
async function taskNames(): Promise<string[]> {
  const names: string[] = [];
  for (const app of await readdir(TASKS)) {
    for (const file of await readdir(join(TASKS, app))) if (!file.endsWith(".solution.json")) names.push(`${app}/${basename(file, ".json")}`);
  }
  return names.sort();
}

test("OSWorld's own task files (at least 40, from at least 5 apps) pass pincer check on containers of the office image", async () => {
  const tasks = await taskNames();
  const apps = new Set(tasks.map((t) => t.split("/")[0]));
  expect(tasks.length).toBeGreaterThanOrEqual(40);
  expect(apps.size).toBeGreaterThanOrEqual(5);
  const image = await osworldImage();
  const validate = await runPincer(["validate", TASKS]);
  expect(validate.stdout, validate.stderr).toMatch(new RegExp(`^${tasks.length} task\\(s\\) valid; 0 error\\(s\\), 0 warning\\(s\\)$`, "m"));
  // Two at a time: each container runs a desktop and an application on a machine of two cores.
  const r = await runPincer(["check", TASKS, "--provider", "container", "--image", image.dir, "--concurrency", "2"]);
  const passed = [...r.stdout.matchAll(/^ok {3}(\S+)$/gm)].map((m) => m[1]).sort();
  expect(passed, `${r.stdout}\n${r.stderr}`).toEqual(tasks);
  expect(r.stdout).toMatch(new RegExp(`^${tasks.length} of ${tasks.length} tasks check out$`, "m"));
  expect(r.code).toBe(0);
});

test("a LibreOffice round trip, chrome_open_tabs on a real Chromium, accessibility_tree on a real GTK terminal", async () => {
  const image = await osworldImage();
  const out = await mkdtemp(join(tmpdir(), "pincer-osworld-synthetic-"));
  // Offline, the task's URLs are served from the download cache, filled with `pincer cache add`.
  const env = { ...process.env, PINCER_DOWNLOADS_DIR: join(out, "downloads") };
  try {
    for (const name of ["stock.xlsx", "stock-gold.xlsx"]) {
      const add = await runPincer(["cache", "add", `https://pincer.invalid/osworld/${name}`, `test/fixtures/osworld-synthetic/files/${name}`], { env });
      expect(add.stdout, add.stderr).toMatch(/^added https:\/\/pincer\.invalid\/osworld\/stock/);
    }
    const r = await runPincer(["check", "test/fixtures/osworld-synthetic", "--provider", "container", "--image", image.dir], { env });
    // Download, open in Calc, type, then postconfig's ctrl+s (pyautogui) saves the .xlsx that compare_table reads.
    expect(r.stdout, r.stderr).toMatch(/^ok {3}libreoffice_calc\/total-row$/m);
    expect(r.stdout, r.stderr).toMatch(/^ok {3}chrome\/open-tabs$/m);
    // The terminal's text, read through the accessibility bus of the image, shows the command's output.
    expect(r.stdout).toMatch(/^ok {3}os\/terminal-text$/m);
    expect(r.stdout).toMatch(/^3 of 3 tasks check out$/m);
    // A run keeps what the getters fetched in the attempt: the saved workbook and the expected one.
    const run = await runPincer(
      [
        "run",
        "test/fixtures/osworld-synthetic",
        "--task",
        "libreoffice_calc/*",
        "--provider",
        "container",
        "--image",
        image.dir,
        "--out",
        out,
        "--run-id",
        "r",
      ],
      { env },
    );
    expect(run.stdout, run.stderr).toMatch(/tasks 1: passed 1/);
    const attempt = join(out, "r", "libreoffice_calc", "total-row", "attempt-1");
    expect((await readdir(join(attempt, "osworld-cache"))).sort()).toEqual(["stock-gold.xlsx", "stock.xlsx"]);
    const summary = JSON.parse(await readFile(join(attempt, "summary.json"), "utf8"));
    expect(summary.results).toMatchObject({ state: "passed", score: 1 });
    expect(summary.evaluator.postconfig).toHaveLength(4);
  } finally {
    await rm(out, { recursive: true, force: true });
  }
});
