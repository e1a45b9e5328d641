/**
 * Waiting, one way everywhere: {@link sleep} waits and throws when the wait is cancelled;
 * {@link pause} waits and ends early without throwing, for loops that check their signal themselves.
 */

/** The error an aborted signal carries: its reason, or an AbortError when it has none. */
function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("This operation was aborted", "AbortError");
}

/**
 * Resolves after `ms` milliseconds. When `signal` aborts first (or has already aborted), rejects
 * with the signal's reason (what `signal.throwIfAborted()` throws) and clears the timer. The
 * listener it adds to `signal` is removed either way.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortReason(signal));
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortReason(signal!));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Waits `ms` milliseconds, or less when `signal` aborts: never rejects. Resolves `true` when the
 * whole time passed, `false` when the signal ended the wait (at once if it had already aborted).
 */
export function pause(ms: number, signal?: AbortSignal): Promise<boolean> {
  return sleep(ms, signal).then(
    () => true,
    () => false,
  );
}
