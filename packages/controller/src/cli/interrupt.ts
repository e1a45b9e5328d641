import { setMaxListeners } from "node:events";

/** A command's interruption: SIGINT or SIGTERM aborts `signal`, until `release()`. */
export interface Interruption {
  readonly signal: AbortSignal;
  /** Stops listening for the signals (call in `finally`). */
  release(): void;
}

/**
 * Listens for SIGINT and SIGTERM once each: the first aborts the returned signal and, with a
 * `message`, says on stderr what happens now. A second one ends the process as Node does.
 */
export function onInterrupt(message?: string): Interruption {
  const controller = new AbortController();
  // Every call of every attempt under way listens to it: dozens at once is its normal use, not a
  // leak (Node warned "MaxListenersExceededWarning … 11 abort listeners" in a busy check).
  setMaxListeners(0, controller.signal);
  const onSignal = () => {
    if (message) process.stderr.write(`\n${message}\n`);
    controller.abort(new Error("interrupted"));
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  return {
    signal: controller.signal,
    release() {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    },
  };
}
