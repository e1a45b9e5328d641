import { FailedPreconditionError, InvalidArgumentError, UnauthenticatedError, UnavailableError } from "@pincer/shared";
import { connect } from "../env/index.js";
import type { ConnectOptions } from "../env/index.js";
import { connectOptionsOf, diagnoseTls, machineSpecOf, type DefaultCredentials, type MachineSpec } from "./credentials.js";
import { openPool, type MachinePool, type MachineProvider, type ProvidedMachine } from "./provider.js";

/**
 * Parses `--env name=host:port[,host:port…]` flags into machines per environment name, each with
 * the credentials of the flags.
 */
export function machinesOfEnvFlags(specs: readonly string[], flags: DefaultCredentials = {}): Map<string, MachineSpec[]> {
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
    const portless = addresses.find((a) => !/:\d+$/.test(a) && !a.startsWith("unix:"));
    if (portless) {
      throw new InvalidArgumentError(
        `--env ${spec}: ${JSON.stringify(portless)} has no port; write ${m[1]}=${portless.replace(/:$/, "")}:50051 (pincer-daemon's default port)`,
      );
    }
    byName.set(
      m[1]!,
      addresses.map((a) => machineSpecOf(a, flags)),
    );
  }
  return byName;
}

/**
 * Remote machines, as `--env` specs (`name=host:port[,host:port…]`, with the credentials of
 * `flags`) or machines per environment name (a machines file). Slot i uses the i-th machine of
 * every name, so the capacity is the shortest list. Acquiring makes a channel; nothing is connected
 * until {@link checkPool} or the first call. A reset runs the machine's reset command, if it has one.
 */
export function remoteProvider(
  machines: readonly string[] | ReadonlyMap<string, MachineSpec[]>,
  flags: DefaultCredentials = {},
  /** Connection settings for every machine (deadlines, keepalive), under each machine's credentials. */
  connectOptions: ConnectOptions = {},
): MachineProvider {
  const byName = machinesOf(machines, flags);
  return {
    name: "remote",
    capacity: Math.min(...[...byName.values()].map((a) => a.length)),
    // How each machine is reached and reset (file names only, no secrets).
    config: () => ({
      machines: Object.fromEntries(
        [...byName].map(([name, list]) => [
          name,
          list.map((m) => ({ address: m.address, token_file: m.tokenFile ?? null, tls: m.tls ?? null, reset: m.reset ?? null })),
        ]),
      ),
    }),
    acquire: async (name, slot) => {
      const spec = byName.get(name)?.[slot];
      if (!spec) throw new InvalidArgumentError(`no machine is given for ${name} in slot ${slot + 1}; give it with --env ${name}=host:port`);
      return { env: connect(spec.address, { ...connectOptions, ...connectOptionsOf(spec) }), address: spec.address, spec, fresh: false };
    },
    reset: async (machine, signal) => ({ machine, method: await resetRemote(machine, signal) }),
    release: async (machine) => machine.env.close(),
  };
}

/** {@link openPool} over {@link remoteProvider}, with as many slots as there are machines per name. */
export function remotePool(
  machines: readonly string[] | ReadonlyMap<string, MachineSpec[]>,
  flags: DefaultCredentials = {},
  connectOptions: ConnectOptions = {},
): Promise<MachinePool> {
  const provider = remoteProvider(machines, flags, connectOptions);
  return openPool(provider, [...machinesOf(machines, flags).keys()], provider.capacity!);
}

/** Machines per environment name, from `--env` specs or as given. */
function machinesOf(machines: readonly string[] | ReadonlyMap<string, MachineSpec[]>, flags: DefaultCredentials): ReadonlyMap<string, MachineSpec[]> {
  return Array.isArray(machines) ? machinesOfEnvFlags(machines as readonly string[], flags) : (machines as ReadonlyMap<string, MachineSpec[]>);
}

/**
 * Runs a remote machine's reset command (a /bin/sh line run through its daemon; one that takes the
 * daemon down, such as a snapshot revert, is waited out for up to two minutes); "none" without one.
 */
async function resetRemote(machine: ProvidedMachine, signal?: AbortSignal): Promise<string> {
  const command = machine.spec?.reset;
  if (!command) return "none";
  const { env } = machine;
  try {
    const r = await env.process.run(command, { commandTimeoutMs: 600_000, ...(signal ? { signal } : {}) });
    if (r.exitCode !== 0) {
      const output = (r.stderr.trim() || r.stdout.trim()).slice(-500) || "it printed nothing";
      throw new Error(`the reset command of ${machine.address} (${JSON.stringify(command)}) exited with ${r.exitCode ?? r.signal}: ${output}`);
    }
  } catch (err) {
    if (!(err instanceof UnavailableError)) throw err;
  }
  await env.system.info({ waitForReady: true, timeoutMs: 120_000, ...(signal ? { signal } : {}) });
  return "command";
}

/**
 * Why a machine cannot be used, from the error of a call to it: for a refused TLS handshake or
 * token, what is wrong and the flag that fixes it; otherwise the error's message.
 */
export async function machineProblem(err: unknown, spec: MachineSpec | undefined, name: string): Promise<string> {
  const tlsProblem = spec && err instanceof UnavailableError ? await diagnoseTls(spec) : undefined;
  const tokenProblem =
    err instanceof UnauthenticatedError
      ? `${spec?.address ?? name} refused the token (${err.message.replace(/^.*refused the credentials: /, "").split(". Pass")[0]}): ` +
        "pass --token-file <the daemon's token file> or set PINCER_TOKEN (in a machines file: tokenFile)"
      : undefined;
  return tlsProblem ?? tokenProblem ?? (err as Error).message;
}

/**
 * Connects to every machine of a remote pool at once and asks each for its info. Resolves when all
 * answer; otherwise throws one error listing each machine that did not, with the reason and, for a
 * refused TLS handshake or token, the flag that fixes it. With `needsScreen`, each machine's screen
 * is asked for too, so that a daemon without a display fails the run before its first task.
 */
export async function checkPool(pool: MachinePool, timeoutMs = 15_000, opts: { needsScreen?: boolean } = {}): Promise<void> {
  const checks = pool.slots.flatMap((slot) =>
    Object.entries(slot.envs).map(async ([name, env]) => {
      try {
        await env.system.info({ timeoutMs, waitForReady: false });
      } catch (err) {
        return `  ${name} (slot ${slot.index + 1}): ${await machineProblem(err, slot.machines?.[name], name)}`;
      }
      if (!opts.needsScreen) return undefined;
      // A run that takes screenshots needs each machine's screen: a daemon without a display
      // answers, but every screenshot would fail, task after task.
      return env.screen.size({ timeoutMs }).then(
        () => undefined,
        (err: unknown) => `  ${name} (slot ${slot.index + 1}): it has no usable screen, and the run takes screenshots: ${(err as Error).message}`,
      );
    }),
  );
  const problems = (await Promise.all(checks)).filter((p): p is string => p !== undefined);
  if (problems.length > 0) throw new FailedPreconditionError(`cannot use these machines:\n${problems.join("\n")}`);
}
