import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { CancelledError, pause, sleep } from "@pincer/shared";

// Fake timers: the waits are exact and the tests take no real time.
beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

/** Whether a promise has settled yet (after the microtasks queued so far have run). */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  p.then(
    () => (done = true),
    () => (done = true),
  );
  await vi.advanceTimersByTimeAsync(0);
  return done;
}

describe("sleep(ms, signal?)", () => {
  test("with no signal, resolves after ms and not before", async () => {
    const p = sleep(1000);
    await vi.advanceTimersByTimeAsync(999);
    expect(await settled(p)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await expect(p).resolves.toBeUndefined();
  });

  test("with a signal that never aborts, resolves after ms and leaves no listener behind", async () => {
    const ctrl = new AbortController();
    const remove = vi.spyOn(ctrl.signal, "removeEventListener");
    const p = sleep(50, ctrl.signal);
    await vi.advanceTimersByTimeAsync(50);
    await expect(p).resolves.toBeUndefined();
    expect(remove).toHaveBeenCalledWith("abort", expect.any(Function));
  });

  test("a signal aborted before: rejects at once with its reason, no timer started", async () => {
    const reason = new CancelledError("stopped");
    const p = sleep(10_000, AbortSignal.abort(reason));
    expect(vi.getTimerCount()).toBe(0);
    await expect(p).rejects.toBe(reason);
  });

  test("a signal aborted during: rejects with its reason then, and clears the timer", async () => {
    const ctrl = new AbortController();
    const p = sleep(10_000, ctrl.signal);
    const expectation = expect(p).rejects.toBe("the reason");
    await vi.advanceTimersByTimeAsync(100);
    ctrl.abort("the reason");
    await expectation;
    expect(vi.getTimerCount()).toBe(0);
  });

  test("a signal aborted with no reason: rejects with an AbortError", async () => {
    const ctrl = new AbortController();
    const p = sleep(10_000, ctrl.signal);
    const expectation = expect(p).rejects.toMatchObject({ name: "AbortError" });
    ctrl.abort();
    await expectation;
  });
});

describe("pause(ms, signal?)", () => {
  test("resolves true after the whole time", async () => {
    const p = pause(200);
    await vi.advanceTimersByTimeAsync(200);
    await expect(p).resolves.toBe(true);
  });

  test("resolves false, without throwing, when the signal aborts before or during", async () => {
    await expect(pause(1000, AbortSignal.abort(new Error("x")))).resolves.toBe(false);
    const ctrl = new AbortController();
    const p = pause(1000, ctrl.signal);
    await vi.advanceTimersByTimeAsync(10);
    ctrl.abort(new Error("y"));
    await expect(p).resolves.toBe(false);
    expect(vi.getTimerCount()).toBe(0);
  });
});
