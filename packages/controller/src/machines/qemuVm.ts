import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { access, constants, copyFile, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CancelledError, FailedPreconditionError, sleep, TimeoutError, UnauthenticatedError, UnavailableError } from "@pincer/shared";
import { connect, type RemoteEnv } from "../env/index.js";
import { FW_CFG_TOKEN, GUEST_PORT } from "./guestContract.js";
import { removeDeadDirs } from "./hostProcess.js";
import { QmpClient } from "./qmp.js";

/** How QEMU runs the guest's code: KVM (hardware virtualisation) or TCG (emulation, many times slower). */
export type QemuAccel = "kvm" | "tcg";

/** What one VM boots: the image, its size, and how it runs. */
export interface QemuVmSpec {
  disk: string;
  /**
   * The kernel, initrd and command line QEMU boots directly (Pincer's images: a disk without a
   * partition table). Without them the disk boots with its own bootloader, from the BIOS
   * (an adopted image: `pincer image adopt`).
   */
  kernel?: string;
  initrd?: string;
  append?: string;
  /** How a disk without `kernel` boots: the BIOS (SeaBIOS, the default) or UEFI (OVMF). */
  firmware?: "bios" | "uefi";
  memoryMb: number;
  cpus: number;
  accel: QemuAccel;
  /** Shown in `ps` (QEMU's -name) and in messages. */
  name: string;
}

const QEMU = "qemu-system-x86_64";
const TCG_CPU = "qemu64,+ssse3,+sse4.1,+sse4.2,+popcnt";
const SETPRIV = ["/usr/bin/setpriv", "/bin/setpriv"].find((p) => existsSync(p));

/** A port on 127.0.0.1 that nothing listens on right now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

/**
 * Whether KVM works here: the CPU shows hardware virtualisation (vmx or svm in /proc/cpuinfo),
 * /dev/kvm opens, and a QEMU with `-accel kvm -cpu host` keeps running for two seconds. Without
 * the flag, QEMU may abort at once ("failed to set MSR 0x10a") or, on some hosts, start a guest
 * that never gets past its kernel's first steps: both mean TCG.
 */
export async function kvmWorks(): Promise<boolean> {
  try {
    if (!/^flags\s*:.*\b(vmx|svm)\b/m.test(await readFile("/proc/cpuinfo", "utf8"))) return false;
    await access("/dev/kvm", constants.R_OK | constants.W_OK);
  } catch {
    return false;
  }
  const args = ["-accel", "kvm", "-cpu", "host", "-machine", "q35", "-nodefaults", "-display", "none", "-m", "64", "-no-reboot"];
  const child = spawn(QEMU, args, { stdio: "ignore" });
  const exited = new Promise<boolean>((resolve) => {
    child.once("exit", () => resolve(true));
    child.once("error", () => resolve(true));
  });
  const survived = await Promise.race([exited.then(() => false), new Promise<boolean>((r) => setTimeout(() => r(true), 2_000))]);
  if (survived) {
    child.kill("SIGKILL");
    await exited;
  }
  return survived;
}

/** VM directories are named pincer-vm-<pid of the controller>-<random>. */
const VM_DIR_PREFIX = "pincer-vm-";

/**
 * Removes the directories (overlays, tokens, sockets) of VMs whose controller died: their QEMU
 * died with it, but nothing removed its files.
 */
export async function removeStaleVmDirs(): Promise<void> {
  await removeDeadDirs(VM_DIR_PREFIX);
}

/** What a VM started from another's ready state starts with: a copy of that VM's overlay, its token, the snapshot to load. */
export interface ReadyState {
  /** A qcow2 overlay (of the same disk) holding `snapshot`; copied, never written. */
  overlay: string;
  /** Under UEFI, a copy of that VM's firmware variables (qcow2), which hold the snapshot too. */
  vars?: string;
  /** The token the guest's daemon read at its boot, which the snapshot keeps. */
  token: string;
  snapshot: string;
}

