import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import type { DatasetTask } from "../../packages/controller/src/datasets/format.js";
import { lostSummary, refusedSummary } from "../../packages/controller/src/queue/lostAttempts.js";
import { readRunManifest } from "../../packages/controller/src/replay/source.js";
import { readManifestFields, readTrajectoryLines } from "../../packages/controller/src/reports/viewerData.js";
import { ResultStore } from "../../packages/controller/src/runFolder/results.js";
import {
  appendTrajectoryLine,
  buildManifest,
  readHealth,
  readManifest,
  readReplayReport,
  readSummary,
  readTrajectory,
  startManifest,
  finishManifest,
  writeHealth,
  writeManifest,
  writeReplayReport,
  writeSummary,
} from "../../packages/controller/src/runFolder/runFiles.js";
import {
  type HealthFile,
  manifestSchema,
  type ReplayFile,
  type RunManifest,
  type Summary,
  summarySchema,
  type TrajectoryLine,
} from "../../packages/controller/src/runFolder/schemas.js";
import { attemptResults } from "../../packages/controller/src/runner/summary.js";
import { AttemptUsage } from "../../packages/controller/src/runner/usage.js";

const ROOT = resolve(import.meta.dirname, "../..");
const CONTROLLER = join(ROOT, "packages/controller/src");
const FIXTURE = join(ROOT, "test/fixtures/run-folder-v0");
const work = mkdtempSync(join(tmpdir(), "pincer-run-folder-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === "generated" ? [] : sources(path);
    return path.endsWith(".ts") ? [path] : [];
  });
}

/** The controller's sources outside runFolder/ (where the one reader and writer of each file live), by path. */
function controllerFiles(): Map<string, string> {
  const files = sources(CONTROLLER).filter((f) => !relative(CONTROLLER, f).startsWith("runFolder/"));
  return new Map(files.map((f) => [f, readFileSync(f, "utf8")]));
}

/** The types of the run folder's files: a JSON.parse cast to one is a reader of its own. */
const FILE_TYPES =
  /\bas\s+(?:Partial<\s*)?(?:Summary|TaskResults|TrajectoryLine|RunManifest|RunManifestFields|HealthReport|HealthFile|ReplayReport|ReplayFile)\b/;
