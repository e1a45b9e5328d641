import { describe, expect, test } from "vitest";
import { ResourceExhaustedError } from "@pincer/shared";
import { type CallContext, limited } from "../../../packages/daemon/src/services/rpc.js";

// The limit defineService puts on long methods: at most `running` calls in the handler, `waiting`
// more in line, RESOURCE_EXHAUSTED beyond. The handler here holds each call until the test lets it go.

function harness(limit: { running: number; waiting?: number }) {
  const inside: Array<{ name: string; finish: () => void }> = [];
  const handler = limited("System/GetInfo", limit, (name: string) => new Promise<string>((resolve) => inside.push({ name, finish: () => resolve(name) })));
  const call = (name: string) => {
    const controller = new AbortController();
    const ctx: CallContext = { signal: controller.signal, peer: "test" };
    const result = handler(name, ctx).then(
      (v) => v,
      (e: unknown) => (e instanceof ResourceExhaustedError ? `refused: ${e.message}` : `failed: ${(e as Error).message}`),
    );
    return { result, cancel: () => controller.abort(new Error("the client cancelled the call")) };
  };
  return { inside, call };
}

/** Lets pending promise callbacks run. */
const tick = () => new Promise((r) => setImmediate(r));

describe("calls of a limited method", () => {
  test("one runs, one waits its turn, one more is RESOURCE_EXHAUSTED at once; a cancelled waiter leaves the line", async () => {
    const { inside, call } = harness({ running: 1, waiting: 1 });
    const a = call("a");
    const b = call("b");
    expect(await call("c").result).toBe("refused: System/GetInfo: 1 calls running and 1 waiting, the most this daemon takes at once; retry when one has ended");
    await tick();
    expect(inside.map((c) => c.name)).toEqual(["a"]);
    // b gives up while waiting: it fails with its reason, and its place in line is free again.
    b.cancel();
    expect(await b.result).toBe("failed: the client cancelled the call");
    const d = call("d");
    expect(await call("e").result).toMatch(/^refused: /);
    // a ends: d, next in line, runs; b never did.
    inside[0]!.finish();
    expect(await a.result).toBe("a");
    await tick();
    expect(inside.map((c) => c.name)).toEqual(["a", "d"]);
    inside[1]!.finish();
    expect(await d.result).toBe("d");
  });

  test("with no line, the call beyond the limit is refused; a place frees when a call ends, not when it is cancelled", async () => {
    const { inside, call } = harness({ running: 2 });
    const [a, b] = [call("a"), call("b")];
    expect(await call("c").result).toBe("refused: System/GetInfo: 2 calls running, the most this daemon takes at once; retry when one has ended");
    // A cancelled call keeps its place until its handler has stopped: its work may still be running.
    a.cancel();
    expect(await call("d").result).toMatch(/^refused: /);
    inside[0]!.finish();
    await a.result;
    const e = call("e");
    await tick();
    expect(inside.map((c) => c.name)).toEqual(["a", "b", "e"]);
    inside[1]!.finish();
    inside[2]!.finish();
    expect([await b.result, await e.result]).toEqual(["b", "e"]);
  });
});
