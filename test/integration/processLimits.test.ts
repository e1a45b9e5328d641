import { afterAll, beforeAll, expect, test } from "vitest";
import { connect, ResourceExhaustedError, type RemoteEnv } from "@pincer/controller";
import { spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";

const MAX = 4;
let daemon: RunningDaemon;
let env: RemoteEnv;

beforeAll(async () => {
  daemon = await spawnDaemon({ args: ["--max-processes", String(MAX)] });
  env = connect(daemon.address);
  await env.waitUntilReady({ timeoutMs: 20_000 });
});

afterAll(async () => {
  env?.close();
  await daemon?.close();
});

test(`--max-processes ${MAX} holds when ${MAX + 6} Run and Start calls arrive at once: exactly ${MAX} run, the rest fail at once`, async () => {
  const rejectedAt: number[] = [];
  const finishedAt: number[] = [];
  const note = (p: Promise<unknown>) =>
    p.then(
      () => {
        finishedAt.push(performance.now());
        return "ok" as const;
      },
      (e: unknown) => {
        rejectedAt.push(performance.now());
        return e;
      },
    );
  const drain = async (it: AsyncIterable<unknown>) => {
    for await (const _ of it);
  };
  const calls = Array.from({ length: MAX + 6 }, (_, i) => note(i % 2 === 0 ? env.process.run(["sleep", "5"]) : drain(env.process.start(["sleep", "5"]))));
  const outcomes = await Promise.all(calls);
  expect(outcomes.filter((o) => o === "ok")).toHaveLength(MAX);
  const refused = outcomes.filter((o) => o !== "ok");
  expect(refused).toHaveLength(6);
  for (const e of refused) {
    expect(e).toBeInstanceOf(ResourceExhaustedError);
    expect((e as Error).message).toMatch(/max-processes/);
  }
  // Refused straight away, not after a running command ended (each runs 5 s, time for all the
  // refusals even on a loaded machine).
  expect(Math.max(...rejectedAt)).toBeLessThan(Math.min(...finishedAt));
  // Everything ended: the slots are free again.
  expect(await env.process.list()).toEqual([]);
  expect((await env.process.run(["true"])).exitCode).toBe(0);
});
