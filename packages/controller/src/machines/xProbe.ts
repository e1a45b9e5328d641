/**
 * Asks an X server, over any byte stream (an SSH channel to its socket), whether it accepts a client
 * and has the XTEST extension, which pincer-daemon's input needs. The X11 connection setup and one
 * QueryExtension request, by the protocol's own encoding (little-endian), with the session's
 * MIT-MAGIC-COOKIE-1 from its Xauthority file.
 */

import type { Readable, Writable } from "node:stream";

/** Both ends of a byte stream to an X server: what is written, and what comes back. */
export interface XStream {
  input: Writable;
  output: Readable;
}

export interface XauthEntry {
  family: number;
  address: Buffer;
  number: string;
  name: string;
  data: Buffer;
}

/** The entries of an Xauthority file (Xau's format: big-endian 16-bit lengths before each field). */
export function parseXauthority(buf: Buffer): XauthEntry[] {
  const out: XauthEntry[] = [];
  let at = 0;
  const field = (): Buffer => {
    if (at + 2 > buf.length) throw new Error("truncated");
    const n = buf.readUInt16BE(at);
    if (at + 2 + n > buf.length) throw new Error("truncated");
    const b = buf.subarray(at + 2, at + 2 + n);
    at += 2 + n;
    return b;
  };
  while (at < buf.length) {
    if (at + 2 > buf.length) break;
    const family = buf.readUInt16BE(at);
    at += 2;
    try {
      const address = field();
      const number = field().toString("latin1");
      const name = field().toString("latin1");
      const data = field();
      out.push({ family, address, number, name, data });
    } catch {
      break;
    }
  }
  return out;
}

/** FamilyLocal (256) and FamilyWild (65535) first: the entries a local client uses. */
export function cookieFor(entries: readonly XauthEntry[], displayNumber: number): Buffer | undefined {
  const mine = entries.filter((e) => e.name === "MIT-MAGIC-COOKIE-1" && (e.number === String(displayNumber) || e.family === 65535));
  mine.sort((a, b) => Number(b.family === 256 || b.family === 65535) - Number(a.family === 256 || a.family === 65535));
  return mine[0]?.data;
}

const pad4 = (n: number) => (4 - (n % 4)) % 4;

function setupRequest(cookie: Buffer | undefined): Buffer {
  const name = cookie ? Buffer.from("MIT-MAGIC-COOKIE-1", "latin1") : Buffer.alloc(0);
  const data = cookie ?? Buffer.alloc(0);
  const head = Buffer.alloc(12);
  head.write("l", 0, "latin1");
  head.writeUInt16LE(11, 2);
  head.writeUInt16LE(0, 4);
  head.writeUInt16LE(name.length, 6);
  head.writeUInt16LE(data.length, 8);
  return Buffer.concat([head, name, Buffer.alloc(pad4(name.length)), data, Buffer.alloc(pad4(data.length))]);
}

function queryExtension(name: string): Buffer {
  const n = Buffer.from(name, "latin1");
  const body = Buffer.concat([n, Buffer.alloc(pad4(n.length))]);
  const head = Buffer.alloc(8);
  head.writeUInt8(98, 0); // QueryExtension
  head.writeUInt16LE(2 + body.length / 4, 2);
  head.writeUInt16LE(n.length, 4);
  return Buffer.concat([head, body]);
}

export type XProbeResult = { ok: true; vendor: string; xtest: boolean } | { ok: false; reason: string };

/** Reads the stream until `want(bytes)` says how much is enough; resolves that much, or rejects. */
function readUntil(stream: Readable, want: (b: Buffer) => number | undefined, timeoutMs: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    let got = Buffer.alloc(0);
    const done = (err?: Error) => {
      clearTimeout(timer);
      stream.off("data", onData);
      stream.off("end", onEnd);
      stream.off("error", onError);
      if (err) reject(err);
    };
    const onData = (d: Buffer) => {
      got = Buffer.concat([got, d]);
      const n = want(got);
      if (n !== undefined && got.length >= n) {
        done();
        stream.pause();
        resolve(got);
      }
    };
    const onEnd = () => done(new Error(got.length ? "the connection closed mid-reply" : "the connection closed without a reply"));
    const onError = (e: Error) => done(e);
    const timer = setTimeout(() => done(new Error(`no reply in ${timeoutMs / 1000} s`)), timeoutMs);
    stream.on("data", onData);
    stream.once("end", onEnd);
    stream.once("error", onError);
    stream.resume();
  });
}

/** Sets up an X connection on `stream` and asks for XTEST. Leaves the stream to the caller to close. */
export async function probeX(io: XStream, cookie: Buffer | undefined, timeoutMs = 15_000): Promise<XProbeResult> {
  const stream = io.output;
  io.input.on("error", () => {}); // a closed channel shows as no reply
  io.input.write(setupRequest(cookie));
  let reply: Buffer;
  try {
    reply = await readUntil(stream, (b) => (b.length >= 8 ? 8 + b.readUInt16LE(6) * 4 : undefined), timeoutMs);
  } catch (err) {
    return { ok: false, reason: `no X server answered (${(err as Error).message})` };
  }
  const status = reply.readUInt8(0);
  if (status !== 1) {
    const why =
      status === 0
        ? reply
            .subarray(8, 8 + reply.readUInt8(1))
            .toString("latin1")
            .trim()
        : "it asks for more authentication";
    return { ok: false, reason: `the X server refused the connection: ${why || "no reason given"}` };
  }
  const vendorLength = reply.readUInt16LE(24);
  const vendor = reply.subarray(40, 40 + vendorLength).toString("latin1");
  io.input.write(queryExtension("XTEST"));
  let q: Buffer;
  try {
    q = await readUntil(stream, (b) => (b.length >= 32 ? 32 : undefined), timeoutMs);
  } catch (err) {
    return { ok: false, reason: `the X server did not answer QueryExtension (${(err as Error).message})` };
  }
  if (q.readUInt8(0) !== 1) return { ok: false, reason: `the X server answered QueryExtension with error ${q.readUInt8(1)}` };
  return { ok: true, vendor, xtest: q.readUInt8(8) === 1 };
}
