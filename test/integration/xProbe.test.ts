import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { cookieFor, parseXauthority, probeX } from "../../packages/controller/src/machines/xProbe.js";
import { eventually } from "../fixtures/poll.js";
import { stopProcess } from "../fixtures/xvfb.js";

// pincer machine install asks a host's X server, through an SSH channel, whether it takes a client
// with the session's cookie and has XTEST. Here the same question goes to real Xvfb servers over
// their Unix sockets: one that requires a cookie (xauth wrote it), one started without XTEST.

let dir: string;
const servers: ChildProcess[] = [];

function freeDisplay(): number {
  for (let n = 140; n < 400; n++) if (!existsSync(`/tmp/.X11-unix/X${n}`) && !existsSync(`/tmp/.X${n}-lock`)) return n;
  throw new Error("no free display");
}

async function xvfb(args: string[]): Promise<number> {
  const n = freeDisplay();
  const child = spawn("Xvfb", [`:${n}`, "-screen", "0", "640x480x24", "-nolisten", "tcp", ...args], { stdio: "ignore" });
  servers.push(child);
  expect(await eventually(() => existsSync(`/tmp/.X11-unix/X${n}`), 15_000)).toBe(true);
  return n;
}

function probe(n: number, cookie: Buffer | undefined) {
  const socket = connect(`/tmp/.X11-unix/X${n}`);
  return probeX({ input: socket, output: socket }, cookie, 5_000).finally(() => socket.destroy());
}

let authed: number;
let noXtest: number;
let cookie: Buffer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "pincer-xprobe-"));
  const auth = join(dir, "Xauthority");
  const hex = execFileSync("openssl", ["rand", "-hex", "16"], { encoding: "utf8" }).trim();
  authed = freeDisplay();
  execFileSync("xauth", ["-f", auth, "add", `:${authed}`, ".", hex]);
  const n = await xvfb(["-auth", auth]);
  expect(n).toBe(authed);
  const entries = parseXauthority(readFileSync(auth));
  cookie = cookieFor(entries, authed)!;
  expect(cookie.toString("hex")).toBe(hex);
  noXtest = await xvfb(["-extension", "XTEST"]);
});

afterAll(async () => {
  for (const s of servers) await stopProcess(s);
  rmSync(dir, { recursive: true, force: true });
});

describe("probeX against real Xvfb servers", () => {
  test("the session's cookie is taken, and XTEST is there", async () => {
    const r = await probe(authed, cookie);
    expect(r).toEqual({ ok: true, vendor: expect.stringMatching(/X\.Org|The X\.Org Foundation/), xtest: true });
  });

  test("without the cookie, or with another, the server's refusal is the reason", async () => {
    for (const c of [undefined, Buffer.alloc(16, 7)]) {
      const r = await probe(authed, c);
      expect(r.ok).toBe(false);
      expect(!r.ok && r.reason).toMatch(/^the X server refused the connection: (Authorization required|Invalid MIT-MAGIC-COOKIE-1 key)/);
    }
  });

  test("a server started without XTEST says so", async () => {
    expect(await probe(noXtest, undefined)).toEqual({ ok: true, vendor: expect.any(String), xtest: false });
  });

  test("a socket where nothing answers is a reason, not a hang", async () => {
    const { createServer } = await import("node:net");
    const path = join(dir, "silent.sock");
    const server = createServer(() => {}).listen(path);
    try {
      const socket = connect(path);
      const r = await probeX({ input: socket, output: socket }, undefined, 1_000).finally(() => socket.destroy());
      expect(r).toEqual({ ok: false, reason: "no X server answered (no reply in 1 s)" });
    } finally {
      server.close();
    }
  });
});
