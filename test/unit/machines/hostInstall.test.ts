import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { addToMachinesFile, parsePreflight, refusals } from "../../../packages/controller/src/machines/hostInstall.js";
import { type BundleManifest, compareGlibc } from "../../../packages/controller/src/machines/images/portableBundle.js";
import { parseSshTarget, shellQuote } from "../../../packages/controller/src/machines/sshTarget.js";
import { cookieFor, parseXauthority } from "../../../packages/controller/src/machines/xProbe.js";

const dir = mkdtempSync(join(tmpdir(), "pincer-hostinstall-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const GOOD = parsePreflight(
  [
    "arch=x86_64",
    "glibc=2.35",
    "root=yes",
    "systemd=yes",
    "user=alice",
    "uid=1000",
    "home=/home/alice",
    "display_number=0",
    "display_socket=/tmp/.X11-unix/X0",
    "xauthority=/home/alice/.Xauthority",
    "libs_missing=",
    "end=1",
  ].join("\n"),
);
const bundle = { glibcNeeded: "2.28" } as BundleManifest;

describe("which hosts are refused, and why", () => {
  test("a desktop host with everything goes ahead", () => {
    expect(refusals(GOOD, "install", bundle, { user: "alice" })).toEqual([]);
  });

  test("each missing part is named, all at once", () => {
    const p = { ...GOOD, arch: "aarch64", glibc: "2.27", systemd: "no", libs_missing: "libXtst.so.6", display_socket: "" };
    const r = refusals(p, "install", bundle, { user: "alice" });
    expect(r).toEqual([
      "the host is aarch64; the bundle is for x86_64",
      "the host's glibc is 2.27; the bundle needs 2.31 or newer (Debian 11, Ubuntu 20.04 or later)",
      expect.stringContaining("systemd is not running on the host"),
      expect.stringContaining("the host lacks shared libraries the daemon needs: libXtst.so.6"),
      expect.stringContaining("no X display :0 on the host (no /tmp/.X11-unix/X0)"),
    ]);
  });

  test("a bundle that needs a newer glibc than the floor raises the bar", () => {
    expect(refusals({ ...GOOD, glibc: "2.31" }, "install", { glibcNeeded: "2.34" } as BundleManifest, { user: "alice" })).toEqual([
      "the host's glibc is 2.31; the bundle needs 2.34 or newer (Debian 11, Ubuntu 20.04 or later)",
    ]);
  });

  test("install over an install, upgrade of nothing, uninstall of nothing or of a foreign folder", () => {
    expect(refusals({ ...GOOD, installed: "{}" }, "install", bundle, { user: "alice" })).toEqual([expect.stringContaining("use --upgrade")]);
    expect(refusals(GOOD, "upgrade", bundle, {})).toEqual([expect.stringContaining("not installed there")]);
    expect(refusals({ end: "1" }, "uninstall", undefined, {})).toEqual([expect.stringContaining("not installed")]);
    expect(refusals({ end: "1", installed: "other" }, "uninstall", undefined, {})).toEqual([expect.stringContaining("not a pincer-daemon bundle")]);
  });

  test("--xvfb needs Xvfb and no display; no user named is refused; a check cut short is refused", () => {
    expect(refusals({ ...GOOD, display_socket: "", xvfb: "" }, "install", bundle, { user: "alice", xvfb: "1280x800x24" })).toEqual([
      expect.stringContaining("--xvfb needs Xvfb"),
    ]);
    expect(refusals(GOOD, "install", bundle, {})).toEqual([expect.stringContaining("--user USER")]);
    expect(refusals({ arch: "x86_64" }, "install", bundle, { user: "alice" })).toEqual([expect.stringContaining("did not finish")]);
  });
});

describe("addresses, quoting, versions", () => {
  test("ssh targets", () => {
    expect(parseSshTarget("ssh://root@10.0.0.5:2222")).toEqual({ user: "root", host: "10.0.0.5", port: 2222 });
    expect(parseSshTarget("alice@lab-pc")).toEqual({ user: "alice", host: "lab-pc" });
    expect(parseSshTarget("ssh://root@[fd00::5]")).toEqual({ user: "root", host: "fd00::5" });
    expect(() => parseSshTarget("ssh://root:hunter2@host")).toThrow(/no password in the address/);
    expect(() => parseSshTarget("ssh://host")).toThrow(/name the user/);
    expect(() => parseSshTarget("http://root@host")).toThrow(/ssh:\/\/USER@HOST/);
  });

  test("shell words", () => {
    expect(shellQuote("/opt/pincer")).toBe("/opt/pincer");
    expect(shellQuote("it's a b")).toBe(`'it'\\''s a b'`);
  });

  test("glibc versions compare as numbers", () => {
    expect(compareGlibc("2.31", "2.4")).toBe(1);
    expect(compareGlibc("2.2.5", "2.28")).toBe(-1);
    expect(compareGlibc("2.31", "2.31")).toBe(0);
  });

  test("Xauthority entries and the display's cookie", () => {
    const entry = (family: number, number: string, data: Buffer) => {
      const f = (b: Buffer) => Buffer.concat([Buffer.from([b.length >> 8, b.length & 255]), b]);
      return Buffer.concat([
        Buffer.from([family >> 8, family & 255]),
        f(Buffer.from("host")),
        f(Buffer.from(number)),
        f(Buffer.from("MIT-MAGIC-COOKIE-1")),
        f(data),
      ]);
    };
    const file = Buffer.concat([entry(256, "1", Buffer.alloc(16, 1)), entry(256, "0", Buffer.alloc(16, 2)), Buffer.from([0, 1, 0])]);
    const entries = parseXauthority(file);
    expect(entries.map((e) => e.number)).toEqual(["1", "0"]); // the truncated tail is left out
    expect(cookieFor(entries, 0)).toEqual(Buffer.alloc(16, 2));
    expect(cookieFor(entries, 7)).toBeUndefined();
  });
});

describe("the machines file", () => {
  test("the machine is added under its name, replacing one at the same address, beside the others", async () => {
    const file = join(dir, "machines.json");
    writeFileSync(file, JSON.stringify({ other: { address: "10.0.0.9:50051" }, desktop: { address: "10.0.0.5:50051", tokenFile: "old" } }));
    await addToMachinesFile(file, "desktop", { address: "10.0.0.5:50051", tokenFile: "new" });
    await addToMachinesFile(file, "desktop", { address: "10.0.0.6:50051", tokenFile: "t6" });
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({
      other: { address: "10.0.0.9:50051" },
      desktop: [
        { address: "10.0.0.5:50051", tokenFile: "new" },
        { address: "10.0.0.6:50051", tokenFile: "t6" },
      ],
    });
  });
});
