import { expect, test } from "vitest";
import { onInterrupt } from "../../../packages/controller/src/cli/interrupt.js";

test("a command's interrupt signal takes as many listeners as calls under way, without Node's leak warning", async () => {
  const warnings: Error[] = [];
  const onWarning = (w: Error) => warnings.push(w);
  process.on("warning", onWarning);
  const interrupt = onInterrupt();
  try {
    // A check or run with many attempts and calls in flight listens to the one signal from each.
    for (let i = 0; i < 50; i++) interrupt.signal.addEventListener("abort", () => undefined);
    await new Promise((r) => setImmediate(r));
    expect(warnings.filter((w) => w.name === "MaxListenersExceededWarning")).toEqual([]);
  } finally {
    interrupt.release();
    process.off("warning", onWarning);
  }
});
