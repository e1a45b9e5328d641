import { FailedPreconditionError, InvalidArgumentError, UnauthenticatedError, UnavailableError } from "@pincer/shared";
import { connect } from "../env/index.js";
import type { ConnectOptions, Env } from "../env/index.js";
import { connectOptionsOf, diagnoseTls, machineOfFlags, type CredentialFlags, type MachineSpec } from "./credentials.js";
import { startLocalMachine, type LocalMachine, type LocalMachineOptions } from "./localMachine.js";

/** How one machine was brought to its clean state before an attempt. */
export interface MachineReset {
  /** "local" (the embedded default) or "remote". */
  provider: string;
  /**
   * "new sandbox" (a local machine started afresh in a new sandbox), "new machine" (a local one
   * without a sandbox), "fresh" (first use since it started), "command" (a remote machine's reset
   * command), or "none" (a remote machine without one: it keeps what earlier tasks left).
   */
  method: string;
  ms: number;
}

/** The machines one task runs on at a time: one env handle per environment name. */
export interface EnvironmentSlot {
  index: number;
  /** Read at the start of each attempt: a reset may replace the machines. */
  envs: Readonly<Record<string, Env>>;
  /** Brings every machine of the slot to its clean state; the runner calls it before each attempt. */
  reset?: (signal?: AbortSignal) => Promise<Record<string, MachineReset>>;
  /** Daemon addresses by environment name, for the summary. */
  addresses: Readonly<Record<string, string>>;
  /** How each remote machine is reached (remote pools only). */
  machines?: Readonly<Record<string, MachineSpec>>;
}

/** Slots for concurrent tasks; the pool owns the machines it started and closes them. */
export interface EnvironmentPool {
  slots: EnvironmentSlot[];
  /** "embedded" or "remote". */
  kind: string;
  close(): Promise<void>;
}

/**
 * The embedded default: per slot, one local machine (a daemon with its own Xvfb, in a sandbox where
 * available) for each environment name. Machines start in parallel; if any fails, the ones started
 * are stopped again. A slot's reset replaces its machines with new ones (a new sandbox each), so
 * nothing a task did reaches the next; a slot's first reset only marks its machines used.
 */
export async function startLocalPool(names: readonly string[], concurrency: number, opts: LocalMachineOptions = {}): Promise<EnvironmentPool> {
  const startAll = async (): Promise<LocalMachine[]> => {
    const settled = await Promise.allSettled(names.map(() => startLocalMachine(opts)));
    const ok = settled.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
    const failed = settled.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failed) {
      await Promise.all(ok.map((m) => m.close()));
      throw failed.reason;
    }
    return ok;
  };
  const settled = await Promise.allSettled(Array.from({ length: concurrency }, startAll));
  const started = settled.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
  const failed = settled.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed) {
    await Promise.all(started.flat().map((m) => m.close()));
    throw failed.reason;
  }
  const current = started;
  const describe = (ms: LocalMachine[]) => ({
    envs: Object.fromEntries(names.map((n, i) => [n, ms[i]!.env])),
    addresses: Object.fromEntries(names.map((n, i) => [n, `${ms[i]!.address} (display ${ms[i]!.display}, sandbox ${ms[i]!.sandbox})`])),
  });
  const slots: EnvironmentSlot[] = current.map((machines, index) => {
    let used = false;
    const slot: EnvironmentSlot = {
      index,
      ...describe(machines),
      reset: async () => {
        const t0 = performance.now();
        if (!used) {
          used = true;
          return Object.fromEntries(names.map((n) => [n, { provider: "local", method: "fresh", ms: 0 }]));
        }
        await Promise.all(current[index]!.map((m) => m.close()));
        current[index] = await startAll();
        Object.assign(slot, describe(current[index]!));
        const ms = performance.now() - t0;
        return Object.fromEntries(
          current[index]!.map((m, i) => [names[i]!, { provider: "local", method: m.sandbox === "overlay" ? "new sandbox" : "new machine", ms }]),
        );
      },
    };
    return slot;
  });
  return { slots, kind: "embedded", close: async () => void (await Promise.all(current.flat().map((m) => m.close()))) };
}

/**
 * Parses `--env name=host:port[,host:port…]` flags into machines per environment name, each with
 * the credentials of the flags.
 */
