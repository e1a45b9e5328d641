import { CancelledError, FailedPreconditionError } from "@pincer/shared";
import type { Env } from "../env/index.js";
import type { MachineProvider, ProvidedMachine } from "./provider.js";
import { setGuestClock } from "./qmp.js";
import { kvmWorks, QemuVm, removeStaleVmDirs, type QemuAccel, type QemuVmSpec } from "./qemuVm.js";

/** Options of {@link qemuProvider}: the image (what `makeQcow2` made) and how each VM runs. */
export interface QemuProviderOptions {
  /** The image's qcow2 disk; read only: every VM writes to an overlay of its own. */
  disk: string;
  kernel: string;
  initrd: string;
  /** The kernel command line. */
  append: string;
  /** Memory of each VM, in MiB. @default 1024 */
  memoryMb?: number;
  /** Virtual CPUs of each VM. @default 1 */
  cpus?: number;
  /** "auto": KVM when a probe shows it works here, TCG (emulation) otherwise. @default "auto" */
  accel?: "auto" | QemuAccel;
  /** Longest a cold boot may take until the daemon answers, in milliseconds. @default 240_000 */
  bootTimeoutMs?: number;
  /** Longest a reset to the snapshot may take until the daemon answers, in milliseconds; then the VM is booted anew. @default 30_000 */
  resetTimeoutMs?: number;
  /** Where the provider says what it does (the accelerator it chose, VMs replaced after a failed reset). @default nothing */
  log?: (line: string) => void;
}

/** The qemu {@link MachineProvider}, with a look at its VMs (for tests and diagnostics). */
export interface QemuProvider extends MachineProvider {
  /** The accelerator the VMs use (runs the KVM probe once, for "auto"). */
  accel(): Promise<QemuAccel>;
  /** The VM behind a machine, or behind the env of one, while it is acquired. */
  vmOf(machine: ProvidedMachine | Env): QemuVm | undefined;
  /** The VMs acquired and not yet released. */
  vms(): QemuVm[];
}

/** The snapshot every VM is reset to: taken in its own overlay once its daemon first answered. */
export const READY_SNAPSHOT = "pincer-ready";

interface Held {
  vm: QemuVm;
  envName: string;
  slot: number;
}

/**
 * Virtual machines from a Pincer VM image, one per environment name and slot, booted in parallel.
 * Each VM runs on a qcow2 overlay of the read-only disk, with a token of its own handed in through
 * fw_cfg and its daemon forwarded to a free port on 127.0.0.1. Once its daemon answers, the VM's
 * state is saved in its overlay (`savevm pincer-ready`); a reset loads it back through QMP
 * (`loadvm`, about a second), sets the guest's clock through its agent and waits for the daemon.
 * A VM whose reset fails or overruns `resetTimeoutMs` is killed and booted anew ("new boot").
 * Releasing quits QEMU (SIGKILL by PID if it lingers) and removes the overlay, token and sockets;
 * QEMU dies with this process too (`setpriv --pdeathsig KILL`).
 */