/** The run folder's files, as code names them. */
const FILE_NAMES = /["'`](?:summary\.json|manifest\.json|trajectory\.jsonl|health\.json|replay\.json)["'`]/;
/** How many lines before a JSON.parse a file name counts as the file it parses (a path kept in a variable first). */
const WINDOW = 8;

/**
 * JSON.parse calls that read a run folder's file outside runFolder/: a parse whose result is cast
 * to one of the files' types, or one within a few lines after a file's name. As "file:line: text".
 */
function ownParsers(files: ReadonlyMap<string, string>): string[] {
  const out: string[] = [];
  for (const [file, text] of files) {
    const lines = text.split("\n");
    for (const [i, line] of lines.entries()) {
      if (!line.includes("JSON.parse(")) continue;
      const statement = lines.slice(i, i + 3).join(" ");
      const cast = FILE_TYPES.test(statement.slice(statement.indexOf("JSON.parse(")).split(";")[0]!);
      const named = lines.slice(Math.max(0, i - WINDOW), i + 1).some((l) => FILE_NAMES.test(l));
      if (cast || named) out.push(`${relative(ROOT, file)}:${i + 1}: ${line.trim()}`);
    }
  }
  return out;
}

describe("nothing outside runFolder/ parses the run folder's files", () => {
  test("the controller reads them only through runFolder/'s readers", () => {
    expect(ownParsers(controllerFiles())).toEqual([]);
  });

  test("planted readers of today's kind are caught: a cast parse, a parse of a named file, a parse of a path named lines before", () => {
    const files = controllerFiles();
    const planted = new Map(files);
    const add = (rel: string, code: string) => planted.set(join(CONTROLLER, rel), `${files.get(join(CONTROLLER, rel))}\n${code}\n`);
    // The lines runFolder/results.ts, queue/coordinator.ts and replay/source.ts had before the readers.
    add("health/check.ts", 'const s = { summary: JSON.parse(await readFile(file, "utf8")) as Summary };');
    add(
      "queue/gather.ts",
      'const previous = existsSync(join(runDir, "manifest.json")) ? JSON.parse(await readFile(join(runDir, "manifest.json"), "utf8")) : undefined;',
    );
    add(
      "reports/report.ts",
      [
        "async function m(dir: string) {",
        '  const file = join(dir, "manifest.json");',
        "  let m: Partial<Thing>;",
        "  try {",
        '    m = JSON.parse(await readFile(file, "utf8"));',
        "  } catch {}",
        "}",
      ].join("\n"),
    );
    add("replay/replay.ts", "const lines = text.split('\\n').map((l) => JSON.parse(l) as TrajectoryLine);");
    const found = ownParsers(planted).map((l) => l.split(":")[0]);
    expect(found.sort()).toEqual(["health/check.ts", "queue/gather.ts", "replay/replay.ts", "reports/report.ts"].map((f) => `packages/controller/src/${f}`));
  });
});

/** A task as the queue's lost-attempt summaries need it. */
const task = {
  id: "write-greeting",
  tool: "terminal",
  kind: "json",
  fields: { id: "write-greeting", instruction: "Create the file", tags: ["cli"], related_apps: ["bash"] },
} as unknown as DatasetTask;

const METRICS = {
  completionRatio: 1,
  score: 1,
  reason: "the texts match",
  success: true,
  actions: 1,
  tokens: 0,
  executionEfficiency: 1,
  costEfficiency: null,
  stepsToComplete: 1,
  longestUnfinishedPath: 0,
  passedNodes: ["evaluation"],
};

/** A summary as an attempt writes it, through the one builder of `results`. */
function attemptSummary(): Summary {
  const settings = { kind: "json", attempt: 1, maxSteps: 7, maxStepsRule: "fixed 7", agent: { name: "scripted", model: "" }, addresses: { desktop: "local" } };
  const record = {
    started: Date.now() - 1000,
    messages: [{ role: "user", content: "go" }],
    usage: new AttemptUsage(),
    daemonVersions: {},
    teardownError: null,
  };
  return { ...task.fields, id: task.id, results: attemptResults(settings, record, { reason: "success", error: null, metrics: METRICS, steps: 1 }) };
}

const LINES: TrajectoryLine[] = [
  { turn: 1, step: 1, tool: "desktop__click", args: { x: 1 }, ok: true, result: null, evaluation: { score: 0 }, reason: null, duration_ms: 3, at_ms: 1 },
  { turn: 2, step: 2, tool: "desktop__type", args: {}, ok: false, error: { type: "Unavailable", message: "gone" }, reason: "env_error", model_ms: 5 },
  { turn: 3, done: true, at_ms: 9, evaluation: { success: true }, message: "done", model_ms: 4 },
  { turn: 4, agent_error: "agent: no reply", at_ms: 10 },
  { turn: 5, final: true, screenshots: { desktop: "screenshots/turn-005-desktop.jpg" } },
];

describe("each file through its writer and its reader", () => {
  test("manifest.json, summary.json and trajectory.jsonl come back as written, with format_version 1", async () => {
    const dir = join(work, "round");
    mkdirSync(dir, { recursive: true });
    const manifest = buildManifest({ run_id: "r", tasks: [{ id: "a", tool: "t" }], attempts: 1, settle: "auto", accessibility: null });
    await writeManifest(dir, manifest);
    expect(await readManifest(dir)).toEqual({ ...manifest, format_version: 1 });
    const summary = attemptSummary();
    await writeSummary(dir, summary);
    expect(await readSummary(dir)).toEqual({ ...summary, format_version: 1 });
    for (const line of LINES) await appendTrajectoryLine(dir, line);
    // The file's version is on its first line.
    expect(await readTrajectory(dir)).toEqual(LINES.map((l, i) => (i === 0 ? { ...l, format_version: 1 } : l)));
  });

  test("health.json and replay.json come back as written", async () => {
    const dir = join(work, "round-2");
    const health = JSON.parse(readFileSync(join(FIXTURE, "health/health.json"), "utf8")) as HealthFile;
    await writeHealth(dir, health);
    expect(await readHealth(dir)).toEqual({ ...health, format_version: 1 });
    const replay = JSON.parse(readFileSync(join(FIXTURE, "replay/replay.json"), "utf8")) as ReplayFile;
    await writeReplayReport(dir, replay);
    expect(await readReplayReport(dir)).toEqual({ ...replay, format_version: 1 });
  });

  test("a lost attempt's summary is built as every attempt's results are, with its worker, and reads back", async () => {
    const lost = lostSummary(task, { attempt: 2, worker: "w1", started: Date.now() - 5000 });
    expect(summarySchema.parse(lost)).toEqual(lost);
    expect(lost.results).toMatchObject({ state: "env_error", end_reason: "env_error", agent_state: null, score: 0, worker: "w1", attempt: 2 });
    expect(lost.results.metrics).toBeUndefined();
    expect(lost.results.total_timing.total_ms).toBeGreaterThanOrEqual(5000);
    // Every field a finished attempt has, the lost one has too: one builder.
    expect(Object.keys(lost.results).sort()).toEqual([...Object.keys(attemptSummary().results).filter((k) => k !== "metrics"), "worker"].sort());
    const dir = join(work, "lost");
    await writeSummary(dir, refusedSummary(task, { attempt: 1, worker: "w2", reason: "unsigned" }));
    expect((await readSummary(dir)).results.error).toMatch(/from worker w2 was refused: unsigned/);
  });

  test("a resume keeps the first started_at and adds its own to resumed_at; the end adds finished_at", async () => {
    const dir = join(work, "resume");
    mkdirSync(dir, { recursive: true });
    const settings = { run_id: "r", tasks: [{ id: "a", tool: "t" }] };
    const first = await startManifest(dir, settings, false);
    await finishManifest(dir, first);
    expect((await readManifest(dir)).finished_at).toBeDefined();
    const second = await startManifest(dir, settings, true);
    const third = await startManifest(dir, settings, true);
    expect(second.started_at).toBe(first.started_at);
    expect(third).toMatchObject({ started_at: first.started_at, resumed: true, resumed_at: [second.resumed_at![0], expect.any(String)] });
    expect(third.finished_at).toBeUndefined();
    expect((await readManifest(dir)).resumed_at).toHaveLength(2);
  });
});

describe("a file that does not read is an error naming the file and where", () => {
  test("summary.json with a wrong field", async () => {
    const dir = join(work, "bad-summary");
    const summary = attemptSummary();
    await writeSummary(dir, { ...summary, results: { ...summary.results, score: "high" as unknown as number } });
    await expect(readSummary(dir)).rejects.toThrow(`${join(dir, "summary.json")} at $.results.score: `);
    await expect(readSummary(dir)).rejects.toThrow(/expected number.*restore it from the run, or run the task again/);
  });

  test("manifest.json without tasks, a newer format_version, JSON that does not parse", async () => {
    const dir = join(work, "bad-manifest");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "manifest.json"), JSON.stringify({ run_id: "r", started_at: "now" }));
    await expect(readManifest(dir)).rejects.toThrow(`${join(dir, "manifest.json")} at $.tasks: `);
    writeFileSync(join(dir, "manifest.json"), JSON.stringify({ run_id: "r", started_at: "now", tasks: [], format_version: 9 }));
    await expect(readManifest(dir)).rejects.toThrow(/at \$\.format_version: format_version 9 is newer than this Pincer reads \(1\); upgrade Pincer/);
    writeFileSync(join(dir, "manifest.json"), "{ not json");
    await expect(readManifest(dir)).rejects.toThrow(/manifest\.json: not valid JSON/);
  });

  test("a trajectory line names its line and field; a last line cut short is left out", async () => {
    const dir = join(work, "bad-trajectory");
    mkdirSync(dir, { recursive: true });
    const file = join(dir, "trajectory.jsonl");
    writeFileSync(file, `${JSON.stringify({ turn: 1, step: 1, tool: "t", args: {}, ok: true })}\n{"turn": 2, "st`);
    expect(await readTrajectory(dir)).toHaveLength(1);
    writeFileSync(file, `${JSON.stringify({ turn: 1, step: 1, tool: "t", args: {}, ok: "yes" })}\n`);
    await expect(readTrajectory(dir)).rejects.toThrow(`${file} line 1 at $.ok: `);
    writeFileSync(file, `${JSON.stringify({ turn: 1 })}\n`);
    await expect(readTrajectory(dir)).rejects.toThrow(/line 1 at \$: the line is none of a step, done, agent_error, final or human/);
    // The viewer shows what it can of a damaged attempt.
    expect(await readTrajectoryLines(dir)).toEqual([]);
  });
});

