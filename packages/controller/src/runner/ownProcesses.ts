import type { Env } from "../env/index.js";

/** The envs of one attempt, and a way to stop what they started. */
export interface OwnProcesses {
  /** The same machines; each records the processes it starts (`process.start`, `process.launch`). */
  envs: Record<string, Env>;
  /** SIGKILLs the processes the attempt started that still run; nothing else on the machines. */
  stop(): Promise<void>;
}

/** `env` with its `process.start` and `process.launch` recording each pid into `pids`. */
function recording(env: Env, pids: Set<number>): Env {
  const process: Env["process"] = {
    ...env.process,
    start(command, opts) {
      const handle = env.process.start(command, opts);
      handle.pid.then(
        (pid) => pids.add(pid),
        () => undefined,
      );
      return handle;
    },
    async launch(command, opts) {
      const r = await env.process.launch(command, opts);
      pids.add(r.pid);
      return r;
    },
  };
  return {
    address: env.address,
    mouse: env.mouse,
    keyboard: env.keyboard,
    screen: env.screen,
    system: env.system,
    files: env.files,
    process,
    clipboard: env.clipboard,
    windows: env.windows,
    accessibility: env.accessibility,
    waitUntilReady: (opts) => env.waitUntilReady(opts),
    close: () => env.close(),
  };
}

/**
 * Tracks the processes an attempt starts through its machines' daemons, so that afterwards the
 * runner stops those and only those: a machine the run does not own (a remote desktop) keeps what
 * its user started through the same daemon. A command's own children that left its process group
 * are the daemon's to contain (its cgroup per command), as they were before.
 */
export function ownProcesses(envs: Readonly<Record<string, Env>>): OwnProcesses {
  const started = new Map<string, Set<number>>(Object.keys(envs).map((name) => [name, new Set<number>()]));
  return {
    envs: Object.fromEntries(Object.entries(envs).map(([name, env]) => [name, recording(env, started.get(name)!)])),
    async stop() {
      await Promise.all(
        Object.entries(envs).map(async ([name, env]) => {
          const mine = started.get(name)!;
          if (mine.size === 0) return;
          const running = await env.process.list({ timeoutMs: 5_000 }).catch(() => []);
          const kill = running.filter((p) => mine.has(p.pid));
          await Promise.all(kill.map((p) => env.process.signal(p.pid, "SIGKILL", { timeoutMs: 5_000 }).catch(() => undefined)));
        }),
      );
    },
  };
}
