import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { runMetric } from "../../../packages/controller/src/datasets/osworld/metric.js";
import { pyJsonParse } from "../../../packages/controller/src/datasets/pycompat/pyJson.js";
import { OSWORLD_METRICS } from "../../../packages/controller/src/datasets/osworld/metrics/index.js";

// Every recorded case of test/fixtures/osworld-verdicts (see its README): Pincer's port of each
// metric gives the verdict OSWorld's own Python code gave on the same inputs. The files are read as
// Python's json reads them (a whole float such as 5.0 stays a float) and each metric runs as the
// evaluator runs it.

const DIR = "test/fixtures/osworld-verdicts";

interface VerdictCase {
  name: string;
  result: unknown;
  expected?: unknown;
  options?: unknown;
  /** null: OSWorld returned None (no score), which Pincer scores 0. */
  verdict?: number | null;
  raises?: string;
  pincer?: "error" | "zero";
}

interface VerdictFile {
  metric: string;
  source: string;
  cases: VerdictCase[];
}

/** A getter's value with `{ file }` entries turned into paths under files/. */
function resolveFiles(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(resolveFiles);
  if (value && typeof value === "object" && Object.keys(value).length === 1 && typeof (value as { file?: unknown }).file === "string") {
    return join(DIR, "files", (value as { file: string }).file);
  }
  return value;
}

const files = readdirSync(DIR).filter((f) => f.endsWith(".json"));
const read = (f: string) => pyJsonParse(readFileSync(join(DIR, f), "utf8")) as VerdictFile;

// Metrics that run something on the machine keep their cases in machine/, run against a real daemon
// by test/integration/osworldTestSuite.test.ts.
const machineFiles = readdirSync(join(DIR, "machine")).filter((f) => f.endsWith(".json"));

test("verdicts are recorded for every metric Pincer has", () => {
  const recorded = new Set([...files.map((f) => read(f).metric), ...machineFiles.map((f) => read(join("machine", f)).metric)]);
  expect([...OSWORLD_METRICS.keys()].filter((m) => !recorded.has(m))).toEqual([]);
});

test("every verdict file names a metric Pincer has, its source, and cases with one verdict each", () => {
  for (const f of files) {
    const v = read(f);
    expect(OSWORLD_METRICS.has(v.metric), `${f}: metric ${v.metric}`).toBe(true);
    expect(v.source, f).toMatch(/\S/);
    expect(v.cases.length, f).toBeGreaterThan(0);
    for (const c of v.cases) {
      const kinds = [c.verdict !== undefined, c.raises !== undefined].filter(Boolean).length;
      expect(kinds, `${f}: ${c.name}: give verdict or raises`).toBe(1);
      if (c.raises !== undefined) expect(["error", "zero"], `${f}: ${c.name}: pincer`).toContain(c.pincer);
    }
  }
});

for (const f of files) {
  const v = read(f);
  describe(`${v.metric} (${f})`, () => {
    for (const c of v.cases) {
      test(c.name, async () => {
        const metric = OSWORLD_METRICS.get(v.metric)!;
        const run = () => runMetric(metric, resolveFiles(c.result), resolveFiles(c.expected), c.options);
        if (c.raises !== undefined && c.pincer === "error") {
          await expect(run()).rejects.toThrow();
          return;
        }
        const got = await run();
        expect(got.score, got.reason).toBeCloseTo(c.raises !== undefined ? 0 : Number(c.verdict), 6);
      });
    }
  });
}