export function qemuProvider(opts: QemuProviderOptions): QemuProvider {
  const log = opts.log ?? (() => undefined);
  const held = new WeakMap<Env, Held>();
  const live = new Set<QemuVm>();
  let accel: Promise<QemuAccel> | undefined;
  let chosen: QemuAccel | undefined;
  const resolveAccel = () => (accel ??= chooseAccel(opts.accel ?? "auto", log).then((a) => (chosen = a)));
  const boot = async (envName: string, slot: number, signal?: AbortSignal): Promise<ProvidedMachine> => {
    const spec: QemuVmSpec = {
      ...{ disk: opts.disk, kernel: opts.kernel, initrd: opts.initrd, append: opts.append },
      ...{ memoryMb: opts.memoryMb ?? 1024, cpus: opts.cpus ?? 1, accel: await resolveAccel() },
      name: `pincer-${envName}-${slot}`.replaceAll(",", ",,"),
    };
    const t0 = performance.now();
    const vm = await bootToSnapshot(spec, opts.bootTimeoutMs ?? 240_000, live, signal);
    log(`qemu: ${spec.name} booted in ${Math.round(performance.now() - t0)} ms (${spec.accel}, pid ${vm.pid}, ${vm.address})`);
    return machineOf({ vm, envName, slot }, true);
  };
  const machineOf = (h: Held, fresh: boolean): ProvidedMachine => {
    const env = h.vm.connect();
    held.set(env, h);
    return { env, address: `${h.vm.address} (qemu ${h.vm.spec.accel}, pid ${h.vm.pid})`, fresh };
  };
  const stop = async (h: Held) => {
    live.delete(h.vm);
    await h.vm.stop();
  };
  return {
    name: "qemu",
    config: () => ({
      disk: opts.disk,
      accel: chosen ?? opts.accel ?? "auto",
      memory_mb: opts.memoryMb ?? 1024,
      cpus: opts.cpus ?? 1,
    }),
    acquire: (envName, slot, signal) => boot(envName, slot, signal),
    reset: async (machine, signal) => {
      const h = held.get(machine.env);
      if (!h) throw new FailedPreconditionError(`qemu: ${machine.address} is not a machine of this provider (released already?)`);
      machine.env.close();
      held.delete(machine.env);
      try {
        await restore(h.vm, opts.resetTimeoutMs ?? 30_000, signal);
        return { machine: machineOf(h, false), method: "snapshot" };
      } catch (err) {
        if (signal?.aborted) {
          await stop(h);
          throw new CancelledError(`the reset of ${h.vm.spec.name} was cancelled`);
        }
        log(`qemu: ${h.vm.spec.name} did not come back from its snapshot (${(err as Error).message.split("\n")[0]}): booting it anew`);
        await stop(h);
        return { machine: await boot(h.envName, h.slot, signal), method: "new boot" };
      }
    },
    release: async (machine) => {
      machine.env.close();
      const h = held.get(machine.env);
      held.delete(machine.env);
      if (h) await stop(h);
    },
    accel: resolveAccel,
    vmOf: (m) => held.get("env" in m ? m.env : m)?.vm,
    vms: () => [...live],
  };
}

/** The accelerator for `requested`: for "auto", KVM when the probe shows it works, and the log says which. */
async function chooseAccel(requested: "auto" | QemuAccel, log: (line: string) => void): Promise<QemuAccel> {
  await removeStaleVmDirs();
  if (requested !== "auto") return requested;
  const works = await kvmWorks();
  log(works ? "qemu: KVM works here: VMs run with -accel kvm" : "qemu: KVM does not work here: VMs run in TCG (emulation, far slower)");
  return works ? "kvm" : "tcg";
}

/**
 * Boots a VM (kept in `live` while it runs) until its daemon answers, sets its clock and saves
 * the ready snapshot in its overlay; a VM that does not get there is stopped.
 */
async function bootToSnapshot(spec: QemuVmSpec, timeoutMs: number, live: Set<QemuVm>, signal?: AbortSignal): Promise<QemuVm> {
  const vm = await QemuVm.start(spec);
  live.add(vm);
  try {
    await vm.waitForDaemon(timeoutMs, signal);
    // A guest reads the RTC at boot to the second, and late in TCG: its clock starts behind.
    await setGuestClock(vm.agentSocket, { timeoutMs: 30_000, ...(signal ? { signal } : {}) });
    await vm.monitor(`savevm ${READY_SNAPSHOT}`, 120_000, signal);
    return vm;
  } catch (err) {
    live.delete(vm);
    await vm.stop();
    throw err;
  }
}

/**
 * Brings a VM back to its ready snapshot within `timeoutMs`: `loadvm`, the guest's clock set to
 * this computer's (it went back to the moment of the snapshot), then its daemon answering.
 */
async function restore(vm: QemuVm, timeoutMs: number, signal?: AbortSignal): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const left = () => Math.max(1, deadline - Date.now());
  await vm.monitor(`loadvm ${READY_SNAPSHOT}`, timeoutMs, signal);
  // The agent's guest-set-time waits for hwclock (up to a second): the daemon is waited for meanwhile.
  await Promise.all([setGuestClock(vm.agentSocket, { timeoutMs: left(), ...(signal ? { signal } : {}) }), vm.waitForDaemon(left(), signal)]);
}
