import { existsSync, readdirSync, readFileSync, readlinkSync, statSync } from "node:fs";
import { hostname } from "node:os";
import { afterAll, beforeAll, expect, test } from "vitest";
import { connect, UnauthenticatedError } from "@pincer/controller";
import { localProvider } from "@pincer/controller/machines";
import type { MachineProvider, ProvidedMachine } from "../../packages/controller/src/machines/provider.js";
import { sandboxSupport } from "../../packages/controller/src/machines/sandbox.js";
import { type HostBait, probeMachine, startHostBait } from "../fixtures/hostileProbe.js";

// A hostile task on the embedded default (--provider local): its commands try what a task should
// never do to the computer it runs on, and every attempt is refused; this computer is the same
// afterwards. The probes only read or ask the kernel (test/fixtures/hostileProbe.py): nothing here
// writes /proc/sys, /sys or the hostname, even if a sandbox were broken.

const FAKE_KEYS = { OPENAI_API_KEY: "sk-fake-runner-key", ANTHROPIC_API_KEY: "sk-ant-fake", AWS_SECRET_ACCESS_KEY: "fake-aws-secret" };
const CAP = { NET_ADMIN: 12, SYS_MODULE: 16, SYS_ADMIN: 21, SYS_BOOT: 22, SYS_TIME: 25, NET_RAW: 13, MKNOD: 27 };

interface HostState {
  hostname: string;
  corePattern: string;
  cgroups: string[];
  modules: string;
  shadow: string;
}

const hostState = (): HostState => ({
  hostname: hostname(),
  corePattern: readFileSync("/proc/sys/kernel/core_pattern", "utf8"),
  cgroups: readdirSync("/sys/fs/cgroup/pids").sort(),
  modules: existsSync("/proc/modules") ? readFileSync("/proc/modules", "utf8") : "(a kernel without modules)",
  shadow: readFileSync("/etc/shadow", "utf8"),
});

let provider: MachineProvider;
let machines: ProvidedMachine[] = [];
let bait: HostBait;
let before: HostState;
const saved: Record<string, string | undefined> = {};

beforeAll(async () => {
  expect(sandboxSupport().mode, sandboxSupport().why).toBe("overlay");
  before = hostState();
  // Secrets in the runner's environment, as `pincer run` has them.
  for (const [k, v] of Object.entries(FAKE_KEYS)) {
    saved[k] = process.env[k];
    process.env[k] = v;
  }
  // A service on this computer, on every interface, and a display of this computer.
  bait = await startHostBait();
  provider = localProvider();
  machines = [await provider.acquire("desktop", 0), await provider.acquire("desktop", 1)];
}, 60_000);

