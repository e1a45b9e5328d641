import { type ChildProcess, execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { vncAuthResponse } from "../../packages/controller/src/live/des.js";
import { startVncServer, type VncInputEvent, type VncServer, type VncServerOptions } from "../../packages/controller/src/live/vnc.js";
import { spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";
import { eventually } from "../fixtures/poll.js";
import { openWitnessWindow } from "../fixtures/xwitness.js";
import { startXvfb, stopProcess, type XServer } from "../fixtures/xvfb.js";

// The controller's VNC server for a machine, against the real daemon on a real Xvfb. Standard
// viewers from Debian are its clients: vncsnapshot (RFB 3.3) captures the screen, which must show
// what X programs drew; TigerVNC's vncviewer (RFB 3.8), on a second Xvfb and driven there with
// xdotool, clicks and types, and an X window and an xterm on the machine's display witness the
// events. A small RFB client written here checks what viewers cannot show: the tiles an update
// carries, a refused password, the handshake deadline, the viewer limit, view-only and close().

const run = promisify(execFile);
const PASSWORD = "s3cret-pw";
const WIDTH = 640;
const HEIGHT = 480;

let xs: XServer;
let daemon: RunningDaemon;
let vnc: VncServer;
let dir: string;
let passwdFile: string;
const inputs: VncInputEvent[] = [];

beforeAll(async () => {
  xs = await startXvfb({ width: WIDTH, height: HEIGHT });
  daemon = await spawnDaemon({ display: xs.display });
  await daemon.env.waitUntilReady({ timeoutMs: 20_000 });
  // Xvfb draws the pointer into its frame buffer: keep it in a corner no check looks at.
  await daemon.env.mouse.move({ x: WIDTH - 1, y: HEIGHT - 1 });
  dir = mkdtempSync(join(tmpdir(), "pincer-vnc-"));
  // A VNC password file as viewers read it, written by TigerVNC's own tool.
  passwdFile = join(dir, "passwd");
  writeFileSync(passwdFile, await vncpasswd(PASSWORD));
  vnc = await startVncServer({ env: daemon.env, password: PASSWORD, handshakeTimeoutMs: 1_500, onInput: (e) => inputs.push(e) });
});

afterAll(async () => {
  await vnc?.close();
  await daemon?.close();
  await xs?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** `vncpasswd -f`: the password in the obfuscated form VNC password files hold. */
function vncpasswd(password: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = execFile("vncpasswd", ["-f"], { encoding: "buffer" }, (err, stdout) => (err ? reject(err) : resolve(stdout)));
    child.stdin!.end(`${password}\n`);
  });
}

async function setRoot(color: string): Promise<void> {
  await run("xsetroot", ["-display", xs.display, "-solid", color]);
}

/** A socket to an RFB server that reads exact byte counts. */
interface RfbSocket {
  socket: Socket;
  read(n: number): Promise<Buffer>;
  /** Resolves when the server closed the connection. */
  closed: Promise<void>;
}

async function rfbSocket(port: number): Promise<RfbSocket> {
  const socket = connect(port, "127.0.0.1");
  socket.on("error", () => undefined);
  let buffered = Buffer.alloc(0);
  let ended = false;
  let notify: (() => void) | undefined;
  socket.on("data", (d: Buffer) => {
    buffered = Buffer.concat([buffered, d]);
    notify?.();
  });
  const closed = new Promise<void>((resolve) =>
    socket.once("close", () => {
      ended = true;
      notify?.();
      resolve();
    }),
  );
  await once(socket, "connect");
  const read = async (n: number) => {
    while (buffered.length < n) {
      if (ended) throw new Error(`the server closed the connection after ${buffered.length} of ${n} bytes`);
      await new Promise<void>((r) => (notify = r));
    }
    const out = buffered.subarray(0, n);
    buffered = buffered.subarray(n);
    return out;
  };
  return { socket, read, closed };
}

/** Reads an RFB reason string (a u32 length and the text). */
async function reason(rfb: RfbSocket): Promise<string> {
  return (await rfb.read((await rfb.read(4)).readUInt32BE(0))).toString("utf8");
}

/** Connects as an RFB 3.8 viewer, logs in and reads ServerInit. */
async function login(port: number, password = PASSWORD) {
  const rfb = await rfbSocket(port);
  expect((await rfb.read(12)).toString("latin1")).toBe("RFB 003.008\n");
  rfb.socket.write("RFB 003.008\n");
  const types = await rfb.read((await rfb.read(1))[0]!);
  expect([...types]).toEqual([2]);
  rfb.socket.write(Buffer.from([2]));
  rfb.socket.write(vncAuthResponse(await rfb.read(16), password));
  const result = (await rfb.read(4)).readUInt32BE(0);
  if (result !== 0) return { rfb, result, reason: await reason(rfb) };
  rfb.socket.write(Buffer.from([1]));
  const init = await rfb.read(24);
  const name = (await rfb.read(init.readUInt32BE(20))).toString("utf8");
  return { rfb, result, width: init.readUInt16BE(0), height: init.readUInt16BE(2), bitsPerPixel: init[4], name };
}

function updateRequest(incremental: boolean, x = 0, y = 0, width = WIDTH, height = HEIGHT): Buffer {
  const b = Buffer.alloc(10);
  b.writeUInt8(3, 0);
  b.writeUInt8(incremental ? 1 : 0, 1);
  for (const [i, v] of [x, y, width, height].entries()) b.writeUInt16BE(v, 2 + 2 * i);
  return b;
}

function pointerEvent(mask: number, x: number, y: number): Buffer {
  const b = Buffer.alloc(6);
  b.writeUInt8(5, 0);
  b.writeUInt8(mask, 1);
  b.writeUInt16BE(x, 2);
  b.writeUInt16BE(y, 4);
  return b;
}

function keyEvent(down: boolean, keysym: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeUInt8(4, 0);
  b.writeUInt8(down ? 1 : 0, 1);
  b.writeUInt32BE(keysym, 4);
  return b;
}

interface UpdateRect {
  x: number;
  y: number;
  width: number;
  height: number;
  encoding: number;
  data: Buffer;
}

/** Reads one FramebufferUpdate of Raw rectangles at `bytesPerPixel`. */
async function readUpdate(rfb: RfbSocket, bytesPerPixel: number): Promise<UpdateRect[]> {
  const head = await rfb.read(4);
  expect(head[0]).toBe(0);
  const rects: UpdateRect[] = [];
  for (let i = 0; i < head.readUInt16BE(2); i++) {
    const h = await rfb.read(12);
    const [x, y, width, height] = [0, 2, 4, 6].map((o) => h.readUInt16BE(o)) as [number, number, number, number];
    const encoding = h.readInt32BE(8);
    expect(encoding).toBe(0);
    rects.push({ x, y, width, height, encoding, data: await rfb.read(width * height * bytesPerPixel) });
  }
  return rects;
}

/** Channel-wise distance between two colours. */
const distance = (a: number[], b: number[]) => Math.max(...a.map((v, i) => Math.abs(v - b[i]!)));

describe("standard VNC viewers", () => {
  test("vncsnapshot captures the screen as X programs drew it", async () => {
    await setRoot("#ff0000");
    const witness = await openWitnessWindow(xs.display, { x: 200, y: 150, width: 160, height: 120, color: 0x00ff00 });
    try {
      const out = join(dir, "snap.jpg");
      const r = await run("vncsnapshot", ["-passwd", passwdFile, "-allowblank", "-quality", "100", `127.0.0.1::${vnc.port}`, out], { timeout: 30_000 });
      expect(r.stderr).toContain("VNC authentication succeeded");
      const { data, info } = await sharp(readFileSync(out)).removeAlpha().raw().toBuffer({ resolveWithObject: true });
      expect([info.width, info.height]).toEqual([WIDTH, HEIGHT]);
      const at = (x: number, y: number) => [...data.subarray((y * WIDTH + x) * 3, (y * WIDTH + x) * 3 + 3)];
      for (const [x, y] of [
        [10, 10],
        [630, 10],
        [199, 149],
        [361, 271],
      ] as const)
        expect(distance(at(x, y), [255, 0, 0]), `(${x}, ${y}) is red`).toBeLessThan(40);
      for (const [x, y] of [
        [202, 152],
        [280, 210],
        [357, 267],
      ] as const)
        expect(distance(at(x, y), [0, 255, 0]), `(${x}, ${y}) is green`).toBeLessThan(40);
    } finally {
      witness.close();
    }
  });

  test("TigerVNC's viewer clicks and types on the machine's display", async () => {
    await setRoot("#000000");
    const viewerX = await startXvfb({ width: 1024, height: 768 });
    const witness = await openWitnessWindow(xs.display, { x: 40, y: 40, width: 200, height: 150, color: 0x0000ff });
    const typed = join(dir, "typed.txt");
    const xterm = spawn("xterm", ["-T", "vnc-keys", "-geometry", "40x4+300+300", "-e", "sh", "-c", `IFS= read -r line && printf %s "$line" > ${typed}`], {
      env: { ...process.env, DISPLAY: xs.display },
      stdio: "ignore",
    });
    let viewer: ChildProcess | undefined;
    try {
      // The xterm has the keyboard focus once it is mapped (on a loaded machine it exists a moment before it can take focus).
      const onMachine = { env: { ...process.env, DISPLAY: xs.display } };
      const focused = await eventually(() =>
        run("xdotool", ["search", "--sync", "--onlyvisible", "--name", "^vnc-keys$", "windowfocus", "--sync"], onMachine).then(
          () => true,
          () => false,
        ),
      );
      expect(focused).toBe(true);
      viewer = spawn("vncviewer", ["-passwd", passwdFile, "-Shared", "-geometry", "+0+0", `127.0.0.1::${vnc.port}`], {
        env: { ...process.env, DISPLAY: viewerX.display },
        stdio: "ignore",
      });
      const onViewer = { env: { ...process.env, DISPLAY: viewerX.display } };
      // The title names the desktop once the viewer is logged in.
      const { stdout } = await run("xdotool", ["search", "--sync", "--onlyvisible", "--name", "[-] TigerVNC$"], onViewer);
      const win = stdout.trim().split("\n")[0]!;
      await run("xdotool", ["mousemove", "--window", win, "100", "90", "click", "1"], onViewer);
      const events = await witness.waitFor((ev) => ev.some((e) => e.name === "ButtonRelease"));
      expect(events.filter((e) => e.name.startsWith("Button"))).toMatchObject([
        { name: "ButtonPress", detail: 1, rootX: 100, rootY: 90 },
        { name: "ButtonRelease", detail: 1, rootX: 100, rootY: 90 },
      ]);
      // The viewer shows the screen as it changes (pixel (10, 10) of its window is the machine's (10, 10)).
      await setRoot("#3366cc");
      const viewerPixel = async () => {
        const png = (await run("import", ["-window", win, "png:-"], { ...onViewer, encoding: "buffer" })).stdout;
        const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
        return [...data.subarray((10 * info.width + 10) * 3, (10 * info.width + 10) * 3 + 3)];
      };
      expect(await eventually(async () => distance(await viewerPixel(), [0x33, 0x66, 0xcc]) === 0)).toBe(true);
      await run("xdotool", ["windowfocus", "--sync", win, "type", "--delay", "20", "Hello, VNC!"], onViewer);
      await run("xdotool", ["key", "Return"], onViewer);
      expect(await eventually(() => existsSync(typed) && readFileSync(typed, "utf8") === "Hello, VNC!")).toBe(true);
      expect(inputs).toContainEqual({ type: "key", action: "down", key: "Shift_L", keysym: 0xffe1 });
      expect(inputs).toContainEqual({ type: "key", action: "down", key: "H", keysym: 0x48 });
      expect(inputs).toContainEqual({ type: "button", action: "down", button: "left", x: 100, y: 90 });
    } finally {
      if (viewer) await stopProcess(viewer);
      await stopProcess(xterm);
      witness.close();
      await viewerX.close();
      await daemon.env.mouse.move({ x: WIDTH - 1, y: HEIGHT - 1 });
    }
  });
});

describe("the RFB protocol, with a client written here", () => {
  test("updates carry only the tiles that changed, in the pixel format the viewer asked for", async () => {
    await setRoot("#ff0000");
    // Exactly one 64x64 tile of the grid.
    const witness = await openWitnessWindow(xs.display, { x: 256, y: 192, width: 64, height: 64, color: 0x0000ff });
    const { rfb, width, height, bitsPerPixel, name } = await login(vnc.port);
    try {
      expect({ width, height, bitsPerPixel }).toEqual({ width: WIDTH, height: HEIGHT, bitsPerPixel: 32 });
      expect(name).toBe(`Pincer (${daemon.env.address})`);
      // SetPixelFormat: 16 bits RGB565, big-endian.
      const pf = Buffer.alloc(20);
      pf.writeUInt8(0, 0);
      Buffer.from([16, 16, 1, 1, 0, 31, 0, 63, 0, 31, 11, 5, 0]).copy(pf, 4);
      rfb.socket.write(pf);
      const rgb565 = (r: UpdateRect, x: number, y: number) => r.data.readUInt16BE(((y - r.y) * r.width + (x - r.x)) * 2);
      // The whole screen until it shows both colours (the window may be drawn after a first capture).
      const full = async () => {
        rfb.socket.write(updateRequest(false));
        const [r] = await readUpdate(rfb, 2);
        expect(r).toMatchObject({ x: 0, y: 0, width: WIDTH, height: HEIGHT });
        return rgb565(r!, 10, 10) === 0xf800 && rgb565(r!, 280, 220) === 0x001f;
      };
      expect(await eventually(full)).toBe(true);
      // An incremental request is answered once the screen changes, with that tile only.
      rfb.socket.write(updateRequest(true));
      witness.setColor(0x00ff00);
      for (;;) {
        const rects = await readUpdate(rfb, 2);
        for (const r of rects) expect(r).toMatchObject({ x: 256, y: 192, width: 64, height: 64 });
        if (rects.some((r) => rgb565(r, 256, 192) === 0x07e0 && rgb565(r, 319, 255) === 0x07e0)) break;
        rfb.socket.write(updateRequest(true));
      }
    } finally {
      rfb.socket.destroy();
      witness.close();
    }
  });

  test("a key and a button still held when the viewer leaves are released", async () => {
    const witness = await openWitnessWindow(xs.display, { x: 100, y: 100, width: 100, height: 100, color: 0xffffff });
    const { rfb } = await login(vnc.port);
    try {
      rfb.socket.write(Buffer.concat([pointerEvent(1, 150, 150), keyEvent(true, 0x61)]));
      await witness.waitFor((ev) => ev.some((e) => e.name === "ButtonPress") && ev.some((e) => e.name === "KeyPress"));
      rfb.socket.destroy();
      const events = await witness.waitFor((ev) => ev.some((e) => e.name === "ButtonRelease") && ev.some((e) => e.name === "KeyRelease"));
      const press = events.find((e) => e.name === "KeyPress")!;
      expect(events.find((e) => e.name === "KeyRelease")!.detail).toBe(press.detail);
      expect(events.find((e) => e.name === "ButtonRelease")).toMatchObject({ detail: 1, rootX: 150, rootY: 150 });
    } finally {
      witness.close();
      await daemon.env.mouse.move({ x: WIDTH - 1, y: HEIGHT - 1 });
    }
  });

  test("a wrong password is refused with a reason (3.8) or a bare failure (3.3, 3.7), and the connection closes", async () => {
    const refused = await login(vnc.port, "not-the-password");
    expect(refused.result).toBe(1);
    expect(refused.reason).toMatch(/wrong password/);
    await refused.rfb.closed;

    const old = await rfbSocket(vnc.port);
    await old.read(12);
    old.socket.write("RFB 003.003\n");
    expect((await old.read(4)).readUInt32BE(0)).toBe(2);
    old.socket.write(vncAuthResponse(await old.read(16), "wrong"));
    expect((await old.read(4)).readUInt32BE(0)).toBe(1);
    await old.closed;

    const v37 = await rfbSocket(vnc.port);
    await v37.read(12);
    v37.socket.write("RFB 003.007\n");
    expect([...(await v37.read(2))]).toEqual([1, 2]);
    v37.socket.write(Buffer.from([2]));
    v37.socket.write(vncAuthResponse(await v37.read(16), "wrong"));
    expect((await v37.read(4)).readUInt32BE(0)).toBe(1);
    await v37.closed;
  });

  test("a client that does not finish the handshake is closed after the handshake timeout", async () => {
    const rfb = await rfbSocket(vnc.port);
    const start = Date.now();
    expect((await rfb.read(12)).toString("latin1")).toBe("RFB 003.008\n");
    await rfb.closed;
    expect(Date.now() - start).toBeGreaterThanOrEqual(1_300);
    expect(Date.now() - start).toBeLessThan(10_000);
  });

  test("viewers past maxClients are turned away with a reason", async () => {
    const server = await startVncServer({ env: daemon.env, password: PASSWORD, maxClients: 1 });
    try {
      const first = await login(server.port);
      expect(first.result).toBe(0);
      const second = await rfbSocket(server.port);
      await second.read(12);
      second.socket.write("RFB 003.008\n");
      expect((await second.read(1))[0]).toBe(0);
      expect(await reason(second)).toMatch(/too many viewers \(at most 1/);
      await second.closed;
      first.rfb.socket.destroy();
    } finally {
      await server.close();
    }
  });

  test("a view-only server passes no input on", async () => {
    const seen: VncInputEvent[] = [];
    const opts: VncServerOptions = { env: daemon.env, password: PASSWORD, viewOnly: true, onInput: (e) => seen.push(e) };
    const server = await startVncServer(opts);
    const witness = await openWitnessWindow(xs.display, { x: 100, y: 100, width: 100, height: 100, color: 0xffffff });
    try {
      const viewOnly = await login(server.port);
      viewOnly.rfb.socket.write(Buffer.concat([pointerEvent(1, 120, 120), pointerEvent(0, 120, 120), keyEvent(true, 0x62), keyEvent(false, 0x62)]));
      // The update request after them is answered, so the server has read them.
      viewOnly.rfb.socket.write(updateRequest(false, 0, 0, 8, 8));
      await readUpdate(viewOnly.rfb, 4);
      // Then a click through the full server: the only one the window sees.
      const full = await login(vnc.port);
      full.rfb.socket.write(Buffer.concat([pointerEvent(1, 180, 180), pointerEvent(0, 180, 180)]));
      const events = await witness.waitFor((ev) => ev.some((e) => e.name === "ButtonRelease"));
      expect(events.map((e) => [e.name, e.rootX, e.rootY])).toEqual([
        ["ButtonPress", 180, 180],
        ["ButtonRelease", 180, 180],
      ]);
      expect(seen).toEqual([]);
      viewOnly.rfb.socket.destroy();
      full.rfb.socket.destroy();
    } finally {
      witness.close();
      await server.close();
      await daemon.env.mouse.move({ x: WIDTH - 1, y: HEIGHT - 1 });
    }
  });

  test("close() disconnects every viewer and stops listening", async () => {
    const server = await startVncServer({ env: daemon.env, password: PASSWORD });
    const viewer = await login(server.port);
    expect(viewer.result).toBe(0);
    const waiting = await rfbSocket(server.port);
    await server.close();
    await viewer.rfb.closed;
    await waiting.closed;
    const refused = await new Promise<string>((resolve) => {
      const s = connect(server.port, "127.0.0.1");
      s.on("connect", () => resolve("connected"));
      s.on("error", (e: NodeJS.ErrnoException) => resolve(e.code ?? "error"));
    });
    expect(refused).toBe("ECONNREFUSED");
  });

  test("an empty password is refused", async () => {
    await expect(startVncServer({ env: daemon.env, password: "" })).rejects.toThrow(/give a password/);
  });
});
