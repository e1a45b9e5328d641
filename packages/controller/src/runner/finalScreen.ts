import { throwIfAborted } from "../actions/errors.js";
import type { Benchmark } from "../benchmark/benchmark.js";
import { DEFAULT_SETTLE, type SettleRecord } from "../benchmark/screenObservation.js";

/**
 * Waits until the screen of every environment the benchmark observes has stopped changing
 * ({@link DEFAULT_SETTLE}), for the attempt's final screenshot when the run's observation does not
 * wait by itself (a scripted agent's): the last frame of the viewer then shows the screen the
 * verdict is about, not one a program had yet to draw on. Returns each wait as trajectories record
 * it; a screen that cannot be watched is left out, and photographed as it is.
 */
export async function settleObservedScreens(bench: Benchmark, signal: AbortSignal): Promise<Record<string, SettleRecord>> {
  const observed = [...bench.environments.values()].filter((e) => e.observations.length > 0);
  const waits = await Promise.all(
    observed.map(async (e) => {
      try {
        const r = await e.env.screen.waitForSettle({ ...DEFAULT_SETTLE, signal });
        return [[e.name, { settled: r.settled, waited_ms: r.waitedMs, changes: r.changes }] as const];
      } catch {
        throwIfAborted(signal, "waiting for the final screen to settle");
        return [];
      }
    }),
  );
  return Object.fromEntries(waits.flat());
}
