import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ALREADY_FINAL, BEGIN_ATTEMPT, FINISH_ATTEMPT, LOCK_LOST, runKeys } from "../../packages/controller/src/queue/protocol.js";
import { redisConnection } from "../../packages/controller/src/queue/redis.js";
import { startRedis, type TestRedis } from "../fixtures/redisServer.js";

// The fencing of a queue run's attempts, against a real redis-server: only the holder of a task's
// lock may begin or finish an attempt; a task with its final attempt is never begun again; an
// attempt whose worker lost the task is recorded as lost when the next one begins.

let dir: string;
let server: TestRedis;
let redis: Redis;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "pincer-fencing-"));
  server = await startRedis(join(dir, "redis"));
  redis = redisConnection(server.url);
});
afterAll(async () => {
  redis?.disconnect();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const keys = runKeys("fence");
const lock = "bull:q:job:lock";
const begin = (token: string, worker: string) =>
  redis.eval(BEGIN_ATTEMPT, 5, lock, keys.attempts, keys.active, keys.results, keys.done, token, "t/a", worker, 1000, 3600) as Promise<number>;
const finish = (token: string, attempt: number, final: boolean) =>
  redis.eval(
    FINISH_ATTEMPT,
    4,
    lock,
    keys.active,
    keys.results,
    keys.done,
    token,
    "t/a",
    JSON.stringify({ kind: "attempt", attempt }),
    attempt,
    final ? "1" : "0",
    3600,
  ) as Promise<number>;
const results = async () => (await redis.lrange(keys.results, 0, -1)).map((r) => JSON.parse(r));

describe("attempt fencing (Lua on Redis)", () => {
  test("without the lock no begin or finish; the next holder's begin records the lost attempt; a final task is not begun again", async () => {
    await redis.set(lock, "token-A");
    expect(await begin("token-B", "B")).toBe(LOCK_LOST);
    expect(await redis.hlen(keys.active)).toBe(0);

    expect(await begin("token-A", "A")).toBe(1);
    expect(JSON.parse((await redis.hget(keys.active, "t/a"))!)).toEqual({ attempt: 1, worker: "A", started: 1000 });

    // A stalls past its lock: the job goes to B, whose token the lock now holds.
    await redis.set(lock, "token-B");
    expect(await finish("token-A", 1, true)).toBe(0);
    expect(await results()).toEqual([]);

    expect(await begin("token-B", "B")).toBe(2);
    expect(await results()).toEqual([{ kind: "lost", task: "t/a", entry: { attempt: 1, worker: "A", started: 1000 } }]);

    expect(await finish("token-B", 2, true)).toBe(1);
    expect(await redis.hget(keys.done, "t/a")).toBe("2");
    expect(await redis.hlen(keys.active)).toBe(0);
    expect((await results()).map((r) => r.kind)).toEqual(["lost", "attempt"]);
    // A run's keys do not outlive it for good: each expires after the time to live given.
    for (const k of [keys.attempts, keys.results, keys.done]) expect(await redis.ttl(k), k).toBeGreaterThan(3500);

    // The job handed out once more (a stalled check racing the finish): it is not run again.
    expect(await begin("token-B", "B")).toBe(ALREADY_FINAL);
    expect(await redis.hget(keys.attempts, "t/a")).toBe("2");
  });

  test("a finish run twice (ioredis sends a command again when a dropped connection lost its reply) is recorded once", async () => {
    const k = runKeys("resent");
    const run = (script: string, n: number, args: Array<string | number>) => redis.eval(script, n, lock, ...args) as Promise<number>;
    const beginB = () => run(BEGIN_ATTEMPT, 5, [k.attempts, k.active, k.results, k.done, "token-R", "t/b", "R", 1000, 3600]);
    const finishB = (attempt: number, final: boolean) =>
      run(FINISH_ATTEMPT, 4, [
        k.active,
        k.results,
        k.done,
        "token-R",
        "t/b",
        JSON.stringify({ kind: "attempt", attempt, final }),
        attempt,
        final ? "1" : "0",
        3600,
      ]);
    await redis.set(lock, "token-R");
    // An attempt that is not final (an infrastructure error with attempts left), then the final one.
    expect(await beginB()).toBe(1);
    expect(await finishB(1, false)).toBe(1);
    expect(await finishB(1, false)).toBe(1);
    expect(await beginB()).toBe(2);
    expect(await finishB(2, true)).toBe(1);
    expect(await finishB(2, true)).toBe(1);
    const records = (await redis.lrange(k.results, 0, -1)).map((r) => JSON.parse(r));
    expect(records).toEqual([
      { kind: "attempt", attempt: 1, final: false },
      { kind: "attempt", attempt: 2, final: true },
    ]);
    expect(await redis.hget(k.done, "t/b")).toBe("2");
  });

  test("what was written survives a restart of Redis (append-only file)", async () => {
    await server.restart();
    expect(await redis.hget(keys.done, "t/a")).toBe("2");
    expect((await results()).length).toBe(2);
  });
});
