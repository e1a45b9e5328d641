import { startLocalMachine, type LocalMachine, type LocalMachineOptions } from "./localMachine.js";
import { openPool, type MachinePool, type MachineProvider, type ProvidedMachine } from "./provider.js";
import { removeDeadSandboxes, sandboxSupport } from "./sandbox.js";

/**
 * The default provider: a local machine (a daemon with its own Xvfb, in a sandbox where available)
 * per environment name and slot, made on demand. A reset replaces the machine with a new one (a new
 * sandbox), so nothing a task did reaches the next.
 */
export function localProvider(opts: LocalMachineOptions = {}): MachineProvider {
  const mode = opts.sandbox ?? sandboxSupport().mode;
  if (mode === "overlay") void removeDeadSandboxes();
  const started = new WeakMap<ProvidedMachine, LocalMachine>();
  const make = async (): Promise<ProvidedMachine> => {
    const m = await startLocalMachine({ ...opts, sandbox: mode });
    const provided: ProvidedMachine = { env: m.env, address: `${m.address} (display ${m.display}, sandbox ${m.sandbox})`, fresh: true };
    started.set(provided, m);
    return provided;
  };
  const release = async (machine: ProvidedMachine) => void (await started.get(machine)?.close());
  return {
    name: "local",
    config: () => ({
      sandbox: mode,
      screen: `${opts.width ?? 1280}x${opts.height ?? 800}`,
      ...(opts.daemonCommand ? { daemon_command: opts.daemonCommand } : {}),
      ...(opts.accessibilityBus ? { accessibility_bus: true } : {}),
      wallpaper: opts.wallpaper ?? true,
      ...(mode === "overlay" ? { network: opts.network ? "user-mode (slirp4netns)" : "none" } : {}),
    }),
    acquire: () => make(),
    reset: async (machine) => {
      await release(machine);
      return { machine: await make(), method: mode === "overlay" ? "new sandbox" : "new machine" };
    },
    release,
  };
}

/** {@link openPool} over {@link localProvider}: `concurrency` slots with a local machine per name. */
export function startLocalPool(names: readonly string[], concurrency: number, opts: LocalMachineOptions = {}): Promise<MachinePool> {
  return openPool(localProvider(opts), names, concurrency);
}
