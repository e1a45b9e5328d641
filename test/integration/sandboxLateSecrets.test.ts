import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, test } from "vitest";
import { localProvider } from "@pincer/controller/machines";
import type { ProvidedMachine } from "../../packages/controller/src/machines/provider.js";
import { privateChangedSince, sandboxSupport } from "../../packages/controller/src/machines/sandbox.js";
import { eventually } from "../fixtures/poll.js";

// A secret written on this computer after the runner started its machines (a long-lived worker's
// case) is hidden from the next machine, started anew or handed out as the slot's spare. The
// stand-in secrets are in fresh folders this test makes under folders the sandbox shows (/opt,
// /usr/local/etc), owned by root, and removes; the machines only read them (`test`, `cat`).

const SECRET = `pincer-late-secret-${process.pid}-${Date.now()}`;
const provider = localProvider();
/** Folders of this computer the sandbox shows, where the stand-in secrets are made. */
const PARENTS = ["/opt", "/usr/local/etc"].filter((p) => existsSync(p));
const made: string[] = [];
afterAll(async () => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
  await provider.close?.();
});

/** Sandboxes of this process whose daemon listens (its socket exists): started, the helper's walk done. */
const listening = () =>
  readdirSync(tmpdir()).filter((n) => n.startsWith(`pincer-sandbox-${process.pid}-`) && existsSync(join(tmpdir(), n, "sock", "daemon.sock"))).length;

/** What a machine sees of `dir`'s entries: absent, readable or unreadable, and what `cat` of the secret printed. */
async function seen(m: ProvidedMachine, dir: string): Promise<string> {
  const script =
    `for f in public secret private private/inside; do if test -e ${dir}/$f; then if test -r ${dir}/$f; then echo "$f readable"; ` +
    `else echo "$f unreadable"; fi; else echo "$f absent"; fi; done; cat ${dir}/secret ${dir}/private/inside 2>&1; true`;
  return (await m.env.process.run(["sh", "-c", script])).stdout;
}

test.runIf(process.getuid?.() === 0)(
  "a private file written on this computer after the provider started is not in its next machines",
  async () => {
    expect(sandboxSupport().mode, sandboxSupport().why).toBe("overlay");
    const first = await provider.acquire("desktop", 0);
    const machines: ProvidedMachine[] = [first];
    try {
      // The slot's spare is up (its sandbox built, its daemon listening) before the secrets exist.
      expect(await eventually(() => listening() >= 2, 60_000), "the slot's spare machine did not start").toBe(true);
      const before = Date.now();
      expect(PARENTS.length, "neither /opt nor /usr/local/etc exists here").toBeGreaterThan(0);
      for (const parent of PARENTS) {
        const dir = mkdtempSync(join(parent, "pincer-late-secret-"));
        made.push(dir);
        chmodSync(dir, 0o755);
        writeFileSync(join(dir, "public"), "every user reads this\n", { mode: 0o644 });
        writeFileSync(join(dir, "secret"), SECRET, { mode: 0o600 });
        mkdirSync(join(dir, "private"), { mode: 0o700 });
        writeFileSync(join(dir, "private", "inside"), SECRET, { mode: 0o644 });
        expect(statSync(join(dir, "secret")).uid).toBe(0);
      }
      // The helper sees what a sandbox prepared before would miss.
      expect(await privateChangedSince(before)).toMatch(/pincer-late-secret-/);

      // The slot's next machine (its spare was started before the secrets), and a new slot's machine.
      const { machine: next } = await provider.reset(first);
      machines[0] = next;
      machines.push(await provider.acquire("desktop", 1));
      for (const m of machines) {
        for (const dir of made) {
          const found = await seen(m, dir);
          // The folder is shown (its public file is there), the private entries are not.
          expect(found, `${m.address}: ${dir}`).toContain("public readable");
          for (const f of ["secret", "private", "private/inside"]) expect(found, `${m.address}: ${dir}`).toContain(`${f} absent`);
          expect(found).not.toContain(SECRET);
        }
      }
    } finally {
      for (const m of machines) await provider.release(m);
      for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
    }
    for (const parent of PARENTS) expect(readdirSync(parent).filter((n) => n.startsWith("pincer-late-secret-"))).toEqual([]);
  },
  180_000,
);
