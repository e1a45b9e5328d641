import { appendFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { action } from "../../actions/action.js";
import type { Env } from "../../env/index.js";
import { evaluator } from "../../evaluators/evaluator.js";
import { createTask, type Task } from "../../tasks/task.js";
import type { OsworldTaskJson } from "./taskSchema.js";
import type { OsworldContext } from "./context.js";
import { DownloadCache } from "./downloadCache.js";
import { evaluateOsworld, runSteps } from "./evaluate.js";

/** What building an OSWorld task needs. */
export interface OsworldTaskInput {
  id: string;
  instruction: string;
  tags: readonly string[];
  json: OsworldTaskJson;
  /** The attempt's folder: getters fetch into `osworld-cache/`, and `osworld.log` keeps what OSWorld only logs. */
  dir: string;
  maxSteps: number;
  timeLimitMs: number;
  /** @default a cache in $PINCER_CACHE_DIR/downloads or ~/.cache/pincer/downloads */
  downloads?: DownloadCache;
  /** `{CLIENT_PASSWORD}`. @default "password" (the user of OSWorld's machines and of Pincer's images) */
  password?: string;
}

/** The root action an agent calls to declare the task infeasible: OSWorld's `FAIL`. */
export const FAIL_ACTION_NAME = "fail";

/**
 * Builds the Task of an OSWorld task: its `config` steps as setup, and its evaluator (postconfig,
 * getters, metrics, `conj`) run once when the episode ends. The root environment gains `fail`, the
 * agent's way to declare the task infeasible, which ends the episode; `infeasible` tasks pass only
 * then, and every other task scores 0 after it, as in OSWorld.
 */
export function buildOsworldTask(input: OsworldTaskInput): Task {
  let declaredInfeasible = false;
  const cacheDir = join(input.dir, "osworld-cache");
  const logFile = join(input.dir, "osworld.log");
  const downloads = input.downloads ?? new DownloadCache();
  const ctxOf = (env: Env, signal: AbortSignal): OsworldContext => ({
    env,
    signal,
    cacheDir,
    downloads,
    password: input.password ?? "password",
    log: (line) => {
      mkdirSync(input.dir, { recursive: true });
      appendFileSync(logFile, `${new Date().toISOString()} ${line}\n`);
    },
  });
  const fail = action({
    name: FAIL_ACTION_NAME,
    description: "Declare that the task cannot be done (it is infeasible as asked). This ends the task; use it only when you are sure.",
    local: true,
    run(_params, { episode }) {
      declaredInfeasible = true;
      episode?.complete();
    },
  });
  const setup = input.json.config.map((step, i) =>
    action({
      name: `osworld_${step.type}`.replace(/[^A-Za-z0-9_]/g, "_").slice(0, 64),
      description: `OSWorld config step ${i + 1}: ${step.type}`,
      params: z.object({}),
      run: async (_p, { env, signal }) => {
        mkdirSync(cacheDir, { recursive: true });
        await runSteps([step], ctxOf(env, signal), "config");
      },
    }),
  );
  const check = evaluator({
    name: "evaluation",
    description: `OSWorld evaluator: ${[input.json.evaluator.func].flat().join(` ${input.json.evaluator.conj ?? "and"} `)}`,
    run: async (_p, { env, signal }) => {
      mkdirSync(cacheDir, { recursive: true });
      return evaluateOsworld(input.json.evaluator, ctxOf(env, signal), declaredInfeasible);
    },
  });
  return createTask({
    id: input.id,
    description: input.instruction,
    evaluator: check,
    setup,
    extraActions: { root: [fail] },
    evaluateAt: "end",
    maxSteps: input.maxSteps,
    timeLimitMs: input.timeLimitMs,
    tags: [...input.tags],
  });
}