describe("a run folder written before format_version (test/fixtures/run-folder-v0) reads", () => {
  const run = join(work, "v0");
  cpSync(FIXTURE, run, { recursive: true });

  test("its manifests: a resumed run's, its first start's, a replay's", async () => {
    const m = await readManifest(run);
    expect(m).toMatchObject({ run_id: "v0", resumed: true, attempts: 1, dataset: { formats: [] } });
    expect(m.tasks.map((t) => `${t.tool}/${t.id}`)).toEqual(["files/sort-inbox", "terminal/write-greeting"]);
    expect(m.format_version).toBeUndefined();
    expect(manifestSchema.parse(JSON.parse(readFileSync(join(run, "manifest-first.json"), "utf8")))).toMatchObject({ resumed: false });
    expect((await readRunManifest(join(run, "replay"))).replay_of).toMatchObject({ run_id: "v0" });
    expect((await readManifestFields(run)).run_id).toBe("v0");
  });

  test("its summaries and trajectories, through the run folder's store", async () => {
    const store = new ResultStore(run);
    for (const [tool, id] of [
      ["terminal", "write-greeting"],
      ["files", "sort-inbox"],
    ] as const) {
      const [first] = await store.finishedAttempts(tool, id);
      expect(first!.summary.results).toMatchObject({ state: "passed", score: 1, metrics: { success: true, score: 1 } });
      const lines = await store.readTrajectory(tool, id, 1);
      expect(lines.some((l) => l.step === 1 && l.ok)).toBe(true);
      expect(lines.at(-1)?.final).toBe(true);
    }
  });

  test("a lost attempt's summary as the queue wrote it (metrics {}) reads with no metrics", async () => {
    const lost = await readSummary(join(run, "lost-attempt"));
    expect(lost.results).toMatchObject({ state: "env_error", worker: "worker-a" });
    expect(lost.results.metrics).toBeUndefined();
  });

  test("health.json and replay.json", async () => {
    expect((await readHealth(join(run, "health"))).perTask[0]).toMatchObject({ key: "terminal/write-greeting", status: "healthy" });
    expect((await readReplayReport(join(run, "replay"))).per_task[0]).toMatchObject({ task: "terminal/write-greeting", outcome: "same" });
  });
});

