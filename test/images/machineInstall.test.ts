import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { connect } from "../../packages/controller/src/env/index.js";
import { type BundleManifest, compareGlibc, daemonBundle } from "../../packages/controller/src/machines/images/portableBundle.js";
import { runPincer } from "../fixtures/cli.js";
import { fileListing, type SshHost, sshHostImage, startSshHost } from "../fixtures/sshHost.js";

// `pincer machine install ssh://root@host` onto a host Pincer did not build: Debian 11 (glibc 2.31,
// the oldest the bundle is made for) with systemd, sshd and a desktop session, and no Node.js and no
// C compiler, in a Podman container of the test's own. Refusals come before anything is copied; the
// installed daemon serves a `pincer run --machines`; --upgrade keeps the token; --uninstall leaves
// the host's files as they were.

let host: SshHost;
let bundle: { dir: string; manifest: BundleManifest };
let dir: string;
let before: string[];
const log = (l: string) => {
  if (process.env.PINCER_TEST_VERBOSE) process.stderr.write(`[machine] ${l}\n`);
};

function sshArgs(): string[] {
  return [`ssh://root@127.0.0.1:${host.sshPort}`, "-i", host.key, ...host.sshOptions.flatMap((o) => ["--ssh-option", o])];
}

function install(...more: string[]) {
  return runPincer(["machine", "install", ...sshArgs(), "--address", `127.0.0.1:${host.daemonPort}`, "--token-file", join(dir, "token"), ...more]);
}

async function nothingCopied(): Promise<void> {
  const r = await host.exec("ls -d /opt/pincer* /etc/pincer /etc/systemd/system/pincer-daemon.service 2>/dev/null; true");
  expect(r.stdout.trim()).toBe("");
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "pincer-machine-"));
  bundle = await daemonBundle({ log });
  host = await startSshHost(await sshHostImage(log));
  before = await fileListing(host);
});

