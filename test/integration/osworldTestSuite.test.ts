import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { OsworldContext } from "../../packages/controller/src/datasets/osworld/context.js";
import { DownloadCache } from "../../packages/controller/src/datasets/osworld/downloadCache.js";
import { runMetric } from "../../packages/controller/src/datasets/osworld/metric.js";
import { OSWORLD_METRICS } from "../../packages/controller/src/datasets/osworld/metrics/index.js";
import { spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";

// OSWorld's check_python_file_by_test_suite runs the task's test file on the evaluating host;
// Pincer runs it on the machine with the machine's python3. The recorded cases of
// test/fixtures/osworld-verdicts/machine/ (OSWorld's own verdicts, see its README) run here against a
// real daemon, and each must give OSWorld's verdict.

const DIR = "test/fixtures/osworld-verdicts";
const recorded = JSON.parse(readFileSync(join(DIR, "machine/check_python_file_by_test_suite.json"), "utf8")) as {
  cases: Array<{ name: string; result: unknown; fetched?: unknown[]; expected: unknown; options?: unknown; verdict?: number; raises?: string }>;
};
let cases = 0;
/**
 * A case's files as OSWorld's getters leave them: copied side by side into a fresh cache folder under
 * their names (`{ file }` entries become paths there; `fetched` ones are there but not given to the
 * metric), the way its verdicts were recorded.
 */
function inCacheFolder(c: { result: unknown; fetched?: unknown[]; expected: unknown }): { result: unknown; expected: unknown; cacheDir: string } {
  const cacheDir = join(base, `attempt-${++cases}`, "osworld-cache");
  mkdirSync(cacheDir, { recursive: true });
  const place = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(place);
    if (!v || typeof v !== "object" || !("file" in v)) return v;
    const source = join(DIR, "files", String((v as { file: string }).file));
    copyFileSync(source, join(cacheDir, basename(source)));
    return join(cacheDir, basename(source));
  };
  place(c.fetched ?? []);
  return { result: place(c.result), expected: place(c.expected), cacheDir };
}

let daemon: RunningDaemon;
let base: string;
const logs: string[] = [];

beforeAll(async () => {
  daemon = await spawnDaemon();
  base = mkdtempSync(join(tmpdir(), "pincer-osworld-suite-"));
});

afterAll(async () => {
  await daemon?.close();
  if (base) rmSync(base, { recursive: true, force: true });
});

function context(cacheDir = base): OsworldContext {
  return {
    env: daemon.env,
    signal: new AbortController().signal,
    cacheDir,
    downloads: new DownloadCache(join(base, "downloads"), async () => new Response("")),
    password: "password",
    log: (line) => logs.push(line),
  };
}

const metric = OSWORLD_METRICS.get("check_python_file_by_test_suite")!;

describe("check_python_file_by_test_suite runs the test on the machine, with OSWorld's verdicts", () => {
  for (const c of recorded.cases) {
    test(c.name, async () => {
      const placed = inCacheFolder(c);
      const got = await runMetric(metric, placed.result, placed.expected, c.options, context(placed.cacheDir));
      expect(got.score, got.reason).toBeCloseTo(c.raises !== undefined ? 0 : Number(c.verdict), 6);
    });
  }

  test("the folder it made on the machine is removed", async () => {
    const placed = inCacheFolder(recorded.cases[0]!);
    await runMetric(metric, placed.result, placed.expected, recorded.cases[0]!.options, context(placed.cacheDir));
    const left = await daemon.env.process.run(["sh", "-c", "ls -d /tmp/pincer-test-suite-?????? 2>/dev/null | wc -l"]);
    expect(left.stdout.trim()).toBe("0");
  });
});

test("without a machine it does not run the test (never on the controller)", async () => {
  const placed = inCacheFolder(recorded.cases[0]!);
  await expect(runMetric(metric, placed.result, placed.expected, recorded.cases[0]!.options)).rejects.toThrow(/on the machine/);
});
