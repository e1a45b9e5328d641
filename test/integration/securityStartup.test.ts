import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { connect, UnauthenticatedError } from "@pincer/controller";
import { makeTestCerts } from "../fixtures/certs.js";
import { spawnDaemon } from "../fixtures/daemon.js";
import { eventually } from "../fixtures/poll.js";

const ROOT = resolve(import.meta.dirname, "../..");
const MAIN = resolve(ROOT, "packages/daemon/src/main.ts");

let dir: string;
beforeAll(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "pincer-startup-")));
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Runs the daemon CLI until it exits (or kills it once it listens); returns its output. */
function runCli(args: string[], env: NodeJS.ProcessEnv = {}) {
  const child = spawn(process.execPath, ["--conditions=@pincer/source", "--import", "tsx", MAIN, "--port", "0", ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d: Buffer) => {
    stdout += d.toString();
    if (stdout.includes("listening on")) child.kill("SIGTERM");
  });
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  // 'close', not 'exit': the pipes may still hold output when the process is gone.
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((res) => child.once("close", (code) => res({ code, stdout, stderr })));
}

const securityLine = (log: string) => {
  const line = log.split("\n").find((l) => l.includes('"msg":"security settings"'));
  if (!line) throw new Error(`no security settings line in: ${log}`);
  return JSON.parse(line) as Record<string, unknown>;
};
/** The daemon's log once it holds `text` (stderr may trail the address line on stdout). */
async function logWith(d: { log(): string }, text: string): Promise<string> {
  await eventually(() => d.log().includes(text), 10_000, 20);
  return d.log();
}
const auditLines = (text: string) =>
  text
    .split("\n")
    .filter((l) => l.includes('"type":"audit"'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe("listening beyond loopback", () => {
  test.each([["0.0.0.0"], ["::"]])("is refused on %s without a token or mutual TLS, and says what to give", async (host) => {
    const r = await runCli(["--host", host]);
    expect(r.code).not.toBe(0);
    expect(r.stdout).not.toContain("listening");
    expect(r.stderr).toMatch(/refusing to listen on .* without authentication/);
    for (const hint of ["--token-file", "PINCER_TOKEN", "--tls-client-ca", "--insecure"]) expect(r.stderr).toContain(hint);
  });

  test("TLS alone (no client certificates, no token) is not enough", async () => {
    const certs = makeTestCerts();
    try {
      const r = await runCli(["--host", "0.0.0.0", "--tls-cert", certs.serverCert, "--tls-key", certs.serverKey]);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toMatch(/refusing to listen on 0\.0\.0\.0 without authentication/);
    } finally {
      certs.remove();
    }
  });

  test("--insecure starts, warns at start and in System/GetInfo", async () => {
    const d = await spawnDaemon({ args: ["--host", "0.0.0.0", "--insecure"] });
    try {
      await logWith(d, "security settings");
      expect(d.log()).toMatch(/"level":"warn","msg":"INSECURE: listening on 0\.0\.0\.0 with no authentication \(--insecure\)/);
      expect(securityLine(d.log())).toMatchObject({ auth: "none", insecure: true });
      const env = connect(d.address.replace("0.0.0.0", "127.0.0.1"));
      const info = await env.system.info();
      env.close();
      expect(info.warnings.some((w) => w.startsWith("INSECURE:"))).toBe(true);
    } finally {
      await d.close();
    }
  });

  test("a token on 0.0.0.0 without TLS starts, with a warning that it travels in plain text", async () => {
    const d = await spawnDaemon({ args: ["--host", "0.0.0.0"], env: { PINCER_TOKEN: randomBytes(32).toString("hex") } });
    try {
      expect(securityLine(await logWith(d, "security settings"))).toMatchObject({ auth: "token", tls: false });
      expect(d.log()).toContain("travels in plain text");
    } finally {
      await d.close();
    }
  });
});

describe("the token's sources", () => {
  test("there is no flag that takes the token itself", async () => {
    const r = await runCli(["--token", "abcdefabcdefabcdefabcdef"]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/unknown option '--token'/);
  });

  test("--token-file works; a world-readable file warns; a short token is refused", async () => {
    const token = randomBytes(32).toString("hex");
    const file = join(dir, "token");
    writeFileSync(file, `${token}\n`);
    chmodSync(file, 0o644);
    const d = await spawnDaemon({ args: ["--token-file", file] });
    try {
      expect(await logWith(d, "security settings")).toContain("readable by other users");
      const env = connect(d.address, { tokenFile: file });
      await expect(env.system.info()).resolves.toBeDefined();
      env.close();
      await expect(d.env.system.info()).rejects.toBeInstanceOf(UnauthenticatedError);
    } finally {
      await d.close();
    }
    writeFileSync(file, "short");
    const r = await runCli(["--token-file", file]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("openssl rand -hex 32");
  });

  test("--health-auth puts health checks behind the token too", async () => {
    const token = randomBytes(32).toString("hex");
    const d = await spawnDaemon({ args: ["--health-auth"], env: { PINCER_TOKEN: token } });
    const client = new grpc.Client(d.address, grpc.credentials.createInsecure());
    try {
      const code = await new Promise<number>((res) =>
        client.makeUnaryRequest(
          "/grpc.health.v1.Health/Check",
          (b: Buffer) => b,
          (b: Buffer) => b,
          Buffer.alloc(0),
          (err) => res(err ? err.code : 0),
        ),
      );
      expect(code).toBe(grpc.status.UNAUTHENTICATED);
      expect(securityLine(await logWith(d, "security settings"))).toMatchObject({ healthWithoutToken: false });
    } finally {
      client.close();
      await d.close();
    }
  });
});

describe("configuration", () => {
  test("flags beat environment variables, which beat the config file, which beats the defaults", async () => {
    const rootA = join(dir, "rootA");
    mkdirSync(rootA);
    const config = join(dir, "daemon.json");
    writeFileSync(config, JSON.stringify({ fileRoot: "rootA", maxProcesses: 5, execAllow: ["echo"], maxUploadBytes: "10M", noExec: false }));
    const line = async (args: string[], env: NodeJS.ProcessEnv = {}) => securityLine((await runCli(["--config", config, ...args], env)).stderr);

    const fromFile = await line([]);
    expect(fromFile).toMatchObject({ fileRoot: rootA, exec: { allow: ["echo"] }, limits: { maxProcesses: 5, maxUploadBytes: 10 * 1024 * 1024 } });
    expect(await line([], { PINCER_MAX_PROCESSES: "7" })).toMatchObject({ limits: { maxProcesses: 7 } });
    expect(await line(["--max-processes", "9"], { PINCER_MAX_PROCESSES: "7" })).toMatchObject({ limits: { maxProcesses: 9 } });
    expect(await line([], { PINCER_EXEC_ALLOW: "ls,cat" })).toMatchObject({ exec: { allow: ["ls", "cat"] } });
    // A boolean variable set to 0 is off, not on.
    expect(await line([], { PINCER_NO_EXEC: "0" })).toMatchObject({ exec: { allow: ["echo"] } });
    const defaults = securityLine((await runCli([])).stderr);
    expect(defaults).toMatchObject({ auth: "none", tls: false, fileRoot: null, exec: "all", limits: { maxProcesses: 64, maxUploadBytes: null } });
    expect(defaults.bind).toMatch(/^127\.0\.0\.1:\d+$/);
  });

  test("a config file with an unknown key or a token in it is refused", async () => {
    const config = join(dir, "bad.json");
    writeFileSync(config, JSON.stringify({ fileroot: "/tmp" }));
    let r = await runCli(["--config", config]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("fileroot: unknown key");
    writeFileSync(config, JSON.stringify({ token: "abcdefabcdefabcdefabcdef" }));
    r = await runCli(["--config", config]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("tokenFile");
  });

  test("--help documents the security flags and variables", async () => {
    const child = spawn(process.execPath, ["--conditions=@pincer/source", "--import", "tsx", MAIN, "--help"], { cwd: ROOT });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    await new Promise((r) => child.once("exit", r));
    for (const flag of [
      "--config",
      "--token-file",
      "PINCER_TOKEN",
      "--health-auth",
      "--tls-cert",
      "--tls-key",
      "--tls-client-ca",
      "--insecure",
      "--file-root",
      "--no-exec",
      "--exec-allow",
      "--max-upload-bytes",
      "--max-processes",
      "--max-output-bytes",
      "--max-message-bytes",
      "--audit-file",
      "--audit-debug",
      "--xvfb",
      "PINCER_FILE_ROOT",
    ]) {
      expect(out).toContain(flag);
    }
  });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("--xvfb and the audit log", () => {
  test.each(["SIGTERM", "SIGINT"] as const)("the daemon starts its own Xvfb, drives it, and stops it on %s", async (sig) => {
    const d = await spawnDaemon({ args: ["--xvfb", "800x600x24"] });
    const started = (await logWith(d, "xvfb started")).split("\n").find((l) => l.includes('"msg":"xvfb started"'));
    const { pid, display } = JSON.parse(started!) as { pid: number; display: string };
    try {
      expect(alive(pid)).toBe(true);
      expect(await d.env.screen.size()).toEqual({ width: 800, height: 600 });
      expect((await d.env.system.info()).display).toBe(display);
      // Commands run by the daemon see its display.
      expect((await d.env.process.run("echo $DISPLAY")).stdout.trim()).toBe(display);
    } finally {
      d.env.close();
      const exited = new Promise((r) => d.process.once("exit", r));
      d.process.kill(sig);
      await exited;
    }
    expect(alive(pid)).toBe(false);
  });

  test("one line per call, without file contents, typed text or tokens; --audit-debug adds the request", async () => {
    const token = randomBytes(32).toString("hex");
    const auditFile = join(dir, "audit.log");
    const d = await spawnDaemon({ args: ["--xvfb", "640x480x24", "--audit-file", auditFile], env: { PINCER_TOKEN: token } });
    const env = connect(d.address, { token });
    try {
      await env.files.write(join(dir, "audited.txt"), "FILE-CONTENT-4f9a");
      await env.keyboard.type("typed-secret-8c1e");
      await env.process.run(["echo", "ARGV-SECRET-77d2"]);
      await env.files.stat("/nonexistent-path").catch(() => undefined);
      await d.env.system.info().catch(() => undefined); // no token
    } finally {
      env.close();
      await d.close();
    }
    expect(statSync(auditFile).mode & 0o777).toBe(0o600);
    const text = readFileSync(auditFile, "utf8");
    for (const secret of ["FILE-CONTENT-4f9a", "typed-secret-8c1e", "ARGV-SECRET-77d2", token]) expect(text).not.toContain(secret);
    const lines = auditLines(text);
    expect(lines.map((l) => `${l.method} ${l.code}`)).toEqual([
      "/pincer.v1.Files/Upload OK",
      "/pincer.v1.Input/TypeText OK",
      "/pincer.v1.Process/Run OK",
      "/pincer.v1.Files/Stat NOT_FOUND",
      "/pincer.v1.System/GetInfo UNAUTHENTICATED",
    ]);
    for (const l of lines) {
      expect(Object.keys(l).sort()).toEqual(["code", "duration_ms", "method", "peer", "time", "type"]);
      expect(l.peer).toMatch(/^127\.0\.0\.1:\d+$/);
      expect(typeof l.duration_ms).toBe("number");
      expect(new Date(l.time as string).getTime()).toBeGreaterThan(Date.now() - 60_000);
    }
    // The audit lines went to the file, not to stderr.
    expect(auditLines(d.log())).toEqual([]);

    const debugFile = join(dir, "audit-debug.log");
    const dd = await spawnDaemon({ args: ["--audit-file", debugFile, "--audit-debug"] });
    try {
      await dd.env.process.run(["echo", "ARGV-VISIBLE-IN-DEBUG"]);
    } finally {
      await dd.close();
    }
    const debugLine = auditLines(readFileSync(debugFile, "utf8")).find((l) => l.method === "/pincer.v1.Process/Run");
    expect(JSON.stringify(debugLine?.request)).toContain("ARGV-VISIBLE-IN-DEBUG");
  });
});
