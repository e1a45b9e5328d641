import { join } from "node:path";
import { writeFile } from "node:fs/promises";
import { UnavailableError } from "@pincer/shared";
import type { Agent, AgentObservation } from "../agents/types.js";
import { createDesktopActions } from "../actions/desktop.js";
import { createSystemActions } from "../actions/system.js";
import { toErrorInfo } from "../actions/errors.js";
import { createBenchmark } from "../benchmark/benchmark.js";
import type { StepResult } from "../benchmark/types.js";
import type { Env, Screenshot } from "../env/index.js";
import { createEnvironment } from "../benchmark/environment.js";
import { evaluator } from "../evaluators/evaluator.js";
import type { DatasetTask } from "../datasets/loader.js";
import type { ConfigRegistry, EvaluationOutcome, EvaluationRegistry, HelperContext } from "../datasets/helpers.js";
import { createTask, type ActionCall, type Task } from "../tasks/task.js";
import { action } from "../actions/action.js";
import { z } from "zod";
import type { AgentState, ResultStore, TaskResults, TaskState } from "./results.js";

export interface AttemptOptions {
  task: DatasetTask;
  attempt: number;
  envs: Readonly<Record<string, Env>>;
  addresses: Readonly<Record<string, string>>;
  registries: { configs: ConfigRegistry; evaluations: EvaluationRegistry };
  agent: Agent;
  maxSteps: number;
  maxStepsRule: string;
  /** Wall-clock limit of the agent's part, in ms. */
  timeLimitMs: number;
  store: ResultStore;
  /** Take a JPEG screenshot of each environment before each turn and save it. @default true */
  screenshots: boolean;
  signal: AbortSignal;
}

/** The environment names a task needs. */
export function environmentsOf(task: DatasetTask): string[] {
  if (task.kind === "module") return task.module.environments ?? ["desktop"];
  const named = [...task.json.config.map((c) => c.env), task.json.evaluation.env].filter((e): e is string => !!e);
  return [...new Set(["desktop", ...named])];
}

/** A setup action that runs one config entry through its helper. */
function configAction(registry: ConfigRegistry, func: string, ctxBase: Omit<HelperContext, "env" | "signal">) {
  const helper = registry.get(func)!;
  return action({
    name: `config_${func}`.replace(/__+/g, "_").slice(0, 64),
    description: helper.description,
    params: z.object({ arguments: z.record(z.string(), z.unknown()) }),
    run: async ({ arguments: args }, { env, signal }) => helper.run(helper.args.parse(args), { ...ctxBase, env, signal }),
  });
}

/** Builds the Task of a dataset task; `onOutcome` receives each evaluation of a JSON task. */
function buildTask(opts: AttemptOptions, onOutcome: (o: EvaluationOutcome) => void): Task {
  const { task, envs, registries } = opts;
  const ctxBase = { envs, taskDir: task.dir };
  if (task.kind === "module") {
    const built = task.module.build({ envs, taskDir: task.dir });
    return createTask({ maxSteps: opts.maxSteps, timeLimitMs: opts.timeLimitMs, ...built, id: task.id, description: task.instruction, tags: task.tags });
  }
  const setup: ActionCall[] = task.json.config.map((c) => ({
    action: configAction(registries.configs, c.func, ctxBase),
    args: { arguments: c.arguments },
    ...(c.env ? { env: c.env } : {}),
  }));
  const evalCall = task.json.evaluation;
  const helper = registries.evaluations.get(evalCall.func)!;
  const check = evaluator({
    name: "evaluation",
    description: `${evalCall.func}: ${helper.description}`,
    ...(evalCall.env ? { env: evalCall.env } : {}),
    run: async (_params, { env, signal }) => {
      const outcome = await helper.run(helper.args.parse(evalCall.arguments), { ...ctxBase, env, signal });
      onOutcome(outcome);
      return outcome.score >= 1;
    },
  });
  return createTask({
    id: task.id,
    description: task.instruction,
    evaluator: check,
    setup,
    maxSteps: opts.maxSteps,
    timeLimitMs: opts.timeLimitMs,
    tags: task.tags,
  });
}

function stateOf(reason: string | null, score: number): { state: TaskState; agent_state: AgentState } {
  switch (reason) {
    case "setup_error":
    case "env_error":
    case "agent_error":
      return { state: reason, agent_state: null };
    case "evaluator_error":
      return { state: "eval_error", agent_state: null };
    case "success":
    case "agent_complete":
      return { state: score >= 1 ? "passed" : "failed", agent_state: "agent_done" };
    case "step_limit":
    case "time_limit":
    case "token_budget":
      return { state: score >= 1 ? "passed" : "failed", agent_state: reason };
    default:
      return { state: "failed", agent_state: null };
  }
}

