import { createServer, type Socket } from "node:net";
import { InvalidArgumentError } from "@pincer/shared";
import type { Env } from "../env/index.js";
import { serverInit, vncHandshake } from "./vncHandshake.js";
import type { VncInputEvent } from "./vncInput.js";
import { VncReader } from "./vncReader.js";
import { VncScreen } from "./vncScreen.js";
import { VncSession } from "./vncSession.js";

export type { VncInputEvent } from "./vncInput.js";

/** Options of {@link startVncServer}. */
export interface VncServerOptions {
  /** The machine to show. */
  env: Env;
  /** The password viewers give (VNC authentication); only its first 8 bytes (UTF-8) count, as RFB defines. */
  password: string;
  /** Address to listen on; anyone who can reach it and knows the password can watch. @default "127.0.0.1" */
  host?: string;
  /** @default 0 (any free port; see {@link VncServer.port}) */
  port?: number;
  /** Show the screen only: the viewers' keys, pointer and clipboard are ignored. @default false */
  viewOnly?: boolean;
  /** The desktop name viewers show. @default "Pincer (<the daemon's address>)" */
  name?: string;
  /** Told of each input passed on to the machine, in order (for a record of what a person did). */
  onInput?(event: VncInputEvent): void;
  /** Time a viewer has from connecting to finishing the handshake (version, password, init), in milliseconds. @default 10_000 */
  handshakeTimeoutMs?: number;
  /** Viewers at once, those still in the handshake included; more are turned away with a reason. @default 4 */
  maxClients?: number;
  /** How often a second the screen is checked for changes, 1–30. @default 10 */
  maxFps?: number;
}

/** A running VNC server for one machine. */
export interface VncServer {
  /** The address it listens on. */
  readonly host: string;
  /** The port it listens on (the one chosen when 0 was asked). */
  readonly port: number;
  /** Disconnects every viewer (releasing what they held), stops watching the screen and stops listening. */
  close(): Promise<void>;
}

/** Longest wait in {@link VncServer.close} for a viewer's held keys and buttons to be released, in milliseconds. */
const RELEASE_WAIT_MS = 5_000;

interface ServeContext {
  opts: VncServerOptions;
  screen: VncScreen;
  sockets: Set<Socket>;
  name: string;
}

/** Handshake, ServerInit, then the session; never rejects. */
async function serve(socket: Socket, ctx: ServeContext): Promise<void> {
  const { opts } = ctx;
  const timeoutMs = opts.handshakeTimeoutMs ?? 10_000;
  const maxClients = opts.maxClients ?? 4;
  const reader = new VncReader(socket);
  const timer = setTimeout(() => socket.destroy(), timeoutMs);
  try {
    const refusal = ctx.sockets.size > maxClients ? `too many viewers (at most ${maxClients} at once); try again later` : undefined;
    await vncHandshake(socket, reader, { password: opts.password, refusal });
    const size = await opts.env.screen.size({ timeoutMs });
    if (socket.destroyed) return;
    socket.write(serverInit(size.width, size.height, ctx.name));
    clearTimeout(timer);
    await new VncSession(socket, reader, { env: opts.env, screen: ctx.screen, size, viewOnly: opts.viewOnly ?? false, onInput: opts.onInput }).run();
  } catch {
    // A refusal or a failed password was told to the viewer already; let it arrive, then close.
    if (!socket.destroyed) socket.end(() => socket.destroy());
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Serves one machine's screen to standard VNC viewers (RFB 3.3–3.8, VNC authentication, Raw
 * encoding) so that a person can watch it and, unless `viewOnly`, use its keyboard and mouse.
 * Everything goes through `env`, so it works wherever the controller reaches the daemon. Viewers
 * share the screen; a viewer's keys and buttons still held when it leaves are released.
 */
export async function startVncServer(opts: VncServerOptions): Promise<VncServer> {
  if (opts.password.length === 0) throw new InvalidArgumentError("startVncServer: give a password; VNC viewers must authenticate");
  const maxFps = opts.maxFps ?? 10;
  if (!Number.isInteger(maxFps) || maxFps < 1 || maxFps > 30)
    throw new InvalidArgumentError(`startVncServer: maxFps must be a whole number 1–30, not ${maxFps}`);
  const screen = new VncScreen(opts.env, maxFps);
  const sockets = new Set<Socket>();
  const sessions = new Set<Promise<void>>();
  const ctx: ServeContext = { opts, screen, sockets, name: opts.name ?? `Pincer (${opts.env.address})` };
  const server = createServer((socket) => {
    socket.setNoDelay(true);
    socket.on("error", () => undefined);
    sockets.add(socket);
    const session = serve(socket, ctx).finally(() => {
      sockets.delete(socket);
      sessions.delete(session);
    });
    sessions.add(session);
  });
  server.on("error", () => undefined);
  const host = opts.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  let closing: Promise<void> | undefined;
  const close = async (): Promise<void> => {
    const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of sockets) socket.destroy();
    let timer: NodeJS.Timeout | undefined;
    const waitLimit = new Promise<void>((resolve) => (timer = setTimeout(resolve, RELEASE_WAIT_MS)));
    await Promise.race([Promise.all(sessions), waitLimit]);
    clearTimeout(timer);
    await screen.stop();
    await stopped;
  };
  return {
    host,
    port,
    close: () => (closing ??= close()),
  };
}