/** OVMF (Debian's ovmf package, or Fedora's edk2-ovmf): the firmware code and the variables' template. */
export function ovmfFiles(): { code: string; vars: string } {
  const pairs = [
    ["/usr/share/OVMF/OVMF_CODE_4M.fd", "/usr/share/OVMF/OVMF_VARS_4M.fd"],
    ["/usr/share/OVMF/OVMF_CODE.fd", "/usr/share/OVMF/OVMF_VARS.fd"],
    ["/usr/share/edk2/ovmf/OVMF_CODE.fd", "/usr/share/edk2/ovmf/OVMF_VARS.fd"],
  ];
  const found = pairs.find(([code, vars]) => existsSync(code!) && existsSync(vars!));
  if (!found) throw new FailedPreconditionError("this image boots by UEFI, which needs OVMF: apt-get install ovmf");
  return { code: found[0]!, vars: found[1]! };
}

/**
 * The firmware as two flash drives: OVMF's code, read only, and the VM's own variables in qcow2 (a
 * raw drive would refuse savevm; qcow2 keeps the snapshot with the rest).
 */
function uefiDrives(dir: string): string[] {
  return [
    ...["-drive", `if=pflash,format=raw,unit=0,readonly=on,file=${ovmfFiles().code}`],
    ...["-drive", `if=pflash,format=qcow2,unit=1,file=${join(dir, "vars.qcow2")}`],
  ];
}

/** QEMU's command line for `spec`, with its files in `dir` and the daemon forwarded from 127.0.0.1:`port`. */
function qemuArgs(spec: QemuVmSpec, dir: string, port: number, loadvm?: string): string[] {
  // In TCG, x86-64-v2 (what node needs, and more than qemu64 has) boots in half the time of `-cpu max`.
  const cpu = spec.accel === "kvm" ? ["-accel", "kvm", "-cpu", "host"] : ["-accel", "tcg", "-cpu", TCG_CPU];
  return [
    ...["-name", spec.name, "-machine", "q35", ...cpu, "-smp", String(spec.cpus), "-m", `${spec.memoryMb}M`],
    ...["-nodefaults", "-no-user-config", "-display", "none", "-no-reboot", "-rtc", "base=utc,clock=host"],
    ...(spec.kernel ? ["-kernel", spec.kernel, "-initrd", spec.initrd!, "-append", spec.append!] : ["-boot", "order=c"]),
    ...(spec.firmware === "uefi" && !spec.kernel ? uefiDrives(dir) : []),
    // The overlay is thrown away with the VM: no reason to wait for the host's disk.
    ...["-drive", `file=${join(dir, "overlay.qcow2")},if=virtio,format=qcow2,cache=unsafe,discard=unmap`],
    ...["-netdev", `user,id=net0,hostfwd=tcp:127.0.0.1:${port}-:${GUEST_PORT}`, "-device", "virtio-net-pci,netdev=net0"],
    ...["-object", "rng-random,id=rng0,filename=/dev/urandom", "-device", "virtio-rng-pci,rng=rng0"],
    ...["-fw_cfg", `name=${FW_CFG_TOKEN},file=${join(dir, "token")}`],
    ...["-qmp", `unix:${join(dir, "qmp.sock")},server=on,wait=off`],
    ...["-chardev", `socket,id=qga0,path=${join(dir, "qga.sock")},server=on,wait=off`],
    ...["-device", "virtio-serial", "-device", "virtserialport,chardev=qga0,name=org.qemu.guest_agent.0"],
    ...["-serial", `file:${join(dir, "serial.log")}`],
    ...(loadvm ? ["-loadvm", loadvm] : []),
  ];
}

/**
 * One QEMU virtual machine on a throwaway qcow2 overlay of the image's disk, with a token of its
 * own (in a 0600 file, handed to the guest through fw_cfg), its daemon forwarded to a port on
 * 127.0.0.1, a QMP socket and a guest-agent socket. QEMU is started under `setpriv --pdeathsig
 * KILL`, so it dies with the process that started it, however that process ends.
 */
export class QemuVm {
  #stderr = "";
  #exit: string | undefined;