export function machinesOfEnvFlags(specs: readonly string[], flags: CredentialFlags = {}): Map<string, MachineSpec[]> {
  const byName = new Map<string, MachineSpec[]>();
  for (const spec of specs) {
    const m = /^([A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*)=(.+)$/.exec(spec);
    if (!m)
      throw new InvalidArgumentError(
        `--env ${JSON.stringify(spec)}: write name=host:port (e.g. desktop=10.0.0.5:50051), several addresses separated by commas`,
      );
    if (byName.has(m[1]!)) throw new InvalidArgumentError(`--env: ${m[1]} is given twice; list its addresses in one --env separated by commas`);
    const addresses = m[2]!
      .split(",")
      .map((a) => a.trim())
      .filter(Boolean);
    byName.set(
      m[1]!,
      addresses.map((a) => machineOfFlags(a, flags)),
    );
  }
  return byName;
}

/**
 * Remote machines, as `--env` specs (`name=host:port[,host:port…]`, with the credentials of
 * `flags`) or machines per environment name (a machines file). Slot i uses the i-th machine of
 * every name, so the number of slots is the shortest list. Nothing is connected until
 * {@link checkPool} or the first call.
 */
export function remotePool(
  machines: readonly string[] | ReadonlyMap<string, MachineSpec[]>,
  flags: CredentialFlags = {},
  /** Connection settings for every machine (deadlines, keepalive), under each machine's credentials. */
  connectOptions: ConnectOptions = {},
): EnvironmentPool {
  const byName = Array.isArray(machines) ? machinesOfEnvFlags(machines as readonly string[], flags) : (machines as ReadonlyMap<string, MachineSpec[]>);
  const count = Math.min(...[...byName.values()].map((a) => a.length));
  const handles: Env[] = [];
  const slots = Array.from({ length: count }, (_, index) => {
    const envs: Record<string, Env> = {};
    const addresses: Record<string, string> = {};
    const specs: Record<string, MachineSpec> = {};
    for (const [name, list] of byName) {
      const spec = list[index]!;
      const env = connect(spec.address, { ...connectOptions, ...connectOptionsOf(spec) });
      handles.push(env);
      envs[name] = env;
      addresses[name] = spec.address;
      specs[name] = spec;
    }
    const slot: EnvironmentSlot = { index, envs, addresses, machines: specs, reset: (signal) => resetRemote(slot, signal) };
    return slot;
  });
  return {
    slots,
    kind: "remote",
    close: async () => {
      for (const h of handles) h.close();
    },
  };
}

/**
 * Resets a remote slot's machines at once: each machine's reset command (a /bin/sh line run
 * through its daemon; one that takes the daemon down, such as a snapshot revert, is waited out for
 * up to two minutes), or nothing for a machine without one.
 */
async function resetRemote(slot: EnvironmentSlot, signal?: AbortSignal): Promise<Record<string, MachineReset>> {
  const entries = await Promise.all(
    Object.entries(slot.envs).map(async ([name, env]): Promise<[string, MachineReset]> => {
      const command = slot.machines?.[name]?.reset;
      if (!command) return [name, { provider: "remote", method: "none", ms: 0 }];
      const t0 = performance.now();
      try {
        const r = await env.process.run(command, { commandTimeoutMs: 600_000, ...(signal ? { signal } : {}) });
        if (r.exitCode !== 0) throw new Error(`the reset command of ${name} exited with ${r.exitCode ?? r.signal}: ${r.stderr.trim().slice(-500)}`);
      } catch (err) {
        if (!(err instanceof UnavailableError)) throw err;
      }
      await env.system.info({ waitForReady: true, timeoutMs: 120_000, ...(signal ? { signal } : {}) });
      return [name, { provider: "remote", method: "command", ms: performance.now() - t0 }];
    }),
  );
  return Object.fromEntries(entries);
}

/**
 * Connects to every machine of a remote pool at once and asks each for its info. Resolves when all
 * answer; otherwise throws one error listing each machine that did not, with the reason and, for a
 * refused TLS handshake or token, the flag that fixes it.
 */
export async function checkPool(pool: EnvironmentPool, timeoutMs = 15_000): Promise<void> {
  const checks = pool.slots.flatMap((slot) =>
    Object.entries(slot.envs).map(async ([name, env]) => {
      const spec = slot.machines?.[name];
      try {
        await env.system.info({ timeoutMs, waitForReady: false });
        return undefined;
      } catch (err) {
        const tlsProblem = spec && err instanceof UnavailableError ? await diagnoseTls(spec) : undefined;
        const tokenProblem =
          err instanceof UnauthenticatedError
            ? `${spec?.address ?? name} refused the token (${err.message.replace(/^.*refused the credentials: /, "").split(". Pass")[0]}): ` +
              "pass --token-file <the daemon's token file> or set PINCER_TOKEN (in a machines file: tokenFile)"
            : undefined;
        return `  ${name} (slot ${slot.index + 1}): ${tlsProblem ?? tokenProblem ?? (err as Error).message}`;
      }
    }),
  );
  const problems = (await Promise.all(checks)).filter((p): p is string => p !== undefined);
  if (problems.length > 0) throw new FailedPreconditionError(`cannot use these machines:\n${problems.join("\n")}`);
}