async function screenshotAll(envs: Readonly<Record<string, Env>>, signal: AbortSignal): Promise<Record<string, Screenshot>> {
  const shots = await Promise.all(
    Object.entries(envs).map(async ([name, env]) => {
      // At most 1280x800 (about 1 megapixel, under what vision APIs take without resizing them
      // themselves, which would shift the coordinates models give back).
      const shot = await env.screen.screenshot({ format: "jpeg", quality: 70, maxWidth: 1280, maxHeight: 800, signal, timeoutMs: 20_000 }).catch(() => undefined);
      return [name, shot] as const;
    }),
  );
  return Object.fromEntries(shots.filter((s): s is readonly [string, Screenshot] => s[1] !== undefined));
}

/**
 * Runs one attempt of one task: setup → agent loop → evaluation → teardown, writing the trajectory
 * as it goes. Returns the `results` part of summary.json; never throws for task-level failures.
 */
export async function runAttempt(opts: AttemptOptions, dir: string): Promise<TaskResults> {
  const started = Date.now();
  const startedAt = new Date(started).toISOString();
  const timing = { setup_ms: 0, model_ms: 0, env_ms: 0 };
  const messages: unknown[] = [{ role: "user", content: opts.task.instruction }];
  const usage = { input: 0, output: 0, requests: 0, costUsd: 0, priced: false };
  let lastOutcome: EvaluationOutcome | undefined;
  let error: string | null = null;
  let teardownError: string | null = null;
  const daemonVersions: Record<string, string> = {};
  const { signal } = opts;

  for (const [name, env] of Object.entries(opts.envs)) {
    daemonVersions[name] = await env.system.info({ signal, timeoutMs: 10_000 }).then((i) => i.daemonVersion, (e: unknown) => `unreachable: ${(e as Error).message}`);
  }

  let task: Task;
  try {
    task = buildTask(opts, (o) => (lastOutcome = o));
  } catch (err) {
    return finish("setup_error", `building the task: ${(err as Error).message}`);
  }
  const systemActions = createSystemActions({ localRoot: dir });
  const environments = Object.entries(opts.envs).map(([name, env]) =>
    createEnvironment({
      name,
      env,
      // The agent's own actions, unless the task brings one of the same name for this environment.
      actions: [
        ...Object.values(createDesktopActions()),
        ...Object.values(systemActions),
        ...(opts.agent.actions ?? []).filter((a) => !(task.extraActions[name] ?? []).some((t) => t.name === a.name)),
      ],
      observations: [],
    }),
  );
  const bench = createBenchmark({ environments, tasks: [task], defaultEnvironment: environmentsOf(opts.task)[0]! });

  const t0 = performance.now();
  const start = await bench.start(task.id, { signal });
  timing.setup_ms = performance.now() - t0;
  if (!start.ok) {
    error = start.error?.message ?? "setup failed";
    await bench.close({ signal }).catch((e: unknown) => (teardownError = (e as Error).message));
    return finish("setup_error", error);
  }

  const tools = bench.tools("mcp").map((t) => ({ name: t.name, description: t.description ?? "", parameters: t.inputSchema as Record<string, unknown> }));
  await opts.agent.start({ taskId: task.id, instruction: task.description, tools, maxSteps: task.maxSteps, signal });
  let lastResults: StepResult[] = [];
  let turn = 0;
  try {
    while (!bench.state().ended) {
      signal.throwIfAborted();
      turn += 1;
      const screenshots = opts.screenshots || opts.agent.wantsScreenshots ? await screenshotAll(opts.envs, signal) : {};
      const files: Record<string, string> = {};
      for (const [name, shot] of Object.entries(screenshots)) {
        const file = join("screenshots", `turn-${String(turn).padStart(3, "0")}-${name}.jpg`);
        await writeFile(join(dir, file), shot.data);
        files[name] = file;
      }
      const observation: AgentObservation = { step: bench.state().step, screenshots, lastResults, signal };
      const m0 = performance.now();
      let agentTurn;
      try {
        agentTurn = await opts.agent.act(observation);
      } catch (err) {
        timing.model_ms += performance.now() - m0;
        bench.end("agent_error", err);
        error = `agent: ${(err as Error).message}`;
        await opts.store.appendTrajectory(dir, { turn, screenshots: files, agent_error: error });
        break;
      }
      const turnModelMs = performance.now() - m0;
      timing.model_ms += turnModelMs;
      const tokens = (agentTurn.usage?.input ?? 0) + (agentTurn.usage?.output ?? 0);
      usage.input += agentTurn.usage?.input ?? 0;
      usage.output += agentTurn.usage?.output ?? 0;
      usage.requests += agentTurn.usage ? (agentTurn.usage.requests ?? 1) : 0;
      if (agentTurn.usage?.costUsd !== undefined) {
        usage.costUsd += agentTurn.usage.costUsd;
        usage.priced = true;
      }
      // Per model call accounting: tokens, cost and model time of this turn.
      const turnUsage = agentTurn.usage
        ? { input_tokens: agentTurn.usage.input, output_tokens: agentTurn.usage.output, requests: agentTurn.usage.requests ?? 1, ...(agentTurn.usage.costUsd !== undefined ? { cost_usd: agentTurn.usage.costUsd } : {}) }
        : undefined;
      messages.push({ role: "assistant", content: agentTurn.message ?? "", tool_calls: agentTurn.calls, done: agentTurn.done ?? false, model_ms: Math.round(turnModelMs), ...(turnUsage ? { usage: turnUsage } : {}) });
      lastResults = [];
      if (agentTurn.calls.length === 0) {
        if (tokens > 0) bench.addTokens(tokens);
        // Done: the final evaluation decides between success and a plain agent_complete.
        const e0 = performance.now();
        await bench.evaluate({ signal });
        timing.env_ms += performance.now() - e0;
        if (!bench.state().ended) bench.end("agent_complete");
        await opts.store.appendTrajectory(dir, { turn, screenshots: files, done: true, evaluation: bench.state() });
        break;
      }
      for (const [i, call] of agentTurn.calls.entries()) {
        const e0 = performance.now();
        const r = await bench.step({ ...call, tokens: i === 0 ? tokens : 0 }, { signal });
        timing.env_ms += performance.now() - e0;
        lastResults.push(r);
        messages.push({ role: "tool", tool: r.tool, ok: r.ok, content: r.ok ? summarizeResult(r.result) : r.error });
        await opts.store.appendTrajectory(dir, {
          turn,
          step: r.step,
          tool: r.tool,
          args: "args" in call ? call.args ?? {} : {},
          ok: r.ok,
          ...(r.ok ? { result: summarizeResult(r.result) } : { error: r.error }),
          evaluation: r.evaluation,
          reason: r.reason,
          duration_ms: Math.round(r.durationMs),
          screenshots: files,
        });
        if (r.reason) break;
      }
    }
  } catch (err) {
    if (signal.aborted) throw err;
    const info = toErrorInfo(err);
    error = `${info.type}: ${info.message}`;
    if (!bench.state().ended) bench.end(err instanceof UnavailableError ? "env_error" : "agent_error", err);
  }

  try {
    await bench.close({ signal });
  } catch (err) {
    teardownError = (err as Error).message;
  }
  const st = bench.state();
  if (!error && st.error && !["success", "agent_complete", "step_limit", "time_limit", "token_budget"].includes(st.reason ?? "")) error = st.error.message;
  return finish(st.reason, error, bench.metrics() as unknown as Record<string, unknown>, st.step);

  function finish(reason: string | null, err: string | null, metrics: Record<string, unknown> = {}, steps = 0): TaskResults & { cost_usd: number | null; model_requests: number } {
    const isModule = opts.task.kind === "module";
    const score = isModule ? Number((metrics.completionRatio as number | undefined) ?? 0) : lastOutcome?.score ?? 0;
    const { state, agent_state } = stateOf(reason, isModule ? (metrics.success ? 1 : score) : score);
    return {
      score: state === "passed" || state === "failed" ? score : 0,
      state,
      agent_state,
      end_reason: reason,
      eval_error: state === "eval_error" ? err : null,
      eval_reason: lastOutcome?.reason ?? (isModule ? `completion ratio ${score}` : null),
      error: state === "eval_error" ? null : err,
      teardown_error: teardownError,
      messages,
      total_tokens: usage.input + usage.output,
      input_tokens: usage.input,
      output_tokens: usage.output,
      model_requests: usage.requests,
      // US dollars, when the agent has a price for its model (--price); null otherwise.
      cost_usd: usage.priced ? usage.costUsd : null,
      total_timing: {
        total_ms: Date.now() - started,
        setup_ms: Math.round(timing.setup_ms),
        model_ms: Math.round(timing.model_ms),
        env_ms: Math.round(timing.env_ms),
      },
      steps,
      max_steps: opts.maxSteps,
      max_steps_rule: opts.maxStepsRule,
      agent: opts.agent.name,
      model: opts.agent.model,
      daemon_versions: daemonVersions,
      environments: { ...opts.addresses },
      attempt: opts.attempt,
      metrics,
      started_at: startedAt,
      finished_at: new Date().toISOString(),
    };
  }
}

/** Keeps results readable in trajectories: binary data (screenshots) becomes its size. */
function summarizeResult(value: unknown): unknown {
  if (Buffer.isBuffer(value)) return `<${value.length} bytes>`;
  if (value && typeof value === "object" && !Array.isArray(value)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, Buffer.isBuffer(v) ? `<${v.length} bytes>` : v]));
  }
  return value;
}