afterAll(async () => {
  for (const m of machines) await provider.release(m);
  await bait?.close();
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

const probe = (machine: ProvidedMachine, otherSocket: string) => probeMachine(machine.env, bait, otherSocket);

const socketOf = (m: ProvidedMachine) => m.env.address.replace(/^unix:/, "");

test("a hostile task's commands are refused everything that would reach this computer", async () => {
  const [a, b] = machines as [ProvidedMachine, ProvidedMachine];
  expect(a.env.address).toMatch(/^unix:\//);
  const found = await probe(a, socketOf(b));
  console.log(`hostile task: ${JSON.stringify(found)}`);

  // Root inside is an unprivileged range outside, without the capabilities that reach the host.
  const [inside, outside, count] = (found.uid_map as string[]).map(Number);
  expect([inside, count]).toEqual([0, 65536]);
  expect(outside).toBeGreaterThanOrEqual(2 ** 30);
  const caps = BigInt(`0x${found.cap_eff as string}`);
  for (const [name, bit] of Object.entries(CAP)) expect(caps & (1n << BigInt(bit)), `CAP_${name}`).toBe(0n);
  expect(found.no_new_privs).toBe("1");
  // Every namespace is the sandbox's own.
  for (const [ns, link] of Object.entries(found.namespaces as Record<string, string>)) {
    expect(link, ns).not.toBe(readlinkSync(`/proc/self/ns/${ns}`));
  }
  // The kernel's settings, /sys and cgroups: not writable; the hostname cannot be set; no module, no mount.
  for (const [path, writable] of Object.entries(found.writable as Record<string, boolean>)) expect(writable, path).toBe(false);
  expect((found.sys_mount as string[]).every((opts) => opts.split(",").includes("ro"))).toBe(true);
  expect(found.sethostname).toBe("EPERM");
  // EPERM: no CAP_SYS_MODULE; ENOSYS: a kernel built without modules (as on these CI machines).
  expect(["EPERM", "ENOSYS"]).toContain(found.init_module);
  expect(found.mount).toBe("EPERM");
  // This computer's secrets are not there.
  expect(found.shadow).toMatch(/^error: ENOENT/);
  expect(found.gshadow).toMatch(/^error: ENOENT/);
  expect(found.shadow).not.toContain(before.shadow.split("\n")[0]);
  // Its network: a loopback of its own, nothing of this computer's services, displays or other sandboxes.
  expect(found.interfaces).toEqual(["lo"]);
  // /sys is a sysfs of the sandbox's network namespace: its interfaces, none of this computer's.
  expect(found.sys_class_net).toEqual(["lo"]);
  expect(found.host_loopback_service).toBe("ECONNREFUSED");
  expect(found.host_address_service).toBe("ENETUNREACH");
  expect(found.host_display_abstract).toBe("ECONNREFUSED");
  expect(found.host_display_path).toBe("ENOENT");
  expect(found.xdpyinfo_host_display).not.toBe(0);
  expect(found.other_sandbox_daemon).toBe("ENOENT");
  // The runner's secrets are not handed down.
  const keys = found.environ_keys as string[];
  for (const k of Object.keys(FAKE_KEYS)) expect(keys).not.toContain(k);
  expect(keys.filter((k) => /KEY|TOKEN|SECRET|PASSWORD/i.test(k))).toEqual([]);

  // This computer is as it was.
  expect(hostState()).toEqual(before);
}, 120_000);

test("nothing on this computer reaches a local machine's daemon without its token", async () => {
  const [a] = machines as [ProvidedMachine];
  // The socket's folder is closed to every user but root (the runner) and the sandbox's own root.
  const folder = socketOf(a).replace(/\/[^/]+$/, "");
  expect(statSync(folder).mode & 0o777).toBe(0o700);
  expect(statSync(folder).uid).toBeGreaterThanOrEqual(2 ** 30);
  // Even root, at the right socket, needs the machine's token.
  const anonymous = connect(a.env.address);
  try {
    await expect(anonymous.system.info({ timeoutMs: 10_000 })).rejects.toBeInstanceOf(UnauthenticatedError);
  } finally {
    anonymous.close();
  }
  expect((await a.env.system.info()).display).toBe(":0");
});

test("with network, a machine gets a user-mode link: this computer's address through NAT, never its loopback", async () => {
  const networked = localProvider({ network: true });
  const m = await networked.acquire("desktop", 0);
  try {
    const found = await probe(m, "/nonexistent");
    expect(found.interfaces).toEqual(["lo", "tap0"]);
    expect(found.sys_class_net).toEqual(["lo", "tap0"]);
    expect(found.host_address_service).toBe("connected");
    expect(found.host_loopback_service).toBe("ECONNREFUSED");
    const r = await m.env.process.run(["python3", "-c", `import socket; socket.create_connection(('10.0.2.2', ${bait.port}), 3)`]);
    expect(r.exitCode).not.toBe(0);
    expect((await m.env.process.run("cat /etc/resolv.conf")).stdout).toBe("nameserver 10.0.2.3\n");
  } finally {
    await networked.release(m);
  }
  expect(hostState()).toEqual(before);
});

test("no secrets handed down: a local machine without a sandbox does not see the runner's keys either, and has a token of its own", async () => {
  // The runner's environment holds the fake keys (beforeAll). A local machine without a sandbox:
  const { startLocalMachine } = await import("@pincer/controller/machines");
  const plain = await startLocalMachine({ sandbox: "none" });
  try {
    const env = (await plain.env.process.run("env")).stdout;
    for (const [k, v] of Object.entries(FAKE_KEYS)) {
      expect(env).not.toContain(k);
      expect(env).not.toContain(v);
    }
    // It has a token of its own too.
    const anonymous = connect(plain.address);
    await expect(anonymous.system.info({ timeoutMs: 10_000 })).rejects.toBeInstanceOf(UnauthenticatedError);
    anonymous.close();
  } finally {
    await plain.close();
  }
});
