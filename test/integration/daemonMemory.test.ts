import { expect, test } from "vitest";
import { connect } from "@pincer/controller";
import { localProvider } from "@pincer/controller/machines";
import type { ProvidedMachine } from "../../packages/controller/src/machines/provider.js";
import { sandboxSupport } from "../../packages/controller/src/machines/sandbox.js";

// A task's commands run as the daemon's user (root of the sandbox). The daemon is non-dumpable, so
// they cannot read its memory, where its token is, from /proc/<daemon>/mem, nor its environment or
// memory map. Tests run as root on this computer, where CAP_SYS_PTRACE reads any process: the probe
// runs inside the local sandbox, whose commands have no capability over the daemon (checked below).
// It only reads (test/fixtures/daemonMemoryProbe.py).

const CAP_SYS_PTRACE = 19n;

test.each(["native", "portable"] as const)(
  "a task's command cannot read its daemon's memory, environment or memory map, nor find the token there (%s drivers)",
  async (drivers) => {
    expect(sandboxSupport().mode, sandboxSupport().why).toBe("overlay");
    const provider = localProvider({ spare: false, drivers });
    const machine = await provider.acquire("desktop", 0);
    try {
      await probe(machine);
    } finally {
      await provider.release(machine);
      await provider.close?.();
    }
  },
  180_000,
);

async function probe(machine: ProvidedMachine): Promise<void> {
  await machine.env.files.upload("test/fixtures/daemonMemoryProbe.py", "/tmp/pincer-memory-probe.py");
  const r = await machine.env.process.run(["python3", "/tmp/pincer-memory-probe.py"], { timeoutMs: 120_000 });
  expect(r.exitCode, r.stderr).toBe(0);
  const found = JSON.parse(r.stdout) as Record<string, unknown> & { candidates: string[] };
  console.log(`daemon memory probe: ${JSON.stringify({ ...found, candidates: found.candidates.length })}`);

  // The probe found its daemon (its stat stays readable), and neither has nor can gain the capability
  // that reads any process of its user namespace (CAP_SYS_PTRACE): the attempts below are the daemon's doing.
  expect(found.daemon_pid).toMatch(/^\d+$/);
  expect(found.stat).toBeGreaterThan(0);
  for (const caps of [found.cap_eff, found.cap_prm]) expect(BigInt(`0x${caps as string}`) & (1n << CAP_SYS_PTRACE)).toBe(0n);
  expect(found.no_new_privs).toBe("1");

  // Nothing it could have found is the token: no candidate opens the daemon.
  const accepted: string[] = [];
  for (const token of found.candidates) {
    const env = connect(machine.env.address, { token });
    try {
      await env.system.info({ timeoutMs: 5_000 });
      accepted.push(`${token.slice(0, 8)}…`);
    } catch {
      // refused: not the token
    } finally {
      env.close();
    }
  }
  expect(accepted, "token candidates read from the daemon's memory that the daemon accepted").toEqual([]);
  expect(found.mem_open).toMatch(/^error: E(ACCES|PERM)$/);
  expect(found.mem_bytes_read).toMatch(/^error: E(ACCES|PERM)$/);
  expect(found.environ).toMatch(/^error: E(ACCES|PERM)$/);
  expect(found.maps).toMatch(/^error: E(ACCES|PERM)$/);
  // The machine still works for its controller.
  expect((await machine.env.system.info()).display).toBe(":0");
}