afterAll(async () => {
  await host?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("pincer machine install over SSH, on a host Pincer did not build", () => {
  test("the host has glibc 2.31 and neither Node.js nor a C compiler; the bundle needs no newer glibc", async () => {
    const r = await host.exec("getconf GNU_LIBC_VERSION; for c in node nodejs cc gcc clang tcc; do command -v $c; done; true");
    expect(r.stdout.trim()).toBe("glibc 2.31");
    expect(compareGlibc(bundle.manifest.glibcNeeded, "2.31")).toBeLessThanOrEqual(0);
    expect(bundle.manifest.systemLibraries).toEqual(expect.arrayContaining(["libX11.so.6", "libXtst.so.6", "libstdc++.so.6"]));
    // The spawner is linked statically (the one part that would need the build machine's glibc).
    const file = readFileSync(join(bundle.dir, "node_modules/@pincer/daemon/native/build/pincer-spawner"));
    expect(file.includes(Buffer.from("/lib64/ld-linux-x86-64.so.2"))).toBe(false);
  });

  test("refused before anything is copied: no display, no XTEST, no such user", async () => {
    await host.exec("systemctl stop desktop-session; rm -f /tmp/.X11-unix/X0");
    let r = await install("--user", "alice");
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("refused, nothing was copied");
    expect(r.stderr).toContain("no X display :0 on the host (no /tmp/.X11-unix/X0)");
    await nothingCopied();

    await host.exec("echo 'XVFB_ARGS=-extension XTEST' > /etc/default/desktop-session; systemctl start desktop-session; sleep 1");
    expect((await host.exec("i=0; until [ -S /tmp/.X11-unix/X0 ]; do i=$((i+1)); [ $i -lt 100 ] || exit 1; sleep 0.1; done")).exitCode).toBe(0);
    r = await install("--user", "alice");
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/the X server on :0 \(.*\) has no XTEST extension/);
    await nothingCopied();

    r = await install("--user", "bob");
    expect(r.stderr).toContain("no user bob on the host");
    await nothingCopied();
    await host.exec("rm /etc/default/desktop-session; systemctl restart desktop-session");
    expect((await host.exec("i=0; until [ -S /tmp/.X11-unix/X0 ]; do i=$((i+1)); [ $i -lt 100 ] || exit 1; sleep 0.1; done")).exitCode).toBe(0);
  });

  test("installs as alice's service with a 0600 token, answers, and pincer run --machines uses it", async () => {
    const machines = join(dir, "machines.json");
    const r = await install("--user", "alice", "--machines-file", machines);
    expect(r.stderr).toContain("Xauthority /home/alice/.cache/session/Xauthority"); // found in her session's processes
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`machines file line:\n  "desktop": {"address":"127.0.0.1:${host.daemonPort}","tokenFile":"${join(dir, "token")}"}`);
    expect(JSON.parse(readFileSync(machines, "utf8"))).toEqual({ desktop: { address: `127.0.0.1:${host.daemonPort}`, tokenFile: join(dir, "token") } });
    expect(statSync(join(dir, "token")).mode & 0o777).toBe(0o600);
    const token = readFileSync(join(dir, "token"), "utf8").trim();
    const onHost = await host.exec(
      "stat -c '%a %U' /etc/pincer/token; cat /etc/pincer/token; systemctl is-enabled pincer-daemon; systemctl is-active pincer-daemon",
    );
    expect(onHost.stdout.split("\n").slice(0, 4)).toEqual(["600 alice", token, "enabled", "active"]);

    const env = connect(`127.0.0.1:${host.daemonPort}`, { token });
    try {
      expect((await env.process.run(["id", "-un"], { cwd: "/" })).stdout.trim()).toBe("alice");
      expect(await env.screen.size()).toEqual({ width: 1280, height: 800 });
      expect(await env.mouse.move({ x: 321, y: 123 })).toEqual({ x: 321, y: 123 }); // XTEST, through the session's cookie
      expect(await env.mouse.position()).toEqual({ x: 321, y: 123 });
    } finally {
      env.close();
    }

    const run = await runPincer(["run", "examples/files/sort-inbox", "--machines", machines, "--out", join(dir, "results")]);
    expect(run.stdout).toContain("tasks 1: passed 1, failed 0, errors 0");
    expect(run.code).toBe(0);
  });

  test("--upgrade puts a new bundle in place and restarts; the token and the service's settings stay", async () => {
    const token = readFileSync(join(dir, "token"), "utf8");
    const next = join(dir, "bundle-next");
    cpSync(bundle.dir, next, { recursive: true });
    const manifest = JSON.parse(readFileSync(join(next, "bundle.json"), "utf8")) as BundleManifest;
    writeFileSync(join(next, "bundle.json"), JSON.stringify({ ...manifest, digest: `next-${manifest.digest}` }));
    // A setting changed by hand on the host (here fileRoot, as TLS would be) survives the upgrade.
    await host.exec(`sed -i 's|"tokenFile"|"fileRoot": "/",\\n  "tokenFile"|' /etc/pincer/daemon.json`);
    const config = (await host.exec("cat /etc/pincer/daemon.json")).stdout;
    expect(JSON.parse(config)).toMatchObject({ fileRoot: "/" });
    const pid = (await host.exec("systemctl show -p MainPID --value pincer-daemon")).stdout.trim();
    const refused = await install("--upgrade", "--bundle", next, "--port", "50052");
    expect(refused.stderr).toContain("--upgrade keeps the service's settings and does not take --port");
    const r = await install("--upgrade", "--bundle", next);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("pincer-daemon upgraded");
    expect(readFileSync(join(dir, "token"), "utf8")).toBe(token);
    const onHost = await host.exec(
      "grep -c next- /opt/pincer/bundle.json; ls -d /opt/pincer*; grep -E '^(User|Environment=DISPLAY)=' /etc/systemd/system/pincer-daemon.service",
    );
    expect(onHost.stdout.trim().split("\n")).toEqual(["1", "/opt/pincer", "User=alice", "Environment=DISPLAY=:0"]);
    expect((await host.exec("systemctl show -p MainPID --value pincer-daemon")).stdout.trim()).not.toBe(pid);
    expect((await host.exec("cat /etc/pincer/daemon.json")).stdout).toBe(config);
  });

  test("--uninstall leaves nothing of Pincer on the host: the same files as before, no unit", async () => {
    const r = await runPincer(["machine", "install", ...sshArgs(), "--uninstall", "--token-file", join(dir, "token")]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("removed /opt/pincer");
    expect(existsSync(join(dir, "token"))).toBe(false);
    expect((await host.exec("systemctl cat pincer-daemon")).exitCode).not.toBe(0);
    expect((await host.exec("systemctl list-units --all --no-legend 'pincer*'")).stdout.trim()).toBe("");
    const after = await fileListing(host);
    expect(after.filter((l) => !before.includes(l))).toEqual([]);
    expect(before.filter((l) => !after.includes(l))).toEqual([]);
    // A second uninstall has nothing to remove, and says so.
    const again = await runPincer(["machine", "install", ...sshArgs(), "--uninstall"]);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain("pincer-daemon is not installed");
  });
});
