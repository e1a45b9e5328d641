import type { CallLimit } from "./rpc.js";

/**
 * How many calls of each long method run at once, and how many more wait for a place (see
 * `concurrency` in defineService); beyond, a call is RESOURCE_EXHAUSTED at once. Each of these
 * costs memory or CPU for as long as it runs: a walk of a large accessibility tree holds about
 * 100 MiB for seconds (a later walk would only wait behind it, so none waits), a settle wait
 * compares full-resolution frames, a screenshot captures and encodes up to the whole screen, a
 * recursive listing stats every entry, a screen stream compares a frame per 1/max_fps s and
 * encodes each change for as long as its viewer keeps it open. Every one of them also stops when its caller cancels or
 * its deadline passes.
 */
export const LONG_CALL_LIMITS = {
  "Accessibility/GetTree": { running: 2 },
  "Screen/WaitForSettle": { running: 16 },
  "Screen/Screenshot": { running: 4, waiting: 60 },
  "Screen/Watch": { running: 8 },
  "Files/List": { running: 4, waiting: 28 },
} as const satisfies Record<string, CallLimit>;
