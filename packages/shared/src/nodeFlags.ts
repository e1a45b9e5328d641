/**
 * Node flags Pincer's long-running processes start with: the daemon (its launchers: the systemd
 * unit, local machines, the tests) and the `pincer` CLI (its shebang).
 *
 * `--single-threaded-gc`: transfers allocate about 3 GiB of short-lived buffers per GiB moved, and
 * on the 2-core machines agents are tested on, V8's parallel and concurrent GC helper threads then
 * spent 2-3 CPU-seconds per GiB per process contending for the cores (measured per thread in
 * /proc). Collecting on the main thread alone halved the CPU per GiB on both ends (daemon and
 * controller) and took 1 GiB uploads from ~190 to ~300 MiB/s here. V8 flags cannot be changed once
 * the process runs (v8.setFlagsFromString with these aborts V8), so they go on the command line.
 */
export const NODE_FLAGS = ["--single-threaded-gc"] as const;

/** Whether this process was started with {@link NODE_FLAGS}. */
export function hasNodeFlags(execArgv: readonly string[] = process.execArgv): boolean {
  return NODE_FLAGS.every((f) => execArgv.includes(f));
}
