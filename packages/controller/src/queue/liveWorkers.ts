import type { Redis } from "ioredis";
import { liveToken, sign, signatureProblem } from "./signing.js";

/** How long a worker's advertisement lasts without renewal (it is renewed every third of it), in seconds. */
const LIVE_TTL_SECONDS = 30;

/** The Redis key of a worker's live page under a queue. */
const liveKey = (queueName: string, worker: string) => `pincer-live:${queueName}:${worker}`;

/** A worker's live page as the coordinator reaches it. */
export interface LiveWorker {
  worker: string;
  /** The page's address, as the worker gave it. */
  url: string;
  /** The page's token (derived from the queue's key). */
  token: string;
}

/**
 * Says in Redis, signed with the queue's key, where worker `worker`'s live page is (renewed until
 * `stop`): the coordinator's page (`pincer run --queue … --live`) shows what the workers stream.
 */
export function advertiseLive(redis: Redis, key: Uint8Array, queueName: string, worker: string, url: string): { stop(): Promise<void> } {
  const put = () => redis.set(liveKey(queueName, worker), JSON.stringify(sign(key, "live", { worker, url })), "EX", LIVE_TTL_SECONDS).catch(() => undefined);
  void put();
  const timer = setInterval(put, (LIVE_TTL_SECONDS * 1000) / 3);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await redis.del(liveKey(queueName, worker)).catch(() => undefined);
    },
  };
}

/** The workers of a queue with a live page now; an advertisement not signed with the queue's key is left out (and named in `refused`). */
export async function liveWorkers(redis: Redis, key: Uint8Array, queueName: string, refused?: (why: string) => void): Promise<LiveWorker[]> {
  const found: LiveWorker[] = [];
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", liveKey(queueName, "*"), "COUNT", 200);
    cursor = next;
    for (const k of keys) {
      const raw = await redis.get(k);
      let data: unknown;
      try {
        data = JSON.parse(raw ?? "null");
      } catch {
        data = null;
      }
      const problem = signatureProblem(key, "live", data);
      const ad = data as { worker?: unknown; url?: unknown };
      if (problem || typeof ad.worker !== "string" || typeof ad.url !== "string" || !/^https?:\/\//.test(ad.url)) {
        refused?.(`${k}: ${problem ?? "not a live page's advertisement"}`);
        continue;
      }
      found.push({ worker: ad.worker, url: ad.url, token: liveToken(key, ad.worker) });
    }
  } while (cursor !== "0");
  return found.sort((a, b) => a.worker.localeCompare(b.worker));
}
