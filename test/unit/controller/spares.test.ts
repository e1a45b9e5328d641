import { expect, test } from "vitest";
import { Spares } from "../../../packages/controller/src/machines/spares.js";

// The bookkeeping the local, container and qemu providers share; their own tests run it on real
// machines. Here the machines are numbered records, to pin down the order of events.

function harness(opts: { answers?: (id: number) => boolean; failStart?: boolean } = {}) {
  const events: string[] = [];
  let next = 0;
  // Stops wait until finishStops() while held; after it, they end at once.
  let held = true;
  const stops: Array<() => void> = [];
  const spares = new Spares<number>({
    start: async (key, signal) => {
      const id = ++next;
      events.push(`start ${key} #${id}`);
      await new Promise((r) => setTimeout(r, 5));
      if (signal.aborted) events.push(`aborted #${id}`);
      if (opts.failStart) throw new Error("cannot start");
      return id;
    },
    answers: async (id) => opts.answers?.(id) ?? true,
    stop: (id) =>
      new Promise<void>((resolve) => {
        events.push(`stopping #${id}`);
        const end = () => {
          events.push(`stopped #${id}`);
          resolve();
        };
        if (held) stops.push(end);
        else end();
      }),
  });
  const finishStops = () => {
    held = false;
    while (stops.length) stops.shift()!();
  };
  return { spares, events, finishStops };
}

test("take waits for a spare still starting, hands it over once, and leaves the key without one", async () => {
  const { spares, events } = harness();
  spares.prepare("0/desktop");
  spares.prepare("0/desktop");
  expect(await spares.take("0/desktop")).toBe(1);
  expect(await spares.take("0/desktop")).toBeUndefined();
  expect(events).toEqual(["start 0/desktop #1"]);
});

test("a spare that no longer answers is stopped, not handed over; one that failed to start is none", async () => {
  const dead = harness({ answers: () => false });
  dead.spares.prepare("k");
  dead.finishStops();
  expect(await dead.spares.take("k")).toBeUndefined();
  expect(dead.events).toEqual(["start k #1", "stopping #1", "stopped #1"]);
  const failing = harness({ failStart: true });
  failing.spares.prepare("k");
  expect(await failing.spares.take("k")).toBeUndefined();
});

test("retired machines stop behind the caller; drain waits for them and stops the spares", async () => {
  const { spares, events, finishStops } = harness();
  spares.prepare("a");
  spares.retire(41);
  expect(events).toContain("stopping #41");
  let drained = false;
  const draining = spares.drain().then(() => (drained = true));
  await new Promise((r) => setTimeout(r, 20));
  expect(drained).toBe(false);
  finishStops();
  await draining;
  expect(events).toEqual(expect.arrayContaining(["stopped #41", "aborted #1", "stopped #1"]));
  expect(spares.keys()).toEqual([]);
});

test("offer makes a machine being readied the key's spare and stops the one it replaces", async () => {
  const { spares, events, finishStops } = harness();
  spares.prepare("k");
  finishStops();
  spares.offer("k", Promise.resolve(7));
  expect(await spares.take("k")).toBe(7);
  await expect.poll(() => events).toEqual(["start k #1", "stopping #1", "stopped #1"]);
});
