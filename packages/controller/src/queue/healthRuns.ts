import { randomUUID } from "node:crypto";
import type { HealthRunExecutor } from "../health/health.js";
import { type QueueProgress, type QueueRunOptions, runOnQueue } from "./coordinator.js";
import { runSettings } from "../runner/settings.js";

/** Options of {@link queueHealthExecutor}: the queue, and the tasks with where they were read from, as for a queue run. */
export interface QueueHealthOptions extends Pick<QueueRunOptions, "url" | "key" | "queueName" | "tasks" | "registries" | "datasetRoot" | "datasetFormats"> {
  signal?: AbortSignal;
  /** Progress of each run (`run` is its folder's name) as the queue reports it. */
  onProgress?(run: string, p: QueueProgress): void;
}

/** What a health check's run does on a worker: what the local health check's runs do (the runner's defaults, no screenshots). */
const HEALTH_SETTINGS = runSettings({ screenshots: false });

/**
 * Runs a health check's runs through a queue (give it to `measureHealth`): each run is a queue run
 * of every task, taken by `pincer worker`s on any host, gathered into its run folder in the health
 * folder. Each run's name in the queue is unique to this check (`health-<uuid>-solution-1`), so
 * checks that share a queue never share a job.
 */
export function queueHealthExecutor(opts: QueueHealthOptions): HealthRunExecutor {
  const check = `health-${randomUUID()}`;
  return async ({ runId, outDir, agent }) => {
    await runOnQueue({
      url: opts.url,
      key: opts.key,
      ...(opts.queueName ? { queueName: opts.queueName } : {}),
      tasks: opts.tasks,
      registries: opts.registries,
      datasetRoot: opts.datasetRoot,
      datasetFormats: opts.datasetFormats ?? [],
      settings: { ...HEALTH_SETTINGS, agent: { kind: agent } },
      outDir,
      runId,
      queueId: `${check}-${runId}`,
      ...(opts.signal ? { signal: opts.signal } : {}),
      ...(opts.onProgress ? { onProgress: (p: QueueProgress) => opts.onProgress!(runId, p) } : {}),
    });
  };
}
