import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { InvalidArgumentError, UnimplementedError } from "@pincer/shared";
import type { DatasetTask } from "../datasets/format.js";
import { loadDataset } from "../datasets/loader.js";
import type { Registries } from "../datasets/registries.js";
import { noMachineEnv, type Env } from "../env/index.js";
import { buildBenchmark, environmentsOf } from "../runner/taskBuilder.js";
import { DEFAULT_MAX_STEPS, DEFAULT_TIME_LIMIT_MS } from "../tasks/task.js";

/** The folder of a run folder where tasks sent as OSWorld JSON are kept, one file per task id. */
export const SENT_TASKS_DIR = "sent-tasks";

/**
 * An OSWorld task sent as the JSON of one example file, checked and loaded as `pincer validate`
 * loads one: written to `<runDir>/sent-tasks/osworld/<id>.json` (so the run folder keeps what ran),
 * loaded through the dataset formats, then built on machine-less environments. An invalid task is
 * INVALID_ARGUMENT listing its problems; one that needs functions Pincer lacks, UNIMPLEMENTED.
 */
export async function loadSentOsworldTask(json: string, runDir: string, registries: Registries): Promise<DatasetTask> {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch (err) {
    throw InvalidArgumentError.forField("osworld_task_json", `not JSON: ${(err as Error).message}`);
  }
  const id = (raw as { id?: unknown } | null)?.id;
  if (typeof id !== "string" || !/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(id)) {
    throw InvalidArgumentError.forField("osworld_task_json", "an OSWorld task is a JSON object whose id is a name of letters, digits, '.', '_' and '-'");
  }
  const dir = join(runDir, SENT_TASKS_DIR, "osworld");
  await mkdir(dir, { recursive: true });
  const file = join(dir, `${id}.json`);
  await writeFile(file, json);
  const dataset = await loadDataset(file, registries);
  const errors = dataset.problems.filter((p) => p.severity === "error");
  const fail = (what: string) =>
    new InvalidArgumentError(`osworld_task_json: ${what}`, [
      ...errors.slice(0, 4).map((p) => ({ field: `osworld_task_json${p.path ? `.${p.path}` : ""}`, description: p.message })),
    ]);
  if (dataset.unsupported.length > 0) {
    const needs = dataset.unsupported[0]!.needs.map((n) => `${n.kind} ${n.name}${n.reason ? ` (${n.reason})` : ""}`);
    throw new UnimplementedError(`osworld_task_json: the task needs what Pincer does not run: ${needs.join(", ")}`);
  }
  const task = dataset.tasks[0];
  if (task?.kind !== "osworld") {
    const listed = errors.map((p) => `${p.path ? `${p.path}: ` : ""}${p.message}`).join("; ");
    throw fail(`not a valid OSWorld task: ${listed || "not recognised as one (it needs id, instruction, config and evaluator)"}`);
  }
  const envs: Record<string, Env> = {};
  for (const name of environmentsOf(task)) envs[name] = noMachineEnv(`${name} has no machine while a task is validated`);
  try {
    buildBenchmark({ task, envs, registries, agent: {}, maxSteps: DEFAULT_MAX_STEPS, timeLimitMs: DEFAULT_TIME_LIMIT_MS }, task.dir);
  } catch (err) {
    throw InvalidArgumentError.forField("osworld_task_json", `the task cannot be built: ${(err as Error).message}`);
  }
  return task;
}