/** Every key an object schema names, nested ones included (through optional, nullable, arrays, records, unions, pipes). */
function schemaKeys(schema: unknown, out = new Set<string>()): Set<string> {
  const def = (schema as { _zod?: { def?: Record<string, unknown> } })._zod?.def;
  if (!def) return out;
  if (def.type === "object") {
    for (const [k, v] of Object.entries(def.shape as Record<string, unknown>)) {
      out.add(k);
      schemaKeys(v, out);
    }
  }
  for (const inner of [def.innerType, def.element, def.valueType, def.in, def.out]) if (inner) schemaKeys(inner, out);
  for (const option of (def.options as unknown[] | undefined) ?? []) schemaKeys(option, out);
  return out;
}

/** The names in backticks of a section of docs/results.md (its heading to the next `## `); flags and values left out. */
function docNames(heading: string): Set<string> {
  const text = readFileSync(join(ROOT, "docs/results.md"), "utf8");
  const start = text.indexOf(`\n## ${heading}\n`);
  expect(start, `docs/results.md has a section "## ${heading}"`).toBeGreaterThan(-1);
  const end = text.indexOf("\n## ", start + 1);
  const section = text.slice(start, end === -1 ? undefined : end);
  return new Set([...section.matchAll(/`([a-z_][A-Za-z0-9_]*)`/g)].map((m) => m[1]!).filter((n) => n !== "auto"));
}

describe("docs/results.md describes the schemas", () => {
  test("summary.json: every field of results is named, and every name is a field", () => {
    const named = docNames("summary.json");
    const results = (summarySchema.shape.results as unknown as { shape: Record<string, unknown> }).shape;
    expect(Object.keys(results).filter((k) => !named.has(k))).toEqual([]);
    const keys = schemaKeys(summarySchema);
    expect([...named].filter((n) => !keys.has(n))).toEqual([]);
  });

  test("manifest.json: every field is named, and every name is a field", () => {
    const named = docNames("manifest.json");
    const keys = schemaKeys(manifestSchema);
    expect([...keys].filter((k) => !named.has(k) && k !== "format_version")).toEqual([]);
    expect([...named].filter((n) => !keys.has(n))).toEqual([]);
  });

  test("the contract's section names format_version and the files", () => {
    const text = readFileSync(join(ROOT, "docs/results.md"), "utf8");
    for (const word of ["format_version", "resumed_at", "health.json", "replay.json", "trajectory.jsonl"]) expect(text).toContain(word);
  });
});

// RunManifest is the reader's type: a manifest built for writing is one.
const _typed: RunManifest = buildManifest({ run_id: "r", tasks: [] });
void _typed;
