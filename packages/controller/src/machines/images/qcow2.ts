import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { copyFile, mkdir, readdir, rename, rm, truncate, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { FailedPreconditionError } from "@pincer/shared";
import { VM_APPEND } from "../guestContract.js";

/** The kernel command line a Pincer VM image boots with: the disk is the root filesystem, the console is the serial port. */

/** A bootable VM image: a qcow2 disk holding the root filesystem (no partition table), and the kernel and initrd to boot it directly. */
export interface Qcow2Image {
  /** The qcow2 disk (one ext4 filesystem, the whole disk). */
  disk: string;
  kernel: string;
  initrd: string;
  /** The kernel command line ({@link VM_APPEND}). */
  append: string;
}

/** Options of {@link makeQcow2}. */
export interface MakeQcow2Options {
  /** Free space on the disk beyond the root filesystem's content, for what tasks write, in MiB. @default 1024 */
  headroomMb?: number;
}

const run = promisify(execFile);

/** Runs a tool; a failure says which tool, with the end of what it printed. */
async function tool(cmd: string, args: string[]): Promise<string> {
  try {
    return (await run(cmd, args, { maxBuffer: 16 * 1024 * 1024 })).stdout;
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: string };
    if (e.code === "ENOENT")
      throw new FailedPreconditionError(`${cmd} is not installed: install e2fsprogs and qemu-utils (apt-get install e2fsprogs qemu-utils)`);
    throw new FailedPreconditionError(`${cmd} ${args.join(" ")} failed: ${(e.stderr ?? e.message).trim().slice(-1000)}`);
  }
}

/** The newest kernel in `boot` with its initrd, as file names. */
async function kernelOf(boot: string): Promise<{ kernel: string; initrd: string }> {
  const names = await readdir(boot).catch(() => [] as string[]);
  const versions = names
    .filter((n) => n.startsWith("vmlinuz-") && names.includes(`initrd.img-${n.slice("vmlinuz-".length)}`))
    .map((n) => n.slice("vmlinuz-".length))
    .sort((a, b) => b.localeCompare(a, undefined, { numeric: true }));
  if (versions.length === 0)
    throw new FailedPreconditionError(`${boot} holds no vmlinuz-* with its initrd.img-*: the image needs the VM packages (linux-image-cloud-amd64)`);
  return { kernel: `vmlinuz-${versions[0]}`, initrd: `initrd.img-${versions[0]}` };
}

/** Bytes and inodes the files under `dir` use. */
async function usageOf(dir: string): Promise<{ bytes: number; inodes: number }> {
  const bytes = Number.parseInt(await tool("du", ["-sx", "--block-size=1", dir]), 10);
  const inodes = Number.parseInt(await tool("du", ["-sx", "--inodes", dir]), 10);
  return { bytes, inodes };
}

/**
 * Makes a VM image from a root filesystem directory: copies its kernel and initrd out of `boot/`,
 * makes an ext4 filesystem of the whole tree with `mkfs.ext4 -d` (no loop device, no mount, so no
 * privilege beyond reading the tree), sized to its content plus `headroomMb` free, and converts it
 * to qcow2. Writes `disk.qcow2`, `vmlinuz` and `initrd.img` into `outDir` under temporary names
 * and renames them at the end (the disk last), so a failure leaves nothing partial behind.
 */
export async function makeQcow2(rootfs: string, outDir: string, opts: MakeQcow2Options = {}): Promise<Qcow2Image> {
  const boot = await kernelOf(join(rootfs, "boot"));
  await mkdir(outDir, { recursive: true });
  const tmp = (name: string) => join(outDir, `.${name}.tmp-${randomBytes(4).toString("hex")}`);
  const out = { disk: join(outDir, "disk.qcow2"), kernel: join(outDir, "vmlinuz"), initrd: join(outDir, "initrd.img") };
  const temp = { raw: tmp("disk.raw"), disk: tmp("disk.qcow2"), kernel: tmp("vmlinuz"), initrd: tmp("initrd.img") };
  try {
    await copyFile(join(rootfs, "boot", boot.kernel), temp.kernel);
    await copyFile(join(rootfs, "boot", boot.initrd), temp.initrd);
    const usage = await usageOf(rootfs);
    const MiB = 1024 * 1024;
    // ext4's own metadata (inode tables, journal) takes a few percent; 256 MiB covers it on small disks.
    const sizeMb = Math.ceil((usage.bytes * 1.1) / MiB) + 256 + (opts.headroomMb ?? 1024);
    const inodes = Math.max(Math.ceil((sizeMb * MiB) / 16384), usage.inodes + 65536);
    await writeFile(temp.raw, "");
    await truncate(temp.raw, sizeMb * MiB);
    // Inode tables written now, not by the kernel's lazy init on every VM's first boot.
    const ext4 = ["-q", "-F", "-t", "ext4", "-L", "pincer-root", "-m", "0", "-N", String(inodes), "-E", "lazy_itable_init=0,lazy_journal_init=0"];
    await tool("mkfs.ext4", [...ext4, "-d", rootfs, temp.raw]);
    await tool("qemu-img", ["convert", "-f", "raw", "-O", "qcow2", temp.raw, temp.disk]);
    await rm(temp.raw, { force: true });
    await rename(temp.kernel, out.kernel);
    await rename(temp.initrd, out.initrd);
    await rename(temp.disk, out.disk);
    return { ...out, append: VM_APPEND };
  } finally {
    await Promise.all(Object.values(temp).map((p) => rm(p, { force: true })));
  }
}
