import { startLocalPool } from "../../packages/controller/src/machines/localProvider.js";
import { sandboxSupport } from "../../packages/controller/src/machines/sandbox.js";
import { measure, type Row } from "./stats.js";

/**
 * The default (local) provider's reset: a slot's machine replaced by a new one (a new sandbox where
 * available: a daemon with its own Xvfb in a fresh overlay). Measured as the runner does it, one
 * slot with one machine, and compared with starting a machine without a sandbox.
 */
export async function resetRows(): Promise<{ rows: Row[]; notes: string[] }> {
  const support = sandboxSupport();
  const boxed = await startLocalPool(["desktop"], 1);
  const plain = await startLocalPool(["desktop"], 1, { sandbox: "none" });
  try {
    const [slot] = boxed.slots;
    const [bare] = plain.slots;
    await slot!.reset!(); // the first call only marks the fresh machine used
    await bare!.reset!();
    const rows: Row[] = [
      {
        operation: `reset a local machine (${support.mode === "overlay" ? "new sandbox" : `no sandbox: ${support.why}`})`,
        ours: await measure(10, () => slot!.reset!(), 1),
        peer: { name: "new machine without a sandbox", sample: await measure(10, () => bare!.reset!(), 1) },
        goal: "p50 ≤ 1.5 s",
      },
    ];
    return { rows, notes: ["A reset stops the machine (its daemon, Xvfb and commands) and starts a new one, ready to answer calls."] };
  } finally {
    await boxed.close();
    await plain.close();
  }
}
