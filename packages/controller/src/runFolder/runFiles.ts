/**
 * The one writer and the one reader of each file of a run folder (see schemas.ts). Writers stamp
 * `format_version` and write atomically; readers validate with the file's schema and say, when a
 * file is wrong, which file, where in it, and what to do. Nothing else in the controller parses
 * these files (test/unit/runFolder.test.ts checks it).
 */
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { appendFile, mkdir, open, readFile, rename } from "node:fs/promises";
import { dirname, join } from "node:path";
import { InvalidArgumentError } from "@pincer/shared";
import type { z } from "zod";
import {
  FORMAT_VERSION,
  type HealthFile,
  healthSchema,
  type ManifestSettings,
  manifestSchema,
  type ReplayFile,
  replayReportSchema,
  type RunManifest,
  type Summary,
  summarySchema,
  TRAJECTORY_LINE_KINDS,
  type TrajectoryLine,
} from "./schemas.js";

/** The file names of a run folder's contract. */
export const RUN_FILES = {
  manifest: "manifest.json",
  summary: "summary.json",
  trajectory: "trajectory.jsonl",
  health: "health.json",
  replay: "replay.json",
} as const;

/** A run folder's file that does not read: names the file, the JSON path of what is wrong, and what to do. */
export class RunFileError extends InvalidArgumentError {
  constructor(
    readonly file: string,
    readonly path: string,
    problem: string,
  ) {
    super(
      `${file}${path ? ` at ${path}` : ""}: ${problem}. ` +
        "It is not a file Pincer wrote, or it was changed or cut short: restore it from the run, or run the task again",
    );
  }
}

/** Writes JSON atomically (temporary file, fsync, rename): a reader sees the old file or the whole new one. */
export async function writeJsonAtomic(path: string, value: unknown): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.${randomBytes(4).toString("hex")}.tmp`;
  const fh = await open(tmp, "w");
  try {
    await fh.writeFile(`${JSON.stringify(value, null, 2)}\n`);
    await fh.sync();
  } finally {
    await fh.close();
  }
  await rename(tmp, path);
}

/** A JSON path as `$.results.metrics.score` / `$.tasks[0].id`. */
function jsonPath(path: readonly PropertyKey[]): string {
  return `$${path.map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`)).join("")}`;
}

/** `value` checked against `schema` and its version; the first problem as a {@link RunFileError}. */
function validated<S extends z.ZodType>(schema: S, value: unknown, file: string): z.infer<S> {
  const version = value && typeof value === "object" ? (value as { format_version?: unknown }).format_version : undefined;
  if (typeof version === "number" && version > FORMAT_VERSION) {
    throw new RunFileError(file, "$.format_version", `format_version ${version} is newer than this Pincer reads (${FORMAT_VERSION}); upgrade Pincer`);
  }
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new RunFileError(file, jsonPath(issue.path), issue.message);
}

/** A JSON file parsed and validated; missing or unparsable files are {@link RunFileError}s too. */
async function readJsonFile<S extends z.ZodType>(schema: S, file: string): Promise<z.infer<S>> {
  if (!existsSync(file)) throw new RunFileError(file, "", "no such file");
  let value: unknown;
  try {
    value = JSON.parse(await readFile(file, "utf8"));
  } catch (err) {
    throw new RunFileError(file, "", `not valid JSON (${(err as Error).message})`);
  }
  return validated(schema, value, file);
}

const stamped = <T extends object>(value: T): T & { format_version: number } => ({ ...value, format_version: FORMAT_VERSION });

/**
 * manifest.json's content, and the one rule for a resume: a run keeps the `started_at` of its first
 * start and adds the time of each resume to `resumed_at`; `finished_at` is dropped until it ends.
 */
export function buildManifest(settings: ManifestSettings, previous?: RunManifest, now = new Date()): RunManifest {
  const at = now.toISOString();
  if (!previous) return { ...settings, started_at: at, resumed: false };
  return { ...settings, started_at: previous.started_at, resumed: true, resumed_at: [...(previous.resumed_at ?? []), at] };
}

/**
 * Starts a run's manifest.json: builds it with {@link buildManifest} (keeping what a resumed run's
 * manifest says of its first start) and writes it. Returns it, for {@link finishManifest}.
 */
export async function startManifest(runDir: string, settings: ManifestSettings, resume: boolean): Promise<RunManifest> {
  const previous = resume && existsSync(join(runDir, RUN_FILES.manifest)) ? await readManifest(runDir) : undefined;
  const manifest = buildManifest(settings, previous);
  await writeManifest(runDir, manifest);
  return manifest;
}

