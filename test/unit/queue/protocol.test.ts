import { describe, expect, test } from "vitest";
import { jobIdOf, queueFor, runKeys } from "../../../packages/controller/src/queue/protocol.js";
import { redacted, redisConnection } from "../../../packages/controller/src/queue/redis.js";

describe("queue names and keys", () => {
  test("a task's queue is named by its environments, sorted, whatever order the task gives them", () => {
    expect(queueFor("pincer-tasks", ["desktop"])).toBe("pincer-tasks.desktop");
    expect(queueFor("pincer-tasks", ["server", "desktop"])).toBe(queueFor("pincer-tasks", ["desktop", "server"]));
    expect(queueFor("pincer-tasks", ["server", "desktop"])).toBe("pincer-tasks.desktop+server");
    // BullMQ keys are joined with ":"; a name holding one is changed, not passed on.
    expect(queueFor("team:a", ["desktop"])).toBe("team_a.desktop");
    expect(jobIdOf("run:1", "tool/task")).toBe("run_1/tool/task");
  });

  test("a run's keys live under its id", () => {
    const k = runKeys("r1");
    expect([k.results, k.active, k.attempts, k.done]).toEqual([
      "pincer:run:r1:results",
      "pincer:run:r1:active",
      "pincer:run:r1:attempts",
      "pincer:run:r1:done",
    ]);
    expect(k.artifacts("tool/t", 2)).toBe("pincer:run:r1:artifacts:tool/t:2");
  });
});

describe("queue URLs", () => {
  test("passwords are hidden in what is printed", () => {
    expect(redacted("redis://:s3cret@host:6379/0")).toBe("redis://:***@host:6379/0");
    expect(redacted("rediss://user:s3cret@host:6380")).toBe("rediss://user:***@host:6380");
    expect(redacted("unix:/run/redis.sock?password=s3cret&db=2")).toBe("unix:/run/redis.sock?password=***&db=2");
  });

  test("a URL of another kind is refused with the forms that work, its password hidden", () => {
    expect(() => redisConnection("http://:s3cret@host:6379")).toThrow(/write redis:\/\/\[:password@\]host:port, rediss:\/\/… \(TLS\) or unix:/);
    expect(() => redisConnection("http://:s3cret@host:6379")).not.toThrow(/s3cret/);
  });

  test("unix sockets and TLS become the client's options (no connection is made until used)", () => {
    const unix = redisConnection("unix:/run/redis/redis.sock?password=pw&db=3");
    expect([unix.options.path, unix.options.password, unix.options.db]).toEqual(["/run/redis/redis.sock", "pw", 3]);
    unix.disconnect();
    const tls = redisConnection("rediss://:pw@queue.example:6380?servername=queue.example");
    expect([tls.options.host, tls.options.port, tls.options.password]).toEqual(["queue.example", 6380, "pw"]);
    expect(tls.options.tls).toEqual({ servername: "queue.example" });
    tls.disconnect();
  });
});
