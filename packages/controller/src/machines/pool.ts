import { InvalidArgumentError } from "@pincer/shared";
import { connect } from "../env/index.js";
import type { Env } from "../env/index.js";
import { startLocalMachine, type LocalMachineOptions } from "./localMachine.js";

/** The machines one task runs on at a time: one env handle per environment name. */
export interface EnvironmentSlot {
  index: number;
  envs: Readonly<Record<string, Env>>;
  /** Daemon addresses by environment name, for the summary. */
  addresses: Readonly<Record<string, string>>;
}

/** Slots for concurrent tasks; the pool owns the machines it started and closes them. */
export interface EnvironmentPool {
  slots: EnvironmentSlot[];
  /** "embedded" or "remote". */
  kind: string;
  close(): Promise<void>;
}

/**
 * The embedded default: per slot, one local Xvfb display and daemon for each environment name.
 * Machines start in parallel; if any fails, the ones started are stopped again.
 */
export async function startLocalPool(names: readonly string[], concurrency: number, opts: LocalMachineOptions = {}): Promise<EnvironmentPool> {
  const starts = Array.from({ length: concurrency }, () => names.map(() => startLocalMachine(opts)));
  const settled = await Promise.allSettled(starts.flat());
  const machines = settled.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === "rejected");
  if (failed) {
    await Promise.all(machines.map((m) => m.close()));
    throw failed.reason;
  }
  const slots = Array.from({ length: concurrency }, (_, index) => {
    const mine = machines.slice(index * names.length, (index + 1) * names.length);
    return {
      index,
      envs: Object.fromEntries(names.map((n, i) => [n, mine[i]!.env])),
      addresses: Object.fromEntries(names.map((n, i) => [n, `${mine[i]!.address} (display ${mine[i]!.display})`])),
    };
  });
  return { slots, kind: "embedded", close: async () => void (await Promise.all(machines.map((m) => m.close()))) };
}

/**
 * Remote machines given as `name=host:port[,host:port…]`: slot i uses the i-th address of every
 * name, so the number of slots is the shortest list.
 */
export function remotePool(specs: readonly string[]): EnvironmentPool {
  const byName = new Map<string, string[]>();
  for (const spec of specs) {
    const m = /^([A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*)=(.+)$/.exec(spec);
    if (!m)
      throw new InvalidArgumentError(
        `--env ${JSON.stringify(spec)}: write name=host:port (e.g. desktop=10.0.0.5:50051), several addresses separated by commas`,
      );
    if (byName.has(m[1]!)) throw new InvalidArgumentError(`--env: ${m[1]} is given twice; list its addresses in one --env separated by commas`);
    byName.set(
      m[1]!,
      m[2]!
        .split(",")
        .map((a) => a.trim())
        .filter(Boolean),
    );
  }
  const count = Math.min(...[...byName.values()].map((a) => a.length));
  const handles: Env[] = [];
  const slots = Array.from({ length: count }, (_, index) => {
    const envs: Record<string, Env> = {};
    const addresses: Record<string, string> = {};
    for (const [name, list] of byName) {
      const env = connect(list[index]!);
      handles.push(env);
      envs[name] = env;
      addresses[name] = list[index]!;
    }
    return { index, envs, addresses };
  });
  return {
    slots,
    kind: "remote",
    close: async () => {
      for (const h of handles) h.close();
    },
  };
}
