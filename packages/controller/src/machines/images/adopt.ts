/**
 * `pincer image adopt DISK`: a Pincer VM image from a disk Pincer did not build (OSWorld's Ubuntu,
 * a company's desktop template). The disk is copied (never written), and libguestfs' virt-customize
 * puts the daemon bundle and a systemd unit into the copy: at boot the unit takes the VM's token
 * from fw_cfg (as Pincer's own images do) and starts the daemon as the desktop user once that
 * user's X session is up, with the session's Xauthority and D-Bus address. The qemu provider boots
 * the copy with its own bootloader and resets it to the snapshot it takes when the daemon first answers.
 */

import { existsSync } from "node:fs";
import { chmod, mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { basename, join, resolve } from "node:path";
import { execa } from "execa";
import { FW_CFG_TOKEN, GUEST_PORT, GUEST_TOKEN_FILE } from "../guestContract.js";
import { kvmWorks } from "../qemuVm.js";
import { fileSha256 } from "./aptExtras.js";
import { cacheRoot, type ImageManifest } from "./build.js";
import { daemonExec, GUEST_PREFIX } from "./guestFiles.js";
import { withBuildLock } from "./lock.js";
import { BUNDLE_MAIN, daemonBundle } from "./portableBundle.js";

export interface AdoptOptions {
  /** The disk: qcow2, raw, vmdk, vdi, vhdx (what qemu-img reads). */
  disk: string;
  /** The desktop user whose session the daemon serves (the one the display manager logs in). */
  user: string;
  display?: string;
  /** The session's Xauthority, if the daemon cannot find it (default: from the session's processes, else ~/.Xauthority). */
  xauthority?: string;
  /** How it boots (default: BIOS, unless its GPT has an EFI system partition and no BIOS boot partition). */
  firmware?: "bios" | "uefi";
  /** The image's name (default: the disk's file name). */
  name?: string;
  cacheDir?: string;
  log?: (line: string) => void;
}

/**
 * The daemon's starter in the guest, run as the desktop user: waits for the session's X socket, takes
 * XAUTHORITY and DBUS_SESSION_BUS_ADDRESS from the environment of the user's processes on that
 * display (a display manager's session has them), and starts the daemon with the VM's token.
 */
export function sessionStarter(display: string, xauthority: string | undefined): string {
  const n = display.replace(/^:(\d+).*$/, "$1");
  return `#!/bin/sh
# pincer-session-daemon, written by \`pincer image adopt\`: pincer-daemon in the desktop user's session.
set -u
display='${display}'
i=0
while [ ! -S /tmp/.X11-unix/X${n} ]; do
  i=$((i + 1)); [ "$i" -lt 1200 ] || { echo "pincer: no X display $display after 10 minutes" >&2; exit 1; }
  sleep 0.5
done
xauth='${xauthority ?? ""}'
bus=''
for d in /proc/[0-9]*; do
  [ -O "$d" ] || continue
  e="$(tr '\\0' '\\n' <"$d/environ" 2>/dev/null)" || continue
  echo "$e" | grep -qx "DISPLAY=$display" || echo "$e" | grep -qx "DISPLAY=:${n}" || continue
  [ -n "$xauth" ] || xauth="$(echo "$e" | sed -n 's/^XAUTHORITY=//p' | head -n 1)"
  [ -n "$bus" ] || bus="$(echo "$e" | sed -n 's/^DBUS_SESSION_BUS_ADDRESS=//p' | head -n 1)"
done
[ -n "$xauth" ] || xauth="$HOME/.Xauthority"
export DISPLAY="$display" XAUTHORITY="$xauth"
[ -z "$bus" ] || export DBUS_SESSION_BUS_ADDRESS="$bus"
${daemonExec(`${GUEST_PREFIX}/bin/node`, `${GUEST_PREFIX}/${BUNDLE_MAIN}`)} \\
  --host 0.0.0.0 --port ${GUEST_PORT} --display "$display" --token-file ${GUEST_TOKEN_FILE}
`;
}

/** The guest's unit: the token from fw_cfg, then the starter as the user; restarted if the session is not up yet. */
export function adoptedUnit(user: string): string {
  return `# Written by \`pincer image adopt\`.
[Unit]
Description=pincer-daemon in ${user}'s desktop session (a Pincer image adopted from another disk)
After=network.target systemd-user-sessions.service

[Service]
Type=simple
User=${user}
RuntimeDirectory=pincer
RuntimeDirectoryMode=0755
ExecStartPre=+/bin/sh -c 'modprobe qemu_fw_cfg 2>/dev/null; f=/sys/firmware/qemu_fw_cfg/by_name/${FW_CFG_TOKEN}/raw; \\
  i=0; while [ ! -r "$f" ] && [ $i -lt 50 ]; do i=$((i+1)); sleep 0.1; done; \\
  install -o ${user} -m 0400 "$f" ${GUEST_TOKEN_FILE}'
ExecStart=/usr/local/bin/pincer-session-daemon
WorkingDirectory=-~
Restart=on-failure
RestartSec=2
LimitNOFILE=65536

[Install]
WantedBy=multi-user.target
`;
}

function guestfsEnv(tcg: boolean): NodeJS.ProcessEnv {
  return { ...process.env, LIBGUESTFS_BACKEND: "direct", ...(tcg ? { LIBGUESTFS_BACKEND_SETTINGS: "force_tcg" } : {}) };
}

/** Puts the bundle, the starter, the unit and image.json into the copy `disk` (virt-customize). */
async function customize(disk: string, files: string, bundleDir: string, user: string, tcg: boolean): Promise<void> {
  const args = [
    "-a",
    disk,
    "--no-network",
    "--run-command",
    `getent passwd ${user} >/dev/null || { echo "no user ${user} in this disk's system: give --user the desktop user it logs in" >&2; exit 1; }`,
    "--mkdir",
    "/opt",
    "--copy-in",
    `${bundleDir}:/opt`,
    "--run-command",
    `rm -rf ${GUEST_PREFIX} && mv /opt/${basename(bundleDir)} ${GUEST_PREFIX} && chown -R root:root ${GUEST_PREFIX}`,
    "--mkdir",
    "/etc/pincer",
    "--upload",
    `${join(files, "pincer-session-daemon")}:/usr/local/bin/pincer-session-daemon`,
    "--chmod",
    "0755:/usr/local/bin/pincer-session-daemon",
    "--upload",
    `${join(files, "pincer-daemon.service")}:/etc/systemd/system/pincer-daemon.service`,
    "--upload",
    `${join(files, "image.json")}:/etc/pincer/image.json`,
    "--write",
    "/etc/modules-load.d/pincer.conf:qemu_fw_cfg",
    "--link",
    "/etc/systemd/system/pincer-daemon.service:/etc/systemd/system/multi-user.target.wants/pincer-daemon.service",
  ];
  const r = await execa("virt-customize", args, { env: guestfsEnv(tcg), reject: false, all: true });
  if (r.exitCode !== 0) {
    const out = String(r.all ?? "").trim();
    if ((r as { code?: string }).code === "ENOENT") throw new Error("virt-customize is missing: apt-get install libguestfs-tools");
    throw new Error(`virt-customize could not change the copy: ${out.split("\n").slice(-8).join("\n")}`);
  }
}

/**
 * Looks into the disk, read only (guestfish --ro with libguestfs' inspection): its OS, the user, and
 * QEMU's guest agent (the provider sets the clock through it after each reset). Refuses what cannot work.
 */
async function inspect(disk: string, user: string, tcg: boolean): Promise<{ os: string; firmware: "bios" | "uefi" }> {
  // Errors of the commands marked "-" are ignored (a partition that is not there, an MBR disk's GPT types).
  const parts = [1, 2, 3, 4, 5, 6].map((n) => `-part-get-gpt-type /dev/sda ${n}`).join("\n");
  const script = `cat /etc/os-release\ncat /etc/passwd\n-part-get-parttype /dev/sda\n${parts}\nis-file /usr/sbin/qemu-ga\n`;
  const r = await execa("guestfish", ["--ro", "-a", disk, "-i"], { env: guestfsEnv(tcg), input: script, reject: false });
  if (r.exitCode !== 0) throw new Error(`libguestfs could not find an operating system on ${disk}: ${r.stderr.trim().split("\n").slice(-3).join(" ")}`);
  const lines = r.stdout.trim().split("\n");
  const problems: string[] = [];
  if (!lines.some((l) => l.startsWith(`${user}:`)))
    problems.push(`no user ${user} in its /etc/passwd: give --user the desktop user its display manager logs in`);
  if (lines.at(-1) !== "true") {
    problems.push("no QEMU guest agent (/usr/sbin/qemu-ga), through which the qemu provider sets the clock after each reset: install qemu-guest-agent in it");
  }
  if (problems.length > 0) throw new Error(`${disk} cannot be adopted (nothing was written):\n${problems.map((p) => `  - ${p}`).join("\n")}`);
  const os = /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(r.stdout)?.[1] ?? "an operating system libguestfs found";
  return { os, firmware: firmwareOf(lines) };
}

const ESP = "C12A7328-F81F-11D2-BA4B-00A0C93EC93B";
const BIOS_BOOT = "21686148-6449-6E6F-744E-656564454649";

/**
 * BIOS for an MBR disk or a GPT disk with a BIOS boot partition (GRUB's, for BIOS); UEFI for a GPT
 * disk with an EFI system partition and no BIOS boot partition.
 */
export function firmwareOf(lines: readonly string[]): "bios" | "uefi" {
  const types = lines.map((l) => l.trim().toUpperCase());
  if (!types.includes("GPT")) return "bios";
  return types.includes(ESP) && !types.includes(BIOS_BOOT) ? "uefi" : "bios";
}

/**
 * Adopts `opts.disk` into Pincer's cache (`adopted/<name>-<sha>/`): image.json and disk.qcow2.
 * The same disk adopted again with the same bundle is found there.
 */
export async function adoptImage(opts: AdoptOptions): Promise<ImageManifest> {
  const log = opts.log ?? (() => {});
  const source = resolve(opts.disk);
  if (!existsSync(source)) throw new Error(`${opts.disk}: no such disk`);
  const info = JSON.parse((await execa("qemu-img", ["info", "--output=json", "-U", source])).stdout) as { format: string; "virtual-size": number };
  log(`${source}: ${info.format}, ${(info["virtual-size"] / 2 ** 30).toFixed(1)} GiB; computing its SHA-256`);
  const sha256 = await fileSha256(source);
  const bundle = await daemonBundle({ log });
  const name = (opts.name ?? basename(source).replace(/\.(qcow2|img|raw|vmdk|vdi|vhdx)$/i, "")).replace(/[^A-Za-z0-9._-]+/g, "-");
  const tcg = !(await kvmWorks());
  const seen = await inspect(source, opts.user, tcg);
  const firmware = opts.firmware ?? seen.firmware;
  log(`${source}: ${seen.os}; boots by ${firmware === "uefi" ? "UEFI" : "BIOS"}${opts.firmware ? " (--firmware)" : ""}`);
  const dir = join(cacheRoot(opts.cacheDir), "adopted", `${name}-${sha256.slice(0, 12)}`);
  await mkdir(dir, { recursive: true });
  return withBuildLock(join(dir, "lock"), log, async () => {
    const display = opts.display ?? ":0";
    const existing = existsSync(join(dir, "image.json")) ? (JSON.parse(await readFile(join(dir, "image.json"), "utf8")) as ImageManifest) : undefined;
    const a = existing?.adopted;
    const same = a && a.user === opts.user && a.display === display && a.xauthority === opts.xauthority && existing?.qcow2?.firmware === firmware;
    if (same && a.bundle.digest === bundle.manifest.digest) {
      log(`adopted already: ${join(dir, "image.json")}`);
      return existing!;
    }
    const files = join(dir, "files");
    await rm(files, { recursive: true, force: true });
    await mkdir(files);
    const m: ImageManifest = {
      profile: "adopted",
      key: `${sha256.slice(0, 8)}${bundle.manifest.digest.slice(0, 8)}`,
      created: new Date().toISOString(),
      suite: "",
      mirror: "",
      packages: [],
      addPackages: [],
      rootfs: "",
      qcow2: { disk: join(dir, "disk.qcow2"), firmware },
      adopted: {
        source,
        format: info.format,
        sha256,
        user: opts.user,
        display,
        ...(opts.xauthority ? { xauthority: opts.xauthority } : {}),
        bundle: { daemon: bundle.manifest.daemon, digest: bundle.manifest.digest },
      },
      dir,
    };
    await writeFile(join(files, "pincer-session-daemon"), sessionStarter(display, opts.xauthority));
    await writeFile(join(files, "pincer-daemon.service"), adoptedUnit(opts.user));
    await writeFile(join(files, "image.json"), `${JSON.stringify({ adopted: m.adopted, key: m.key, created: m.created }, null, 2)}\n`);
    const copy = join(dir, "disk.qcow2.tmp");
    log(`copying it to ${copy} (qcow2)`);
    await execa("qemu-img", ["convert", "-U", "-O", "qcow2", source, copy]);
    try {
      const t0 = performance.now();
      log(`virt-customize: the daemon bundle, its unit and starter${tcg ? " (TCG: a minute or more)" : ""}`);
      await customize(copy, files, bundle.dir, opts.user, tcg);
      log(`virt-customize took ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      await rename(copy, join(dir, "disk.qcow2"));
      await chmod(join(dir, "disk.qcow2"), 0o444);
    } finally {
      await rm(copy, { force: true });
    }
    await writeFile(join(dir, "image.json"), `${JSON.stringify(m, null, 2)}\n`);
    return m;
  });
}
