import { isInfraState } from "../runFolder/results.js";
import { finalizeFailedJobs, type GatherContext, readResults, storeOf } from "./gather.js";
import { jobIdOf, queueFor } from "./protocol.js";

/**
 * Where a resumed run on a queue starts: what the workers finished while no coordinator gathered is
 * read first; then each task whose final attempt ended in an infrastructure error (env_error,
 * setup_error, a lost worker, …) is opened again, as a local run's resume runs it again: its job is
 * removed from the queue and its mark as done from Redis, so that it is queued anew and its next
 * attempt continues the numbering. Tasks with a verdict are kept. Returns the keys of the tasks opened.
 */
export async function reopenInfraErrors(ctx: GatherContext, queueName: string): Promise<string[]> {
  await readResults(ctx);
  await finalizeFailedJobs(ctx);
  const reopened: string[] = [];
  for (const [taskKey, task] of ctx.byKey) {
    const final = ctx.state.final[taskKey];
    if (final === undefined) continue;
    const last = (await storeOf(ctx, taskKey).finishedAttempts(task.tool, task.id)).at(-1);
    if (!last || !isInfraState(last.summary.results.state)) continue;
    const queue = ctx.queues.get(queueFor(queueName, task.environments));
    const job = await queue?.getJob(jobIdOf(ctx.runId, taskKey));
    // Its job has ended (its final attempt is in); removed, so that the same job id can be added again.
    if (job) await job.remove();
    await ctx.redis.hdel(ctx.keys.done, taskKey);
    await ctx.redis.hdel(ctx.keys.active, taskKey);
    // Attempts are numbered on from the last one in the run folder, even if Redis has forgotten the run.
    const counted = Number((await ctx.redis.hget(ctx.keys.attempts, taskKey)) ?? 0);
    if (counted < last.attempt) await ctx.redis.hset(ctx.keys.attempts, taskKey, String(last.attempt));
    delete ctx.state.final[taskKey];
    reopened.push(taskKey);
  }
  await ctx.store.writeJsonAtomic(ctx.stateFile, ctx.state);
  return reopened;
}
