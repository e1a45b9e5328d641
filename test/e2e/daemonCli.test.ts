import { execFileSync, spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, test } from "vitest";
import { connect } from "@pincer/controller";
import { gone } from "../fixtures/processes.js";
import { startXvfb } from "../fixtures/xvfb.js";

const ROOT = resolve(import.meta.dirname, "../..");
const MAIN = resolve(ROOT, "packages/daemon/src/main.ts");

/** Runs the daemon CLI; resolves with its output once it exits. */
function daemonCli(args: string[], onStdout?: (text: string, child: ReturnType<typeof spawn>) => void) {
  const child = spawn(process.execPath, ["--conditions=@pincer/source", "--import", "tsx", MAIN, ...args], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d: Buffer) => {
    stdout += d.toString();
    onStdout?.(stdout, child);
  });
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  return new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((res) =>
    child.once("exit", (code, signal) => res({ code, signal, stdout, stderr })),
  );
}

describe("pincer-daemon CLI", () => {
  test.each(["SIGTERM", "SIGINT"] as const)("prints one line with its address, serves, and exits 0 on %s", async (sig) => {
    const xs = await startXvfb({ width: 640, height: 480 });
    try {
      let served: Promise<unknown> | undefined;
      const result = await daemonCli(["--host", "127.0.0.1", "--port", "0", "--display", xs.display], (out, child) => {
        const m = /^pincer-daemon listening on (127\.0\.0\.1:\d+)\n$/.exec(out);
        if (m && !served) {
          const env = connect(m[1]!);
          served = env.screen
            .size()
            .then((size) => {
              expect(size).toEqual({ width: 640, height: 480 });
            })
            .finally(() => {
              env.close();
              child.kill(sig);
            });
        }
      });
      await served;
      expect(result.code).toBe(0);
      expect(result.stdout.split("\n").filter(Boolean)).toHaveLength(1);
      expect(result.stderr).toContain(`"signal":"${sig}"`);
    } finally {
      await xs.close();
    }
  });

  test("a daemon killed with SIGKILL takes its own --xvfb server with it", async () => {
    let xvfbPid: number | undefined;
    const result = await daemonCli(["--xvfb", "640x480x24", "--port", "0"], (out, child) => {
      if (xvfbPid !== undefined || !/listening on/.test(out)) return;
      // The daemon's children: its Xvfb among them.
      const children = execFileSync("ps", ["-o", "pid=,comm=", "--ppid", String(child.pid)], { encoding: "utf8" });
      xvfbPid = Number(/^\s*(\d+)\s+Xvfb$/m.exec(children)?.[1]);
      child.kill("SIGKILL");
    });
    expect(result.signal).toBe("SIGKILL");
    expect(xvfbPid).toBeGreaterThan(0);
    // A zombie counts as gone: orphaned, it waits for PID 1 to collect it, which can take seconds.
    const wasGone = await gone(xvfbPid!);
    if (!wasGone) process.kill(xvfbPid!, "SIGKILL");
    expect(wasGone).toBe(true);
  });

  test("a display that cannot be used is warned of at start, with how to get one; the daemon still serves", async () => {
    const child = spawn(process.execPath, ["--conditions=@pincer/source", "--import", "tsx", MAIN, "--port", "0", "--display", ":93"], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    const warned = new Promise<void>((res) =>
      child.stderr!.on("data", (d: Buffer) => {
        stderr += d.toString();
        if (stderr.includes("no usable display")) res();
      }),
    );
    const exited = new Promise((res) => child.once("exit", res));
    try {
      // Generous: the daemon is compiled from source first, slowly on a loaded machine.
      await Promise.race([warned, exited, new Promise((r) => setTimeout(r, 45_000))]);
      expect(stderr).toMatch(
        /"level":"warn","msg":"no usable display \(input, screen, windows and clipboard calls fail until there is one\): cannot open X display :93/,
      );
      expect(stderr).toMatch(/pincer-daemon --display :93/);
      expect(child.exitCode).toBeNull();
    } finally {
      child.kill("SIGTERM");
      await exited;
    }
  });

  test("a bad port is refused with a clear message", async () => {
    const result = await daemonCli(["--port", "70000"]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/--port.*must be an integer in 0\.\.65535/);
  });

  test("a driver set that does not fit is refused before anything starts, saying what to do", async () => {
    const bogus = await daemonCli(["--port", "0", "--drivers", "fast"]);
    expect(bogus.code).not.toBe(0);
    expect(bogus.stderr).toMatch(/--drivers.*fast.*(native|portable)/);
    const capture = await daemonCli(["--port", "0", "--drivers", "portable", "--capture", "getimage"]);
    expect(capture.code).not.toBe(0);
    expect(capture.stderr).toContain("--capture getimage chooses how the native drivers capture; the portable drivers capture through nut-js (drop --capture)");
  });

  test("a port in use is named as such, with what to do (not grpc-js's 'No address added')", async () => {
    const { createServer } = await import("node:net");
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, "127.0.0.1", r));
    const port = (taken.address() as { port: number }).port;
    try {
      const result = await daemonCli(["--port", String(port), "--display", ":0"]);
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain(
        `cannot listen on 127.0.0.1:${port}: the port is in use (another pincer-daemon?): choose another with --port, or --port 0`,
      );
      expect(result.stderr).not.toMatch(/pincer-daemon: cannot start: No address added/);
    } finally {
      taken.close();
    }
  });

  test("--help documents the options", async () => {
    const result = await daemonCli(["--help"]);
    expect(result.code).toBe(0);
    for (const flag of [
      "--host",
      "--port",
      "--display",
      "--handshake-timeout-ms",
      "--max-unauthenticated-connections",
      "--idle-timeout-ms",
      "--allow-node-spawner",
    ]) {
      expect(result.stdout).toContain(flag);
    }
  });

  test("its help through npx, as docs/install.md writes it and with a `--` before --help", () => {
    const documented = readFileSync(join(ROOT, "docs/install.md"), "utf8")
      .split("\n")
      .filter((l) => /^npx pincer-daemon .*--help/.test(l))
      .map((l) => l.replace(/#.*$/, "").trim().split(/\s+/));
    expect(documented).toHaveLength(1);
    const dir = mkdtempSync(join(tmpdir(), "pincer-npx-daemon-"));
    try {
      // A project where the daemon's bin is installed, as npm links it: here it runs the daemon's source.
      writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "npx-daemon", version: "1.0.0", private: true }));
      mkdirSync(join(dir, "node_modules", ".bin"), { recursive: true });
      const loader = pathToFileURL(join(ROOT, "node_modules/tsx/dist/loader.mjs")).href;
      const bin = `#!/bin/sh\nexec "${process.execPath}" --conditions=@pincer/source --import "${loader}" "${MAIN}" "$@"\n`;
      writeFileSync(join(dir, "node_modules", ".bin", "pincer-daemon"), bin, { mode: 0o755 });
      for (const line of [documented[0]!, ["npx", "pincer-daemon", "--", "--help"]]) {
        // npx hands a `--` on to the program it runs.
        const r = spawnSync(line[0]!, ["--offline", ...line.slice(1)], { cwd: dir, encoding: "utf8", timeout: 60_000 });
        expect(r.status, `${line.join(" ")}: ${r.stderr}`).toBe(0);
        expect(r.stdout).toMatch(/^Usage: pincer-daemon \[options\]/);
        expect(r.stdout).toContain("--xvfb <WxHxD>");
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
