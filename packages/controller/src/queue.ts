/**
 * `@pincer/controller/queue`: a run spread over worker hosts through BullMQ on Redis. The
 * coordinator (`runOnQueue`, what `pincer run --queue` does) puts a run's tasks on the queue and
 * writes their results into its run folder; workers (`startWorker`, what `pincer worker` does)
 * take them and run them on their own machines. See docs/queue.md.
 */
export { runOnQueue } from "./queue/coordinator.js";
export type { QueueProgress, QueueRunOptions } from "./queue/coordinator.js";
/** Runs a health check's runs through the queue: `measureHealth({ …, execute: queueHealthExecutor({ … }) })` is `pincer check --repeat N --queue`. */
export { queueHealthExecutor } from "./queue/healthRuns.js";
export type { QueueHealthOptions } from "./queue/healthRuns.js";
export { startWorker } from "./queue/worker.js";
export type { QueueWorker, QueueWorkerOptions } from "./queue/worker.js";
export { DEFAULT_QUEUE_NAME, queueFor } from "./queue/protocol.js";
export type { QueuedAgent, QueuedSettings, ResultRecord } from "./queue/protocol.js";
/** Reads the queue's key (the coordinator signs jobs and workers sign results with it; Redis never sees it). */
export { readQueueKey } from "./queue/signing.js";
/** Opens a connection to a queue's Redis from a URL, failing with what to do when it cannot (see docs/queue.md). */
export { openRedis } from "./queue/redis.js";