  private constructor(
    readonly spec: QemuVmSpec,
    /** The VM's own directory: overlay, token, sockets, serial log. */
    readonly dir: string,
    readonly port: number,
    readonly token: string,
    readonly child: ChildProcess,
    public qmp: QmpClient | undefined,
  ) {}

  /** Where its daemon answers: 127.0.0.1:port. */
  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get agentSocket(): string {
    return join(this.dir, "qga.sock");
  }

  /** Why QEMU is gone ("exited with 1"), or undefined while it runs. */
  get exit(): string | undefined {
    return this.#exit;
  }

  /** The last lines of QEMU's stderr and of the guest's serial console, for messages. */
  diagnostics(): string {
    let serial = "";
    try {
      serial = readFileSync(join(this.dir, "serial.log"), "latin1").slice(-1500);
    } catch {}
    const parts = [this.#stderr.trim() && `QEMU: ${this.#stderr.trim().slice(-1000)}`, serial.trim() && `console: ${serial.trim()}`];
    return parts.filter(Boolean).join("\n");
  }

  /**
   * Makes the VM's directory, overlay and token and starts QEMU; resolves once QMP answers (the
   * guest is booting then). With `from`, the VM starts from another's ready state instead of
   * booting: a copy of its overlay, its token, its snapshot loaded at start. A port another process
   * took meanwhile is retried with a new one.
   */
  static async start(spec: QemuVmSpec, from?: ReadyState): Promise<QemuVm> {
    const dir = await mkdtemp(join(tmpdir(), `${VM_DIR_PREFIX}${process.pid}-`));
    try {
      const token = from?.token ?? randomBytes(24).toString("base64url");
      await writeFile(join(dir, "token"), token, { mode: 0o600 });
      if (from) await copyFile(from.overlay, join(dir, "overlay.qcow2"));
      else await overlay(spec.disk, join(dir, "overlay.qcow2"));
      if (spec.firmware === "uefi" && !spec.kernel) {
        if (from?.vars) await copyFile(from.vars, join(dir, "vars.qcow2"));
        else await qemuImg(["convert", "-q", "-f", "raw", "-O", "qcow2", ovmfFiles().vars, join(dir, "vars.qcow2")], "convert of OVMF's variables");
      }
      for (let attempt = 1; ; attempt++) {
        const vm = QemuVm.#spawn(spec, dir, await freePort(), token, from?.snapshot);
        try {
          vm.qmp = await QmpClient.connect(join(dir, "qmp.sock"), { timeoutMs: 30_000, alive: () => vm.#exit === undefined });
          return vm;
        } catch (err) {
          await vm.kill();
          const taken = /host forwarding rule|Address already in use/i.test(vm.#stderr);
          if (taken && attempt < 3) continue;
          const hint = vm.#exit?.startsWith("could not start") ? " (install QEMU: apt-get install qemu-system-x86 qemu-utils)" : "";
          throw new FailedPreconditionError(`cannot start QEMU for ${spec.name}${hint}: ${(err as Error).message}\n${vm.diagnostics()}`);
        }
      }
    } catch (err) {
      await rm(dir, { recursive: true, force: true });
      throw err;
    }
  }

  static #spawn(spec: QemuVmSpec, dir: string, port: number, token: string, loadvm?: string): QemuVm {
    const argv = [QEMU, ...qemuArgs(spec, dir, port, loadvm)];
    const [cmd, ...args] = SETPRIV ? [SETPRIV, "--pdeathsig", "KILL", "--", ...argv] : argv;
    const child = spawn(cmd!, args, { stdio: ["ignore", "ignore", "pipe"] });
    const vm = new QemuVm(spec, dir, port, token, child, undefined);
    child.stderr!.on("data", (d: Buffer) => (vm.#stderr = (vm.#stderr + d.toString()).slice(-4000)));
    child.once("error", (err) => (vm.#exit ??= `could not start: ${err.message}`));
    child.once("exit", (code, signal) => (vm.#exit ??= signal ? `killed by ${signal}` : `exited with ${code}`));
    return vm;
  }

  /**
   * Waits until the daemon in the guest answers system.info with this VM's token, polling through
   * a connection that retries every 250 ms. Fails at once when QEMU exits or the daemon refuses
   * the token, and after `timeoutMs` otherwise, with the end of the guest's console.
   */
  async waitForDaemon(timeoutMs: number, signal?: AbortSignal): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const probe = connect(this.address, { token: this.token, maxReconnectBackoffMs: 250, connectTimeoutMs: 2_000, keepaliveMs: 60_000 });
    try {
      for (;;) {
        if (signal?.aborted) throw new CancelledError(`waiting for the daemon in ${this.spec.name} was cancelled`);
        if (this.#exit) throw new UnavailableError(`QEMU of ${this.spec.name} ${this.#exit}\n${this.diagnostics()}`);
        const left = deadline - Date.now();
        if (left <= 0) throw new TimeoutError(`the daemon in ${this.spec.name} did not answer within ${timeoutMs} ms\n${this.diagnostics()}`);
        try {
          await probe.system.info({ waitForReady: true, timeoutMs: Math.min(left, 2_000), ...(signal ? { signal } : {}) });
          return;
        } catch (err) {
          if (err instanceof UnauthenticatedError)
            throw new FailedPreconditionError(
              `the daemon in ${this.spec.name} refused its token: the image's pincer-daemon.service must copy it from fw_cfg ${FW_CFG_TOKEN}`,
            );
          if (err instanceof CancelledError) throw err;
        }
      }
    } finally {
      probe.close();
    }
  }

  /** A connection to the VM's daemon with its token. */
  connect(): RemoteEnv {
    return connect(this.address, { token: this.token });
  }

  /** Runs a human-monitor command that prints nothing when it works (savevm, loadvm, delvm); its output is the error. */
  async monitor(commandLine: string, timeoutMs: number, signal?: AbortSignal): Promise<void> {
    if (!this.qmp || this.#exit) throw new UnavailableError(`QEMU of ${this.spec.name} is not running (${this.#exit ?? "no QMP"})`);
    const out = (await this.qmp.hmp(commandLine, { timeoutMs, ...(signal ? { signal } : {}) })).trim();
    if (out) throw new FailedPreconditionError(`${commandLine} on ${this.spec.name}: ${out}`);
  }

  /** Kills QEMU by its PID and waits for it to be gone. */
  async kill(): Promise<void> {
    this.qmp?.close();
    if (this.#exit !== undefined || this.child.pid === undefined) return;
    const gone = new Promise<void>((resolve) => this.child.once("exit", () => resolve()));
    this.child.kill("SIGKILL");
    await gone;
  }

  /** Asks QEMU to quit (QMP `quit`), kills it by PID if it is still there after 5 s, and removes its directory. */
  async stop(): Promise<void> {
    if (this.#exit === undefined && this.qmp && !this.qmp.closed) {
      const gone = new Promise<void>((resolve) => this.child.once("exit", () => resolve()));
      await this.qmp.execute("quit", undefined, { timeoutMs: 3_000 }).catch(() => undefined);
      await Promise.race([gone, sleep(5_000)]);
    }
    await this.kill();
    await rm(this.dir, { recursive: true, force: true });
  }
}

/** A qcow2 overlay at `path` on the read-only `base` disk: the VM writes only to it. */
async function overlay(base: string, path: string): Promise<void> {
  await qemuImg(["create", "-q", "-f", "qcow2", "-F", "qcow2", "-b", base, path], `qemu-img create on ${base}`);
}

async function qemuImg(args: string[], what: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const child = spawn("qemu-img", args, { stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
    child.once("error", (e) =>
      reject(new FailedPreconditionError(`cannot run qemu-img (${e.message}): install qemu-utils and qemu-system-x86 (apt-get install qemu-system-x86)`)),
    );
    child.once("exit", (code) => (code === 0 ? resolve() : reject(new FailedPreconditionError(`${what} failed: ${err.trim()}`))));
  });
}
