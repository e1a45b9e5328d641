import { randomBytes, timingSafeEqual } from "node:crypto";
import type { Socket } from "node:net";
import { vncAuthResponse } from "./des.js";
import { encodePixelFormat, SERVER_PIXEL_FORMAT } from "./vncPixels.js";
import type { VncReader } from "./vncReader.js";

/** The RFB 3.x minor version agreed with a viewer: 3.3, 3.7 or 3.8. */
export type RfbMinor = 3 | 7 | 8;

/** Raised when a viewer is turned away during the handshake; the socket is to be closed. */
export class VncHandshakeRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = "VncHandshakeRefused";
  }
}

const SECURITY_VNC_AUTH = 2;

/** Pause before a wrong password is answered, in milliseconds: with the viewer limit, it bounds how fast passwords can be guessed. */
const WRONG_PASSWORD_DELAY_MS = 1_000;

/** A u32 length and the text, as RFB carries reason strings. */
function reasonString(text: string): Buffer {
  const bytes = Buffer.from(text, "utf8");
  const len = Buffer.alloc(4);
  len.writeUInt32BE(bytes.length);
  return Buffer.concat([len, bytes]);
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}

/** Sends ProtocolVersion 3.8 and reads the viewer's: 3.8 for 3.8 and later (3.889 included), 3.7, else 3.3. */
async function agreeVersion(socket: Socket, reader: VncReader): Promise<RfbMinor> {
  socket.write("RFB 003.008\n");
  const m = /^RFB (\d{3})\.(\d{3})\n$/.exec((await reader.read(12)).toString("latin1"));
  if (!m) throw new VncHandshakeRefused("the peer did not send an RFB ProtocolVersion");
  const major = Number(m[1]);
  const minor = Number(m[2]);
  if (major < 3) throw new VncHandshakeRefused(`RFB ${major}.${minor} is not supported`);
  if (major > 3 || minor >= 8) return 8;
  return minor === 7 ? 7 : 3;
}

/** Tells the viewer it will not be served (an empty list of security types and a reason). */
function refuse(socket: Socket, minor: RfbMinor, reason: string): never {
  socket.write(Buffer.concat([minor === 3 ? u32(0) : Buffer.from([0]), reasonString(reason)]));
  throw new VncHandshakeRefused(reason);
}

/** Offers VNC authentication and checks the viewer's response to a fresh random challenge. */
async function authenticate(socket: Socket, reader: VncReader, minor: RfbMinor, password: string): Promise<void> {
  const failed = (reason: string): never => {
    // SecurityResult "failed", with a reason from 3.8 on.
    socket.write(minor === 8 ? Buffer.concat([u32(1), reasonString(reason)]) : u32(1));
    throw new VncHandshakeRefused(reason);
  };
  if (minor === 3) {
    socket.write(u32(SECURITY_VNC_AUTH));
  } else {
    socket.write(Buffer.from([1, SECURITY_VNC_AUTH]));
    const chosen = (await reader.read(1))[0];
    if (chosen !== SECURITY_VNC_AUTH) failed(`security type ${chosen} is not offered; use VNC authentication (2)`);
  }
  const challenge = randomBytes(16);
  socket.write(challenge);
  const response = await reader.read(16);
  if (!timingSafeEqual(response, vncAuthResponse(challenge, password))) {
    await new Promise((resolve) => setTimeout(resolve, WRONG_PASSWORD_DELAY_MS));
    failed("authentication failed: wrong password");
  }
  socket.write(u32(0));
}

/** What the handshake settles. */
export interface HandshakeOptions {
  password: string;
  /** When set, the viewer is told this and turned away after the version exchange. */
  refusal?: string;
}

/**
 * Runs the RFB handshake up to ClientInit (RFC 6143, 7.1–7.3.1): version, VNC authentication,
 * the viewer's shared flag (every viewer shares the screen, whatever it asks). Throws
 * {@link VncHandshakeRefused} when the viewer is turned away (the reason already sent where RFB
 * allows one).
 */
export async function vncHandshake(socket: Socket, reader: VncReader, opts: HandshakeOptions): Promise<RfbMinor> {
  const minor = await agreeVersion(socket, reader);
  if (opts.refusal !== undefined) refuse(socket, minor, opts.refusal);
  await authenticate(socket, reader, minor, opts.password);
  await reader.read(1);
  return minor;
}

/** The ServerInit message: the framebuffer's size, the server's pixel format and the desktop's name. */
export function serverInit(width: number, height: number, name: string): Buffer {
  const size = Buffer.alloc(4);
  size.writeUInt16BE(width, 0);
  size.writeUInt16BE(height, 2);
  return Buffer.concat([size, encodePixelFormat(SERVER_PIXEL_FORMAT), reasonString(name)]);
}
