import type { Agent } from "../agents/types.js";
import type { Benchmark } from "../benchmark/benchmark.js";
import type { Env } from "../env/index.js";
import type { Task } from "../tasks/task.js";
import { runAgentLoop } from "./agentLoop.js";
import { startRecordings } from "./recording.js";
import type { ResultStore, TaskResults } from "../runFolder/results.js";
import { attemptResults, endsInVerdict, type AttemptEnd, type AttemptRecord, type SummarySettings } from "./summary.js";
import { buildBenchmark, type TaskBuildInput } from "./taskBuilder.js";
import { AttemptUsage } from "./usage.js";

export { environmentsOf } from "./taskBuilder.js";

/** One attempt of one task: the task, its machines, the agent and where the results go. */
export interface AttemptOptions extends TaskBuildInput {
  attempt: number;
  addresses: Readonly<Record<string, string>>;
  /** How the machines were reset before this attempt, for summary.json. */
  reset?: Readonly<Record<string, { provider: string; method: string; ms: number }>>;
  /** Why the machines could not be reset: the attempt then ends with env_error at once (the machine failed, not the task). */
  resetError?: string;
  agent: Agent;
  maxStepsRule: string;
  store: ResultStore;
  /** Record each machine's screen while the agent works, into `recording-<env>.mp4`. @default false */
  record?: boolean;
  signal: AbortSignal;
}

/** How long an attempt waits for a machine whose connection is down to come back. */
export const MACHINE_READY_TIMEOUT_MS = 30_000;

/**
 * The daemon version of each environment, or why it could not be asked. Asked of all machines at
 * once, each waiting up to {@link MACHINE_READY_TIMEOUT_MS} for a connection that is down (a link
 * that broke in the previous attempt) to come back, so the attempt starts on machines that answer.
 */
async function daemonVersionsOf(envs: Readonly<Record<string, Env>>, signal: AbortSignal): Promise<Record<string, string>> {
  const entries = await Promise.all(
    Object.entries(envs).map(async ([name, env]) => {
      const version = await env.system.info({ signal, timeoutMs: MACHINE_READY_TIMEOUT_MS, waitForReady: true }).then(
        (i) => i.daemonVersion,
        (e: unknown) => `unreachable: ${(e as Error).message}`,
      );
      return [name, version] as const;
    }),
  );
  return Object.fromEntries(entries);
}

/** Runs the task's teardown; a failure of it is recorded, not thrown. */
async function closeEpisode(bench: Benchmark, record: AttemptRecord, signal: AbortSignal): Promise<void> {
  try {
    await bench.close({ signal });
  } catch (err) {
    record.teardownError = (err as Error).message;
  }
}

/** Setup, the agent loop and teardown of a built task; returns how the attempt ended. */
async function runEpisode(opts: AttemptOptions, dir: string, record: AttemptRecord, { task, bench }: { task: Task; bench: Benchmark }): Promise<AttemptEnd> {
  const { signal } = opts;
  const t0 = performance.now();
  const start = await bench.start(task.id, { signal });
  record.usage.timing.setup_ms = performance.now() - t0;
  if (!start.ok) {
    await closeEpisode(bench, record, signal);
    return { reason: start.reason ?? "setup_error", error: start.error?.message ?? "setup failed" };
  }
  const tools = bench.tools("mcp").map((t) => ({ name: t.name, description: t.description ?? "", parameters: t.inputSchema as Record<string, unknown> }));
  await opts.agent.start({ taskId: task.id, instruction: task.description, tools, maxSteps: task.maxSteps, signal });
  const recorder = opts.record ? await startRecordings(opts.envs, dir, { lifetimeMs: opts.timeLimitMs + 60_000, signal }) : undefined;
  const loopError = await runAgentLoop({
    bench,
    agent: opts.agent,
    dir,
    store: opts.store,
    messages: record.messages,
    usage: record.usage,
    signal,
  }).finally(async () => {
    if (recorder) record.recordings = await recorder.stop();
  });
  await closeEpisode(bench, record, signal);
  const st = bench.state();
  const error = loopError ?? (st.error && !endsInVerdict(st.reason) ? st.error.message : null);
  return { reason: st.reason, error, metrics: bench.metrics() as unknown as Record<string, unknown>, steps: st.step };
}

/**
 * Runs one attempt of one task: build → setup → agent loop → evaluation → teardown, writing the
 * trajectory as it goes. Returns the `results` part of summary.json; never throws for task-level
 * failures: a task that cannot be built (its module's `build()` throws, its actions clash with an
 * environment's) ends with `setup_error`.
 */
export async function runAttempt(opts: AttemptOptions, dir: string): Promise<TaskResults> {
  const record: AttemptRecord = {
    started: Date.now(),
    messages: [{ role: "user", content: opts.task.instruction }],
    usage: new AttemptUsage(),
    daemonVersions: {},
    teardownError: null,
  };
  const settings: SummarySettings = {
    kind: opts.task.kind,
    attempt: opts.attempt,
    maxSteps: opts.maxSteps,
    maxStepsRule: opts.maxStepsRule,
    agent: opts.agent,
    addresses: opts.addresses,
    ...(opts.reset ? { reset: opts.reset } : {}),
  };
  if (opts.resetError) return attemptResults(settings, record, { reason: "env_error", error: opts.resetError });
  record.daemonVersions = await daemonVersionsOf(opts.envs, opts.signal);
  let built: ReturnType<typeof buildBenchmark>;
  try {
    built = buildBenchmark(opts, dir);
  } catch (err) {
    return attemptResults(settings, record, { reason: "setup_error", error: `building the task: ${(err as Error).message}` });
  }
  const end = await runEpisode(opts, dir, record, built);
  return attemptResults(settings, record, end);
}