/** Writes manifest.json once the run has ended: the manifest {@link startManifest} wrote, with `finished_at`. */
export async function finishManifest(runDir: string, manifest: RunManifest): Promise<void> {
  await writeManifest(runDir, { ...manifest, finished_at: new Date().toISOString() });
}

/** Writes `<runDir>/manifest.json`. */
export async function writeManifest(runDir: string, manifest: RunManifest): Promise<void> {
  await writeJsonAtomic(join(runDir, RUN_FILES.manifest), stamped(manifest));
}

/** Reads and validates `<runDir>/manifest.json`. */
export async function readManifest(runDir: string): Promise<RunManifest> {
  return readJsonFile(manifestSchema, join(runDir, RUN_FILES.manifest));
}

/** Writes `<attemptDir>/summary.json`. */
export async function writeSummary(attemptDir: string, summary: Summary): Promise<void> {
  await writeJsonAtomic(join(attemptDir, RUN_FILES.summary), stamped(summary));
}

/** Reads and validates `<attemptDir>/summary.json`. */
export async function readSummary(attemptDir: string): Promise<Summary> {
  return readJsonFile(summarySchema, join(attemptDir, RUN_FILES.summary));
}

/** Appends one line to `<attemptDir>/trajectory.jsonl`; the file's first line carries its `format_version`. */
export async function appendTrajectoryLine(attemptDir: string, line: TrajectoryLine): Promise<void> {
  const file = join(attemptDir, RUN_FILES.trajectory);
  await appendFile(file, `${JSON.stringify(existsSync(file) ? line : stamped(line))}\n`);
}

/** A line of trajectory.jsonl parsed as JSON. */
function parsedLine(line: string, where: string): unknown {
  try {
    return JSON.parse(line);
  } catch (err) {
    throw new RunFileError(where, "", `not valid JSON (${(err as Error).message})`);
  }
}

/** A line of trajectory.jsonl checked against the schema of its kind (the field that marks it), so an error names the field. */
function trajectoryLine(value: unknown, where: string): TrajectoryLine {
  const v = (value && typeof value === "object" ? value : {}) as Record<string, unknown>;
  const kind = (["step", "done", "agent_error", "final", "human"] as const).find((k) => v[k] !== undefined);
  if (!kind) throw new RunFileError(where, "$", "the line is none of a step, done, agent_error, final or human (it has none of those fields)");
  return validated(TRAJECTORY_LINE_KINDS[kind], value, where);
}

/**
 * Reads and validates `<attemptDir>/trajectory.jsonl`; empty when there is none. A last line cut
 * short (a run killed mid-write, no newline after it) is left out; any other bad line is an error,
 * or left out too with `skipInvalid` (the run viewer shows what it can of a damaged attempt).
 */
export async function readTrajectory(attemptDir: string, opts: { skipInvalid?: boolean } = {}): Promise<TrajectoryLine[]> {
  const file = join(attemptDir, RUN_FILES.trajectory);
  if (!existsSync(file)) return [];
  const text = await readFile(file, "utf8");
  const lines = text.split("\n");
  const out: TrajectoryLine[] = [];
  for (const [i, line] of lines.entries()) {
    if (!line.trim()) continue;
    const where = `${file} line ${i + 1}`;
    try {
      out.push(trajectoryLine(parsedLine(line, where), where));
    } catch (err) {
      if (opts.skipInvalid || (i === lines.length - 1 && !(err instanceof RunFileError && err.path))) continue;
      throw err;
    }
  }
  return out;
}

/** Writes `<dir>/health.json` (`pincer check --repeat`). */
export async function writeHealth(dir: string, report: HealthFile): Promise<void> {
  await writeJsonAtomic(join(dir, RUN_FILES.health), stamped(report));
}

/** Reads and validates `<dir>/health.json`. */
export async function readHealth(dir: string): Promise<HealthFile> {
  return readJsonFile(healthSchema, join(dir, RUN_FILES.health));
}

/** Writes `<runDir>/replay.json` (`pincer replay`). */
export async function writeReplayReport(runDir: string, report: ReplayFile): Promise<void> {
  await writeJsonAtomic(join(runDir, RUN_FILES.replay), stamped(report));
}

/** Reads and validates `<runDir>/replay.json`. */
export async function readReplayReport(runDir: string): Promise<ReplayFile> {
  return readJsonFile(replayReportSchema, join(runDir, RUN_FILES.replay));
}
