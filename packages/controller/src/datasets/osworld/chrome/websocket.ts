import { randomBytes } from "node:crypto";

/**
 * The bytes of a WebSocket client (RFC 6455) for one DevTools conversation: the upgrade request,
 * masked text frames, and a reader of the server's frames. The connection itself is made on the
 * machine (see devtools.ts), so only bytes cross the wire.
 */

/** The HTTP upgrade request for `path` on the DevTools port. */
export function upgradeRequest(path: string, port: number): Buffer {
  const key = randomBytes(16).toString("base64");
  return Buffer.from(
    `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
      `Sec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
  );
}

/** One masked text frame carrying `text` (a client must mask every frame). */
export function textFrame(text: string, mask: Buffer = randomBytes(4)): Buffer {
  const payload = Buffer.from(text, "utf8");
  let head: Buffer;
  if (payload.length < 126) head = Buffer.from([0x81, 0x80 | payload.length]);
  else if (payload.length < 0x10000) {
    head = Buffer.from([0x81, 0x80 | 126, 0, 0]);
    head.writeUInt16BE(payload.length, 2);
  } else {
    head = Buffer.alloc(10);
    head[0] = 0x81;
    head[1] = 0x80 | 127;
    head.writeBigUInt64BE(BigInt(payload.length), 2);
  }
  const masked = Buffer.alloc(payload.length);
  for (let i = 0; i < payload.length; i++) masked[i] = payload[i]! ^ mask[i % 4]!;
  return Buffer.concat([head, mask, masked]);
}

/**
 * Reads what the server sends: first the HTTP response (which must be `101`), then frames. Text
 * messages (fragments joined) are returned by {@link push}; a close frame ends the reading.
 */
export class ServerFrames {
  private buf: Buffer = Buffer.alloc(0);
  private upgraded = false;
  private fragments: Buffer[] = [];
  /** The server sent a close frame. */
  closed = false;

  /** Adds bytes; returns the complete text messages they finish. Throws when the upgrade was refused. */
  push(chunk: Buffer): string[] {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    const out: string[] = [];
    if (!this.upgraded) {
      const end = this.buf.indexOf("\r\n\r\n");
      if (end < 0) return out;
      const status = this.buf.subarray(0, this.buf.indexOf("\r\n")).toString("latin1");
      if (!/^HTTP\/1\.1 101\b/.test(status)) throw new Error(`the DevTools endpoint refused the WebSocket: ${status}`);
      this.upgraded = true;
      this.buf = this.buf.subarray(end + 4);
    }
    for (;;) {
      const frame = this.nextFrame();
      if (!frame) return out;
      const { fin, opcode, payload } = frame;
      if (opcode === 8) {
        this.closed = true;
        return out;
      }
      if (opcode !== 0 && opcode !== 1 && opcode !== 2) continue; // ping, pong: nothing to answer on a closed input
      this.fragments.push(payload);
      if (fin) {
        out.push(Buffer.concat(this.fragments).toString("utf8"));
        this.fragments = [];
      }
    }
  }

  private nextFrame(): { fin: boolean; opcode: number; payload: Buffer } | undefined {
    const b = this.buf;
    if (b.length < 2) return undefined;
    let len = b[1]! & 0x7f;
    let offset = 2;
    if (len === 126) {
      if (b.length < 4) return undefined;
      len = b.readUInt16BE(2);
      offset = 4;
    } else if (len === 127) {
      if (b.length < 10) return undefined;
      len = Number(b.readBigUInt64BE(2));
      offset = 10;
    }
    const masked = (b[1]! & 0x80) !== 0;
    const maskAt = offset;
    if (masked) offset += 4;
    if (b.length < offset + len) return undefined;
    let payload = b.subarray(offset, offset + len);
    if (masked) payload = Buffer.from(payload.map((x, i) => x ^ b[maskAt + (i % 4)]!));
    this.buf = b.subarray(offset + len);
    return { fin: (b[0]! & 0x80) !== 0, opcode: b[0]! & 0x0f, payload };
  }
}
