import { startLocalPool } from "../../packages/controller/src/machines/localProvider.js";
import { sandboxSupport } from "../../packages/controller/src/machines/sandbox.js";
import { resetTimes, SHORT_TASK_MS, summarize, type Row } from "./stats.js";

/**
 * The default (local) provider's reset: a slot's machine replaced by a new one (a new sandbox where
 * available: a daemon with its own Xvfb in a fresh overlay), after a short task, as a run of short
 * tasks does it: with the slot's spare (the default) against starting the new machine at the reset.
 */
export async function resetRows(): Promise<{ rows: Row[]; notes: string[] }> {
  const support = sandboxSupport();
  const figures = async (spare: boolean) => {
    const pool = await startLocalPool(["desktop"], 1, { spare });
    try {
      return summarize((await resetTimes(pool.slots[0]!, 10)).times);
    } finally {
      await pool.close();
    }
  };
  const kind = support.mode === "overlay" ? "new sandbox" : `new machine, no sandbox: ${support.why}`;
  const rows: Row[] = [
    {
      operation: `reset a local machine (${kind}) after a ${SHORT_TASK_MS / 1000} s task: the slot's spare`,
      ours: await figures(true),
      peer: { name: "started at the reset (spare: false)", sample: await figures(false) },
      goal: "p50 ≤ 0.5 s",
    },
  ];
  return {
    rows,
    notes: [
      "A reset hands out a machine that answers calls; the used one (its daemon, Xvfb and commands) is stopped behind it with a spare, before it without.",
    ],
  };
}
