import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { ImageManifest } from "../../packages/controller/src/machines/images/build.js";
import { openPool } from "../../packages/controller/src/machines/provider.js";
import { qemuProvider } from "../../packages/controller/src/machines/qemuProvider.js";
import { runPincer } from "../fixtures/cli.js";
import { fileSha256 as sha256File } from "../../packages/controller/src/machines/images/aptExtras.js";
import { foreignDisk } from "../fixtures/foreignDisk.js";

// `pincer image adopt` on a disk Pincer did not build (Debian 12 with its own bootloader and an Xvfb
// desktop session of alice's, made by mmdebstrap, virt-make-fs and guestfish), then the qemu
// provider boots the adopted copy under TCG with that bootloader, a demo task runs on it, the VM is
// reset to its snapshot and the task runs again. The original disk's checksum does not change.

let disk: string;
let before: string;
let dir: string;
let image: ImageManifest;
const log = (l: string) => {
  if (process.env.PINCER_TEST_VERBOSE) process.stderr.write(`[adopt] ${l}\n`);
};

/** The demo task twice (two rollouts, one slot: the second after a reset) on VMs of `image`. */
function runOn(image: string, out: string, ...more: string[]) {
  return runPincer([
    "run",
    "examples/files/sort-inbox",
    "--provider",
    "qemu",
    "--image",
    image,
    ...more,
    "--rollouts",
    "2",
    "--concurrency",
    "1",
    "--out",
    out,
  ]);
}

/** Each rollout's results (summary.json), in rollout order. */
function summariesOf(out: string) {
  const run = readdirSync(out).find((d) => d.startsWith("run-"))!;
  return readdirSync(join(out, run), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith("summary.json") && f.includes("rollout-"))
    .sort()
    .map(
      (f) => (JSON.parse(readFileSync(join(out, run, f), "utf8")) as { results: { state: string; machine_reset: Record<string, { method: string }> } }).results,
    );
}

/** How each rollout's machine was reset before it. */
function resetMethods(out: string): string[] {
  return summariesOf(out).map((x) => x.machine_reset.desktop?.method ?? "");
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "pincer-adopt-"));
  disk = await foreignDisk(log);
  before = await sha256File(disk);
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("pincer image adopt, on a disk Pincer did not build", () => {
  test("a user the disk does not have is refused before anything is copied", async () => {
    const r = await runPincer(["image", "adopt", disk, "--user", "bob", "--name", "refused-desktop", "--cache-dir", dir]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("cannot be adopted (nothing was written)");
    expect(r.stderr).toContain("no user bob in its /etc/passwd");
    expect(existsSync(join(dir, "adopted"))).toBe(false);
  });

  test("adopts it: a copy with the daemon bundle and its unit, the source unchanged", async () => {
    const r = await runPincer(["image", "adopt", disk, "--user", "alice", "--name", "foreign-desktop"]);
    expect(r.code, r.stderr).toBe(0);
    const file = /as (\S+image\.json)\n/.exec(r.stdout)?.[1];
    expect(file).toBeDefined();
    image = JSON.parse(readFileSync(file!, "utf8")) as ImageManifest;
    expect(image.profile).toBe("adopted");
    expect(image.adopted).toMatchObject({ source: disk, format: "qcow2", sha256: before, user: "alice", display: ":0" });
    expect(image.qcow2?.kernel).toBeUndefined(); // it boots with its own bootloader
    expect(image.qcow2?.firmware).toBe("bios");
    expect(await sha256File(disk)).toBe(before);
  });

  test("the qemu provider boots it, a task runs, the VM is reset by its snapshot and the task runs again", async () => {
    const out = join(dir, "results");
    const r = await runOn(join(image.dir, "image.json"), out);
    expect(r.stdout, r.stderr).toContain("tasks 1: passed 1, failed 0, errors 0");
    expect(r.code).toBe(0);
    const summaries = summariesOf(out);
    expect(summaries.map((x) => x.state)).toEqual(["passed", "passed"]);
    // The second rollout ran on the same VM, loaded back to the snapshot taken when its daemon first answered.
    expect(resetMethods(out)).toContain("snapshot");
    expect(await sha256File(disk)).toBe(before);
  });

  test("the daemon found the session's accessibility bus: the session's GTK dialog is in the tree", async () => {
    const provider = qemuProvider({ ...image.qcow2!, log });
    const pool = await openPool(provider, ["desktop"], 1);
    try {
      const env = pool.slots[0]!.envs.desktop!;
      expect((await env.process.run(["id", "-un"], { cwd: "/" })).stdout.trim()).toBe("alice");
      let text = "";
      for (const deadline = Date.now() + 60_000; Date.now() < deadline && !text.includes("An adopted session"); ) {
        text = JSON.stringify((await env.accessibility.tree()).applications);
        if (!text.includes("An adopted session")) await new Promise((r) => setTimeout(r, 1_000));
      }
      expect(text).toContain('"zenity"');
      expect(text).toContain("An adopted session");
    } finally {
      await pool.close();
    }
  });

  test("a disk that boots only by UEFI: adopted as such, booted with OVMF, reset with a spare at its snapshot", async () => {
    const uefiDisk = await foreignDisk(log, "uefi");
    const sum = await sha256File(uefiDisk);
    const r = await runPincer(["image", "adopt", uefiDisk, "--user", "alice", "--name", "foreign-desktop-uefi"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("boots by UEFI");
    const file = /as (\S+image\.json)\n/.exec(r.stdout)![1]!;
    expect((JSON.parse(readFileSync(file, "utf8")) as ImageManifest).qcow2?.firmware).toBe("uefi");
    const out = join(dir, "results-uefi");
    const run = await runOn(file, out, "--vm-spare");
    expect(run.stdout, run.stderr).toContain("tasks 1: passed 1, failed 0, errors 0");
    expect(resetMethods(out)).toContain("spare at snapshot");
    expect(await sha256File(uefiDisk)).toBe(sum);
  });
});
