import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { createRegistries, loadDataset } from "@pincer/controller/datasets";
import { remotePool } from "@pincer/controller/machines";
import { checkHealth, type HealthReport } from "@pincer/controller/runner";
import { spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";

// checkHealth from code, on a remote machine (a real daemon here, reached by address): the health
// check is the provider's business only through the pool. test/fixtures/health-dataset's flaky task
// fails every even attempt of this process, so two runs show it.

let daemon: RunningDaemon;
let work: string;

beforeAll(async () => {
  daemon = await spawnDaemon();
  work = mkdtempSync(join(tmpdir(), "pincer-health-lib-"));
});
afterAll(async () => {
  await daemon?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

test("checkHealth over a remote pool: statuses, runs kept, health.json equal to what it returns", async () => {
  const registries = createRegistries();
  const { tasks, problems } = await loadDataset("test/fixtures/health-dataset", registries);
  expect(problems).toEqual([]);
  const pool = await remotePool([`desktop=${daemon.address}`]);
  const outDir = join(work, "health");
  let report: HealthReport;
  try {
    report = await checkHealth({ tasks, registries, pool, repeat: 2, outDir });
  } finally {
    await pool.close();
  }
  expect(Object.fromEntries(report.perTask.map((t) => [t.key, `${t.status} ${t.passes}/${t.verdicts}`]))).toEqual({
    "t/broken": "broken 0/2",
    "t/flaky": "flaky 1/2",
    "t/good": "healthy 2/2",
    "t/lenient": "too_lenient 2/2",
    "t/steady": "healthy 2/2",
  });
  expect(JSON.parse(readFileSync(join(outDir, "health.json"), "utf8"))).toEqual({ format_version: 1, ...report });
  expect(readFileSync(join(outDir, "health.html"), "utf8")).toContain('<tr data-key="t/flaky" data-status="flaky">');
  for (const run of ["solution-1", "solution-2", "no-actions"]) expect(existsSync(join(outDir, run, "manifest.json"))).toBe(true);
});

test("checkHealth refuses a repeat that is not a whole number ≥ 1 and a folder that is not empty, before running anything", async () => {
  const registries = createRegistries();
  const { tasks } = await loadDataset("test/fixtures/health-dataset", registries);
  const pool = await remotePool([`desktop=${daemon.address}`]);
  try {
    for (const repeat of [0, 2.5, Number.NaN]) {
      await expect(checkHealth({ tasks, registries, pool, repeat, outDir: join(work, "never") })).rejects.toThrow(/repeat must be a whole number ≥ 1/);
    }
    const full = join(work, "full");
    mkdirSync(full);
    writeFileSync(join(full, "mine.txt"), "x");
    await expect(checkHealth({ tasks, registries, pool, repeat: 1, outDir: full })).rejects.toThrow(/is not empty: .* choose another/);
    expect(existsSync(join(work, "never"))).toBe(false);
  } finally {
    await pool.close();
  }
});
