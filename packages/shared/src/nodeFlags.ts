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

/**
 * Node flags the daemon's launchers give it (the systemd unit, the images' entry point, local
 * machines, the tests, and the `pincer-daemon` shebang): {@link NODE_FLAGS} and
 * `--max-semi-space-size=2`. V8's young generation otherwise grows to 3 × 16 MiB under the
 * allocations of transfers and screenshots and stays that large. Capped at 2 MiB semi-spaces, the
 * daemon's resident memory was about 10 MiB lower idle and 15-20 MiB lower after a mixed load
 * (commands, screenshots, 256 MiB transfers), for the same CPU time per upload, download and
 * screenshot (interleaved runs of daemons with and without it).
 */
export const DAEMON_NODE_FLAGS = [...NODE_FLAGS, "--max-semi-space-size=2"] as const;

/** Whether this process was started with `flags` ({@link NODE_FLAGS} unless told). */
export function hasNodeFlags(execArgv: readonly string[] = process.execArgv, flags: readonly string[] = NODE_FLAGS): boolean {
  return flags.every((f) => execArgv.includes(f));
}

/**
 * glibc malloc settings the daemon's launchers give it (the systemd unit, the images' entry point,
 * local machines, the tests, and the `pincer-daemon` shebang). Measured with `npm run bench -- peers`
 * after a mixed load (commands, screenshots, 256 MiB transfers): the daemon's resident memory
 * stayed near its peak without them, because glibc kept every freed buffer:
 * - `MALLOC_ARENA_MAX=2`: libvips's worker threads each got an arena of their own (64 MiB reserved,
 *   much of it touched) that was never given back.
 * - `MALLOC_MMAP_THRESHOLD_=65536`: glibc raises its mmap threshold each time a large buffer is
 *   freed, up to 32 MiB, after which transfer and screenshot buffers came from the heap and stayed
 *   resident; a fixed threshold keeps them mapped on their own and unmapped when freed.
 * - `MALLOC_TRIM_THRESHOLD_=131072`: the heap's free top is given back beyond 128 KiB.
 * They are read when the process starts, so they go in its environment, not in code.
 */
export const DAEMON_MALLOC_ENV: Readonly<Record<string, string>> = {
  MALLOC_ARENA_MAX: "2",
  MALLOC_MMAP_THRESHOLD_: "65536",
  MALLOC_TRIM_THRESHOLD_: "131072",
};

/** Whether this process was started with {@link DAEMON_MALLOC_ENV}. */
export function hasMallocEnv(env: NodeJS.ProcessEnv = process.env): boolean {
  return Object.entries(DAEMON_MALLOC_ENV).every(([k, v]) => env[k] === v);
}
