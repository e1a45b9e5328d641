import { existsSync } from "node:fs";
import { copyFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { CancelledError, FailedPreconditionError } from "@pincer/shared";
import type { Env } from "../env/index.js";
import type { MachineProvider, ProvidedMachine } from "./provider.js";
import { setGuestClock } from "./qmp.js";
import { kvmWorks, QemuVm, removeStaleVmDirs, type QemuAccel, type QemuVmSpec, type ReadyState } from "./qemuVm.js";
import { Spares } from "./spares.js";

/** Options of {@link qemuProvider}: the image (what `makeQcow2` made) and how each VM runs. */
export interface QemuProviderOptions {
  /** The image's qcow2 disk; read only: every VM writes to an overlay of its own. */
  disk: string;
  /** The kernel, initrd and command line to boot directly; without them the disk's own bootloader boots (BIOS). */
  kernel?: string;
  initrd?: string;
  /** The kernel command line. */
  append?: string;
  /** How a disk without a kernel boots: its bootloader from the BIOS (the default) or from UEFI (OVMF). */
  firmware?: "bios" | "uefi";
  /** Memory of each VM, in MiB. @default 1024 */
  memoryMb?: number;
  /** Virtual CPUs of each VM. @default 1 */
  cpus?: number;
  /** "auto": KVM when a probe shows it works here, TCG (emulation) otherwise. @default "auto" */
  accel?: "auto" | QemuAccel;
  /** Longest a cold boot may take until the daemon answers, in milliseconds. @default 240_000 */
  bootTimeoutMs?: number;
  /**
   * Longest a load of the snapshot may take until the daemon answers, in milliseconds; a second load
   * gets as long, then the VM is booted anew. @default 30_000
   */
  resetTimeoutMs?: number;
  /** Where the provider says what it does (the accelerator it chose, VMs replaced after a failed reset). @default nothing */
  log?: (line: string) => void;
  /**
   * Keep a second VM per slot and environment, at its ready snapshot and running: a reset hands it
   * over and takes the used VM back to its snapshot behind the reset, to be the next one handed
   * over. The second VM starts from a copy of the first one's ready state (no second boot). Costs
   * the memory of a second VM per slot and its idle CPU. @default false
   */
  spare?: boolean;
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

/** The VMs of one {@link qemuProvider}: those handed out, those live, and the slots' spares. */
class QemuMachines {
  readonly held = new WeakMap<Env, Held>();
  readonly live = new Set<QemuVm>();
  readonly log: (line: string) => void;
  readonly resetTimeoutMs: number;
  chosen?: QemuAccel;
  #accel?: Promise<QemuAccel>;
  readonly spares = new Spares<Held>({
    start: async (key) => {
      const [slot, ...name] = key.split("/");
      return this.boot(name.join("/"), Number(slot), undefined, false);
    },
    answers: async (h) => {
      const env = h.vm.connect();
      try {
        await Promise.all([env.system.info({ timeoutMs: 5_000 }), setGuestClock(h.vm.agentSocket, { timeoutMs: 5_000 })]);
        return true;
      } finally {
        env.close();
      }
    },
    stop: (h) => this.stop(h.vm),
  });

  constructor(readonly opts: QemuProviderOptions) {
    this.log = opts.log ?? (() => undefined);
    this.resetTimeoutMs = opts.resetTimeoutMs ?? 30_000;
  }

  accel(): Promise<QemuAccel> {
    this.#accel ??= chooseAccel(this.opts.accel ?? "auto", this.log).then((a) => (this.chosen = a));
    return this.#accel;
  }

  async stop(vm: QemuVm): Promise<void> {
    this.live.delete(vm);
    await vm.stop();
  }

  /** A VM booted to its ready snapshot; with `copy`, a copy of that state starts the slot's spare. */
  async boot(envName: string, slot: number, signal?: AbortSignal, copy = !!this.opts.spare): Promise<Held> {
    const o = this.opts;
    const spec: QemuVmSpec = {
      disk: o.disk,
      ...(o.kernel ? { kernel: o.kernel, initrd: o.initrd!, append: o.append! } : {}),
      ...(o.firmware ? { firmware: o.firmware } : {}),
      ...{ memoryMb: o.memoryMb ?? 1024, cpus: o.cpus ?? 1, accel: await this.accel() },
      name: `pincer-${envName}-${slot}`.replaceAll(",", ",,"),
    };
    const t0 = performance.now();
    const { vm, ready } = await bootToSnapshot(spec, o.bootTimeoutMs ?? 240_000, this.live, copy, signal);
    this.log(`qemu: ${spec.name} booted in ${Math.round(performance.now() - t0)} ms (${spec.accel}, pid ${vm.pid}, ${vm.address})`);
    const h = { vm, envName, slot };
    if (ready) this.spares.offer(keyOf(h), this.startFromReady(spec, ready, h));
    return h;
  }

  /** The spare: a VM started from `ready` (then removed), its clock set and its daemon answering. */
  async startFromReady(spec: QemuVmSpec, ready: ReadyState, like: Held): Promise<Held> {
    try {
      const vm = await QemuVm.start(spec, ready);
      this.live.add(vm);
      try {
        await settle(vm, this.resetTimeoutMs);
      } catch (err) {
        await this.stop(vm);
        throw err;
      }
      return { vm, envName: like.envName, slot: like.slot };
    } finally {
      await rm(ready.overlay, { force: true });
      if (ready.vars) await rm(ready.vars, { force: true });
    }
  }

  machineOf(h: Held, fresh: boolean): ProvidedMachine {
    const env = h.vm.connect();
    this.held.set(env, h);
    return { env, address: `${h.vm.address} (qemu ${h.vm.spec.accel}, pid ${h.vm.pid})`, fresh };
  }

  /** The used VM, back at its snapshot behind the reset, becomes the slot's spare; one that does not come back is replaced. */
  recycle(h: Held): void {
    const back = restoreOrRetry(h.vm, this.resetTimeoutMs).then(
      () => h,
      async (err: unknown) => {
        this.log(`qemu: ${h.vm.spec.name} did not come back from its snapshot (${firstLine(err)}): booting a spare anew`);
        await this.stop(h.vm);
        return this.boot(h.envName, h.slot, undefined, false);
      },
    );
    this.spares.offer(keyOf(h), back);
  }

  /**
   * The slot's VM back at its snapshot, or booted anew. The used machine stays this provider's until
   * a machine replaces it: after a reset that fails (a boot that fails, a cancel), the next reset
   * boots the slot's VM anew instead of refusing a machine it no longer knows.
   */
  async reset(machine: ProvidedMachine, signal?: AbortSignal): Promise<{ machine: ProvidedMachine; method: string; why?: string }> {
    const h = this.held.get(machine.env);
    if (!h) throw new FailedPreconditionError(`qemu: ${machine.address} is not a machine of this provider (released already?)`);
    machine.env.close();
    const handOver = (next: Held) => {
      this.held.delete(machine.env);
      return this.machineOf(next, false);
    };
    const spare = this.opts.spare ? await this.spares.take(keyOf(h)) : undefined;
    if (spare) {
      this.recycle(h);
      return { machine: handOver(spare), method: "spare at snapshot" };
    }
    let why = `its VM had stopped (${h.vm.exit}) when an earlier reset failed`;
    if (h.vm.exit === undefined) {
      try {
        const retried = await restoreOrRetry(h.vm, this.resetTimeoutMs, signal);
        if (retried) this.log(`qemu: ${h.vm.spec.name} came back from its snapshot at the second load (the first: ${retried})`);
        return { machine: handOver(h), method: "snapshot", ...(retried ? { why: `loaded twice; the first load: ${retried}` } : {}) };
      } catch (err) {
        await this.stop(h.vm);
        if (signal?.aborted) throw new CancelledError(`the reset of ${h.vm.spec.name} was cancelled`);
        why = `did not come back from its snapshot: ${firstLine(err)}`;
        this.log(`qemu: ${h.vm.spec.name} ${why}; booting it anew`);
      }
    }
    return { machine: handOver(await this.boot(h.envName, h.slot, signal)), method: "new boot", why };
  }

  async release(machine: ProvidedMachine): Promise<void> {
    machine.env.close();
    const h = this.held.get(machine.env);
    this.held.delete(machine.env);
    if (h) await Promise.all([this.stop(h.vm), this.spares.drop(keyOf(h))]);
  }
}

/**
 * Virtual machines from a Pincer VM image, one per environment name and slot, booted in parallel.
 * Each VM runs on a qcow2 overlay of the read-only disk, with a token of its own handed in through
 * fw_cfg and its daemon forwarded to a free port on 127.0.0.1. Once its daemon answers, the VM's
 * state is saved in its overlay (`savevm pincer-ready`); a reset loads it back through QMP
 * (`loadvm`, about a second), sets the guest's clock through its agent and waits for the daemon.
 * A load that fails or overruns `resetTimeoutMs` while QEMU runs is tried once more (a VM stalled
 * on a busy host); a VM whose second load fails too is killed and booted anew ("new boot"). The
 * reset's record says why (`why`).
 * With `spare`, a second VM per slot (started from a copy of the first one's ready state) is handed
 * over instead, and the used one goes back to its snapshot behind the reset.
 * Releasing quits QEMU (SIGKILL by PID if it lingers) and removes the overlay, token and sockets;
 * QEMU dies with this process too (`setpriv --pdeathsig KILL`).
 */
export function qemuProvider(opts: QemuProviderOptions): QemuProvider {
  const m = new QemuMachines(opts);
  return {
    name: "qemu",
    config: () => ({
      disk: opts.disk,
      accel: m.chosen ?? opts.accel ?? "auto",
      memory_mb: opts.memoryMb ?? 1024,
      cpus: opts.cpus ?? 1,
      spare: !!opts.spare,
    }),
    acquire: async (envName, slot, signal) => m.machineOf(await m.boot(envName, slot, signal), true),
    reset: (machine, signal) => m.reset(machine, signal),
    release: (machine) => m.release(machine),
    close: () => m.spares.drain(),
    accel: () => m.accel(),
    vmOf: (x) => m.held.get("env" in x ? x.env : x)?.vm,
    vms: () => [...m.live],
  };
}

const keyOf = (h: Held) => `${h.slot}/${h.envName}`;

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
 * the ready snapshot in its overlay; a VM that does not get there is stopped. With `copy`, the VM
 * is paused while the snapshot is saved and its overlay copied (the ready state a spare starts from).
 */
async function bootToSnapshot(
  spec: QemuVmSpec,
  timeoutMs: number,
  live: Set<QemuVm>,
  copy: boolean,
  signal?: AbortSignal,
): Promise<{ vm: QemuVm; ready?: ReadyState }> {
  const vm = await QemuVm.start(spec);
  live.add(vm);
  try {
    await vm.waitForDaemon(timeoutMs, signal);
    // A guest reads the RTC at boot to the second, and late in TCG: its clock starts behind.
    await setGuestClock(vm.agentSocket, { timeoutMs: 30_000, ...(signal ? { signal } : {}) });
    if (!copy) {
      await vm.monitor(`savevm ${READY_SNAPSHOT}`, 120_000, signal);
      return { vm };
    }
    await vm.qmp!.execute("stop", undefined, { timeoutMs: 10_000 });
    await vm.monitor(`savevm ${READY_SNAPSHOT}`, 120_000, signal);
    const ready = join(vm.dir, "ready.qcow2");
    await copyFile(join(vm.dir, "overlay.qcow2"), ready);
    const vars = existsSync(join(vm.dir, "vars.qcow2")) ? join(vm.dir, "ready-vars.qcow2") : undefined;
    if (vars) await copyFile(join(vm.dir, "vars.qcow2"), vars);
    await vm.qmp!.execute("cont", undefined, { timeoutMs: 10_000 });
    // It ran on in real time, its clock did not: set it again.
    await setGuestClock(vm.agentSocket, { timeoutMs: 30_000, ...(signal ? { signal } : {}) });
    return { vm, ready: { overlay: ready, ...(vars ? { vars } : {}), token: vm.token, snapshot: READY_SNAPSHOT } };
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
  await vm.monitor(`loadvm ${READY_SNAPSHOT}`, timeoutMs, signal);
  await settle(vm, Math.max(1, deadline - Date.now()), signal);
}

/**
 * {@link restore}, and once more when that fails while QEMU still runs: a VM stalled for a moment
 * (a host busy enough that QEMU did not run for a while) is back in seconds, where a new boot
 * takes a minute in TCG. Resolves to why the first load failed when the second one was needed;
 * throws the second failure.
 */
async function restoreOrRetry(vm: QemuVm, timeoutMs: number, signal?: AbortSignal): Promise<string | undefined> {
  try {
    await restore(vm, timeoutMs, signal);
    return undefined;
  } catch (err) {
    if (signal?.aborted || vm.exit !== undefined) throw err;
    await restore(vm, timeoutMs, signal);
    return firstLine(err);
  }
}

const firstLine = (err: unknown) => (err instanceof Error ? err.message : String(err)).split("\n")[0]!;

/** A VM just at its snapshot made ready: its clock set to this computer's, and its daemon answering. */
async function settle(vm: QemuVm, timeoutMs: number, signal?: AbortSignal): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const left = () => Math.max(1, deadline - Date.now());
  // The agent's guest-set-time waits for hwclock (up to a second): the daemon is waited for meanwhile.
  await Promise.all([setGuestClock(vm.agentSocket, { timeoutMs: left(), ...(signal ? { signal } : {}) }), vm.waitForDaemon(left(), signal)]);
}
