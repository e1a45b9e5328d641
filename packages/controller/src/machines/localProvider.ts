import { FailedPreconditionError } from "@pincer/shared";
import { startLocalMachine, type LocalMachine, type LocalMachineOptions } from "./localMachine.js";
import { openPool, type MachinePool, type MachineProvider, type ProvidedMachine } from "./provider.js";
import { privateChangedSince, removeDeadSandboxes, sandboxSupport } from "./sandbox.js";
import { Spares } from "./spares.js";

/** Options of {@link localProvider}. */
export interface LocalProviderOptions extends LocalMachineOptions {
  /**
   * Keep a spare machine per slot and environment, started while the task runs, so that a reset
   * hands it out at once and stops the used one behind it. Costs a second daemon and Xvfb per slot
   * (about 100 MB) and their start-up CPU during each task. @default true
   */
  spare?: boolean;
}

/**
 * The default provider: a local machine (a daemon with its own Xvfb, in a sandbox where available)
 * per environment name and slot. A reset replaces the machine with a new one (a new sandbox), so
 * nothing a task did reaches the next: the slot's spare, started while the task ran and never used,
 * or one started then. The used machine is stopped behind the reset. A spare is handed out only
 * if nothing on this computer became private since it started (its sandbox would show it).
 */
export function localProvider(opts: LocalProviderOptions = {}): MachineProvider {
  const mode = opts.sandbox ?? sandboxSupport().mode;
  if (mode === "overlay") void removeDeadSandboxes();
  const { spare: keepSpare = true, ...machineOpts } = opts;
  const start = () => startLocalMachine({ ...machineOpts, sandbox: mode });
  const started = new Map<ProvidedMachine, { m: LocalMachine; key: string }>();
  const spares = new Spares<LocalMachine>({
    start,
    answers: async (m) => {
      // A spare hides what was private on this computer when it started; one that would show a
      // secret written since is stopped, and the reset starts a machine that hides it.
      const [, changed] = await Promise.all([
        m.env.system.info({ timeoutMs: 5_000 }),
        m.sandboxPreparedMs === undefined ? undefined : privateChangedSince(m.sandboxPreparedMs),
      ]);
      return changed === undefined;
    },
    stop: (m) => m.close(),
  });
  const provide = (m: LocalMachine, key: string): ProvidedMachine => {
    const provided: ProvidedMachine = { env: m.env, address: `${m.address} (display ${m.display}, sandbox ${m.sandbox})`, fresh: true };
    started.set(provided, { m, key });
    if (keepSpare) spares.prepare(key);
    return provided;
  };
  const method = mode === "overlay" ? "new sandbox" : "new machine";
  return {
    name: "local",
    config: () => ({
      sandbox: mode,
      screen: `${opts.width ?? 1280}x${opts.height ?? 800}`,
      ...(opts.daemonCommand ? { daemon_command: opts.daemonCommand } : {}),
      ...(opts.accessibilityBus ? { accessibility_bus: true } : {}),
      wallpaper: opts.wallpaper ?? true,
      ...(opts.drivers ? { drivers: opts.drivers } : {}),
      spare: keepSpare,
      ...(mode === "overlay" ? { network: opts.network ? "user-mode (slirp4netns)" : "none" } : {}),
    }),
    acquire: async (envName, slot) => provide(await start(), `${slot}/${envName}`),
    reset: async (machine) => {
      const used = started.get(machine);
      if (!used) throw new FailedPreconditionError(`reset: ${machine.address} is not a machine this provider made (or it was released)`);
      const next = await spares.take(used.key);
      if (next) spares.retire(used.m);
      else await used.m.close();
      // A new machine that fails to start leaves the slot's entry: the next reset tries again.
      const fresh = next ?? (await start());
      started.delete(machine);
      return { machine: provide(fresh, used.key), method };
    },
    release: async (machine) => {
      const used = started.get(machine);
      if (!used) return;
      started.delete(machine);
      await Promise.all([used.m.close(), spares.drop(used.key)]);
    },
    close: () => spares.drain(),
  };
}

/** {@link openPool} over {@link localProvider}: `concurrency` slots with a local machine per name. */
export function startLocalPool(names: readonly string[], concurrency: number, opts: LocalProviderOptions = {}): Promise<MachinePool> {
  return openPool(localProvider(opts), names, concurrency);
}
