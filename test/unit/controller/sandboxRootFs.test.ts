import { expect, test } from "vitest";
import { rootFsProblem, sandboxSupport } from "../../../packages/controller/src/machines/sandbox.js";

// The local sandbox idmaps this computer's root file system: where that cannot work (a container's
// overlayfs root), machines run without a sandbox and the pool says why, instead of every machine
// failing to start ("idmapped mount of /: Invalid argument").

test("a root file system that cannot be idmapped turns the sandbox off, saying why", () => {
  const overlay = sandboxSupport({}, () => 0x794c7630);
  expect(overlay.mode).toBe("none");
  // Said only when the other requirements hold (root, bubblewrap, the helper): the first missing one is named.
  if (sandboxSupport({}, () => 0xef53).mode === "overlay") {
    expect(overlay.why).toBe(
      "the root file system is overlayfs (this computer looks like a container), which cannot be idmapped; the sandbox needs ext4, xfs, btrfs or tmpfs",
    );
  }
});

test("ext4, xfs, btrfs and tmpfs can be idmapped; others are named, or given by number", () => {
  for (const t of [0xef53, 0x58465342, 0x9123683e, 0x01021994]) expect(rootFsProblem(t)).toBeUndefined();
  expect(rootFsProblem(0x6969)).toMatch(/^the root file system is nfs, which cannot be idmapped/);
  expect(rootFsProblem(0x12345678)).toMatch(/^the root file system is file system type 0x12345678, which/);
});
