import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { ImageManifest } from "../../packages/controller/src/machines/images/build.js";
import { runPincer } from "../fixtures/cli.js";
import { fileSha256 as sha256File } from "../../packages/controller/src/machines/images/adopt.js";
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
    expect(await sha256File(disk)).toBe(before);
  });

  test("the qemu provider boots it, a task runs, the VM is reset by its snapshot and the task runs again", async () => {
    const out = join(dir, "results");
    const r = await runPincer([
      "run",
      "examples/files/sort-inbox",
      "--provider",
      "qemu",
      "--image",
      join(image.dir, "image.json"),
      "--rollouts",
      "2",
      "--concurrency",
      "1",
      "--out",
      out,
    ]);
    expect(r.stdout, r.stderr).toContain("tasks 1: passed 1, failed 0, errors 0");
    expect(r.code).toBe(0);
    const run = readdirSync(out).find((d) => d.startsWith("run-"))!;
    const summaries = readdirSync(join(out, run), { recursive: true, encoding: "utf8" })
      .filter((f) => f.endsWith("summary.json") && f.includes("rollout-"))
      .sort()
      .map(
        (f) =>
          (JSON.parse(readFileSync(join(out, run, f), "utf8")) as { results: { state: string; machine_reset: Record<string, { method: string }> } }).results,
      );
    expect(summaries.map((x) => x.state)).toEqual(["passed", "passed"]);
    // The second rollout ran on the same VM, loaded back to the snapshot taken when its daemon first answered.
    expect(summaries.map((x) => x.machine_reset.desktop?.method)).toContain("snapshot");
    expect(await sha256File(disk)).toBe(before);
  });
});
