import { FailedPreconditionError, InvalidArgumentError, UnauthenticatedError, UnavailableError } from "@pincer/shared";
import { connect } from "../env/index.js";
import type { ConnectOptions, Env } from "../env/index.js";
import { connectOptionsOf, diagnoseTls, machineOfFlags, type CredentialFlags, type MachineSpec } from "./credentials.js";
import { startLocalMachine, type LocalMachineOptions } from "./localMachine.js";

/** The machines one task runs on at a time: one env handle per environment name. */
export interface EnvironmentSlot {
  index: number;
  envs: Readonly<Record<string, Env>>;
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
    return { index, envs, addresses, machines: specs };
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
