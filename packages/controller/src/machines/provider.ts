import type { Env } from "../env/index.js";
import type { MachineSpec } from "./credentials.js";

/** One machine a provider handed out for an environment name in a slot. */
export interface ProvidedMachine {
  env: Env;
  /** Where its daemon listens, with what helps a person find it (display, sandbox, container). */
  address: string;
  /** How a remote machine is reached and reset (remote providers only). */
  spec?: MachineSpec;
  /** Nothing has run on it since the provider made it: the pool skips its first reset. */
  fresh: boolean;
}

/**
 * Where a run's machines come from. A provider gives the runner a machine per environment name and
 * slot, brings a machine back to its clean state before every attempt, and takes it back at the
 * end. Pincer has `local` (a sandboxed daemon and Xvfb on this computer), `remote` (daemons at
 * given addresses, with an optional reset command each), `container` (a fresh container per task
 * from a Pincer image) and `qemu` (VMs from a Pincer image, reset to a snapshot per task).
 */
export interface MachineProvider {
  /** Short name recorded in summary.json and the manifest: "local", "remote", … */
  readonly name: string;
  /** How many slots it can serve at once, or undefined when it makes machines on demand. */
  readonly capacity?: number;
  /** The provider's configuration for the run manifest (file names, never secrets). */
  config(): Record<string, unknown>;
  /** A machine for environment `envName` in slot `slot` (0-based). */
  acquire(envName: string, slot: number, signal?: AbortSignal): Promise<ProvidedMachine>;
  /**
   * Brings a used machine to its clean state. Resolves to the machine to use from now on (the same
   * one, or a new one that replaces it) and how it was reset ("new sandbox", "command", "none", …),
   * with `why` when it fell back from its usual method. A reset that fails (a new machine that does
   * not start, a cancel) leaves the machine the provider's: the next reset of it tries again.
   */
  reset(machine: ProvidedMachine, signal?: AbortSignal): Promise<{ machine: ProvidedMachine; method: string; why?: string }>;
  /** Gives a machine back: stops it, or disconnects from it. */
  release(machine: ProvidedMachine): Promise<void>;
  /** Frees what the provider itself holds (an engine service it started, say), after every machine is released. */
  close?(): Promise<void>;
}

/** How one machine was brought to its clean state before an attempt. */
export interface MachineReset {
  /** The provider's name ("local", "remote", …). */
  provider: string;
  /**
   * "fresh" (first use since the provider made it), or the provider's method: "new sandbox" and
   * "new machine" (local), "command" (a remote machine's reset command), "none" (a remote machine
   * without one: it keeps what earlier tasks left).
   */
  method: string;
  ms: number;
  /** Why the provider did not reset the usual way, when it did not (its snapshot did not come back, say): the error's first line. */
  why?: string;
}

/** The machines one task runs on at a time: one env handle per environment name. */
export interface MachineSlot {
  index: number;
  /** Read at the start of each attempt: a reset may replace the machines. */
  envs: Readonly<Record<string, Env>>;
  /**
   * Brings the machines of `names` (default: all) to their clean state, at once; the runner calls
   * it before each attempt with the task's environments.
   */
  reset?: (names?: readonly string[], signal?: AbortSignal) => Promise<Record<string, MachineReset>>;
  /** Daemon addresses by environment name, for the summary. */
  addresses: Readonly<Record<string, string>>;
  /** How each remote machine is reached (remote providers only). */
  machines?: Readonly<Record<string, MachineSpec>>;
}

/** Slots for concurrent tasks, filled by a provider; closing it releases every machine. */
export interface MachinePool {
  slots: MachineSlot[];
  /** Where the machines come from: the provider's name and configuration, for the manifest. */
  provider: { name: string; config: Record<string, unknown> };
  close(): Promise<void>;
}

/** Settles every promise; if any rejected, releases what was made and throws the first reason. */
async function allOrRelease<T>(jobs: Promise<T>[], release: (made: T[]) => Promise<unknown>): Promise<T[]> {
  const settled = await Promise.allSettled(jobs);
  const made = settled.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
  const failed = settled.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed) {
    await release(made);
    throw failed.reason;
  }
  return made;
}

/**
 * Opens `concurrency` slots (at most the provider's capacity) with a machine for each of `names`,
 * all acquired at once; if any cannot be had, those acquired are released and the error thrown.
 */
export async function openPool(provider: MachineProvider, names: readonly string[], concurrency: number): Promise<MachinePool> {
  const count = Math.max(1, Math.min(concurrency, provider.capacity ?? concurrency));
  const acquired = await allOrRelease(
    Array.from({ length: count }, (_, slot) =>
      allOrRelease(
        names.map((n) => provider.acquire(n, slot)),
        (made) => Promise.all(made.map((m) => provider.release(m))),
      ),
    ),
    // Nothing is handed out: the provider's own resources go too.
    (made) => Promise.all(made.flat().map((m) => provider.release(m))).finally(() => provider.close?.()),
  );
  const current = acquired.map((list) => new Map(names.map((n, i) => [n, list[i]!])));
  const describe = (slot: MachineSlot, byName: Map<string, ProvidedMachine>) => {
    slot.envs = Object.fromEntries([...byName].map(([n, m]) => [n, m.env]));
    slot.addresses = Object.fromEntries([...byName].map(([n, m]) => [n, m.address]));
    const specs = [...byName].filter(([, m]) => m.spec);
    if (specs.length > 0) slot.machines = Object.fromEntries(specs.map(([n, m]) => [n, m.spec!]));
  };
  const slots = current.map((byName, index) => {
    const slot: MachineSlot = { index, envs: {}, addresses: {} };
    describe(slot, byName);
    slot.reset = async (only = names, signal) => {
      const entries = await Promise.all(
        only.map(async (name): Promise<[string, MachineReset]> => {
          const machine = byName.get(name);
          if (!machine) throw new Error(`slot ${index + 1} has no machine for ${name}`);
          if (machine.fresh) {
            machine.fresh = false;
            return [name, { provider: provider.name, method: "fresh", ms: 0 }];
          }
          const t0 = performance.now();
          const done = await provider.reset(machine, signal);
          done.machine.fresh = false;
          byName.set(name, done.machine);
          const ms = Math.round(performance.now() - t0);
          return [name, { provider: provider.name, method: done.method, ms, ...(done.why ? { why: done.why } : {}) }];
        }),
      );
      describe(slot, byName);
      return Object.fromEntries(entries);
    };
    return slot;
  });
  return {
    slots,
    provider: { name: provider.name, config: provider.config() },
    close: async () => {
      try {
        await Promise.all(current.flatMap((byName) => [...byName.values()].map((m) => provider.release(m))));
      } finally {
        await provider.close?.();
      }
    },
  };
}
