import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { bearerOf, FailedPreconditionError, InvalidArgumentError, NotFoundError, tokenChecker } from "@pincer/shared";
import { isLoopback } from "../episodes/server.js";
import type { HumanCall, LiveBoard } from "../runner/liveBoard.js";
import { livePage, type LivePageMode } from "./page.js";
import type { SlotVncEntry } from "./slotVnc.js";

/** Options of {@link startLiveServer}. */
export interface LiveServerOptions {
  board: LiveBoard;
  /** host:port to listen on. @default "127.0.0.1:0" */
  listen?: string;
  /**
   * The token every request must carry (`Authorization: Bearer`, or `?token=` for the page and its
   * event stream). Required beyond loopback: one is made when none is given.
   */
  token?: string;
  /** What the page offers: watching a run (take over, hand back) or recording a demonstration (done). @default "run" */
  mode?: LivePageMode;
  /** The page's title (the run's id, the task recorded). */
  title?: string;
  /** Largest frame width sent to the page; 0 keeps the screen's. @default 1280 */
  maxWidth?: number;
  /** Frames a second at most, per machine and viewer. @default 10 */
  maxFps?: number;
  /** Called when the person asks to finish a demonstration (the page's "Done" in record mode). */
  onDone?(slot: number): void;
  /** The slots' VNC servers (`--vnc`), listed on the page with their passwords. */
  vnc?: readonly SlotVncEntry[];
}

/** A running live page. */
export interface LiveServer {
  /** The page's address, with its token when it has one (the line to open). */
  url: string;
  host: string;
  port: number;
  token?: string;
  close(): Promise<void>;
}

/** The status a Pincer error maps to on this HTTP surface. */
function statusOf(err: unknown): number {
  if (err instanceof InvalidArgumentError) return 400;
  if (err instanceof NotFoundError) return 404;
  if (err instanceof FailedPreconditionError) return 409;
  return 500;
}

/** Answers with JSON. */
export function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

/** Reads a small JSON body (at most 64 KiB). */
async function jsonBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req as AsyncIterable<Buffer>) {
    size += c.length;
    if (size > 65_536) throw Object.assign(new Error("the request body is over 64 KiB"), { status: 413 });
    chunks.push(c);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}");
  } catch {
    throw Object.assign(new Error("the request body is not JSON"), { status: 400 });
  }
}

/** Resolves once `res` drained, closed or `signal` aborted; leaves no listener behind. */
function drained(res: ServerResponse, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      signal.removeEventListener("abort", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
    signal.addEventListener("abort", done, { once: true });
  });
}

/**
 * Streams a machine's screen to one viewer: each frame of `env.screen.watch()` as a 4-byte length
 * and a JSON header (seq, capturedAtMs, width, height, screen), then a 4-byte length and the JPEG.
 * The next frame is read only once the last one left (a slow viewer gets fewer frames; the watch
 * keeps only the newest), and the stream ends with the attempt or the viewer.
 */
async function streamScreen(board: LiveBoard, slot: number, envName: string, res: ServerResponse, opts: { maxWidth: number; maxFps: number }) {
  const env = board.envOf(slot, envName);
  if (!env) return send(res, 404, { error: `slot ${slot} runs no attempt with an environment ${JSON.stringify(envName)} now` });
  const epoch = board.views()[slot]?.epoch;
  const stop = new AbortController();
  const onChange = (v: { slot: number; epoch: number }) => v.slot === slot && v.epoch !== epoch && stop.abort();
  board.on("change", onChange);
  res.on("close", () => stop.abort());
  res.writeHead(200, { "content-type": "application/octet-stream", "cache-control": "no-store", "x-content-type-options": "nosniff" });
  res.flushHeaders();
  const watch = env.screen.watch({ format: "jpeg", quality: 70, maxWidth: opts.maxWidth, maxFps: opts.maxFps, signal: stop.signal });
  try {
    for await (const f of watch) {
      const head = Buffer.from(
        JSON.stringify({ seq: f.seq, capturedAtMs: f.capturedAtMs, sentAt: Date.now(), width: f.width, height: f.height, screen: f.screen }),
      );
      const sizes = Buffer.alloc(4);
      sizes.writeUInt32BE(head.length);
      const dataSize = Buffer.alloc(4);
      dataSize.writeUInt32BE(f.data.length);
      const flowing = res.write(Buffer.concat([sizes, head, dataSize, f.data]));
      if (!flowing) await drained(res, stop.signal);
      if (stop.signal.aborted) break;
    }
  } catch {
    // The machine went away (its attempt ended, it was reset): the page asks again for the next attempt's.
  } finally {
    watch.cancel();
    board.off("change", onChange);
    res.end();
  }
}

/** The slot's state as server-sent events: all slots at once, then each change. */
function streamEvents(board: LiveBoard, req: IncomingMessage, res: ServerResponse): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-store", connection: "keep-alive" });
  res.write(`event: slots\ndata: ${JSON.stringify(board.views())}\n\n`);
  const onChange = (v: unknown) => res.write(`event: slot\ndata: ${JSON.stringify(v)}\n\n`);
  board.on("change", onChange);
  const ping = setInterval(() => res.write(": ping\n\n"), 15_000);
  req.on("close", () => {
    clearInterval(ping);
    board.off("change", onChange);
  });
}

/** Routes of a slot: its screen, takeover, hand-back, a person's input, and (recording) done. */
async function slotRoute(opts: LiveServerOptions, req: IncomingMessage, res: ServerResponse, parts: string[]): Promise<void> {
  const { board } = opts;
  const slot = Number(parts[0]);
  const [what, envName] = parts.slice(1);
  if (req.method === "GET" && what === "screen" && envName) {
    const q = new URL(req.url ?? "/", "http://x").searchParams;
    const maxWidth = q.has("maxWidth") ? Number(q.get("maxWidth")) : (opts.maxWidth ?? 1280);
    const maxFps = q.has("maxFps") ? Number(q.get("maxFps")) : (opts.maxFps ?? 10);
    return streamScreen(board, slot, decodeURIComponent(envName), res, { maxWidth, maxFps });
  }
  if (req.method !== "POST") return send(res, 405, { error: `${req.method} is not allowed here` });
  if (what === "takeover") return send(res, 200, board.takeOver(slot));
  if (what === "handback") return send(res, 200, board.handBack(slot));
  if (what === "done" && opts.mode === "record") {
    const view = board.handBack(slot);
    opts.onDone?.(slot);
    return send(res, 200, view);
  }
  if (what === "input") {
    const body = (await jsonBody(req)) as Partial<HumanCall>;
    const step = await board.human(slot, { env: String(body.env ?? ""), action: body.action as HumanCall["action"], args: body.args ?? {} });
    return send(res, step.ok ? 200 : 422, step);
  }
  return send(res, 404, { error: `no such route: ${req.url}` });
}

/** Handles a request that passed the guard (see {@link serveGuarded}). */
export type GuardedHandler = (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void>;

/**
 * An HTTP server for a live page on `listen` (host:port): on loopback no token is needed but the
 * Host header must name the loopback address (no DNS rebinding); beyond it every request needs the
 * token (`Authorization: Bearer`, or `?token=`), one made when none is given. A handler's error is
 * answered with its status.
 */
export async function serveGuarded(listen: string, givenToken: string | undefined, handle: GuardedHandler): Promise<LiveServer> {
  const m = /^(.*):(\d+)$/.exec(listen);
  if (!m) throw new InvalidArgumentError(`--live: ${JSON.stringify(listen)} is not host:port (e.g. 127.0.0.1:8080, or 0.0.0.0:8080 with a token)`);
  const host = m[1]!.replace(/^\[|\]$/g, "");
  const loopback = isLoopback(listen);
  const token = givenToken ?? (loopback ? undefined : randomBytes(18).toString("base64url"));
  const accepts = token ? tokenChecker(token) : undefined;
  let port = 0;
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    if (loopback && !/^(127\.\d+\.\d+\.\d+|localhost|\[::1\]):\d+$/.test(req.headers.host ?? "")) {
      return send(res, 403, { error: `this page answers at ${host}:${port} only` });
    }
    if (accepts) {
      const presented = bearerOf(req.headers.authorization ?? "") ?? url.searchParams.get("token") ?? "";
      if (!accepts(presented)) return send(res, 401, { error: "a token is needed: open the address with ?token=… as pincer printed it" });
    }
    handle(req, res, url).catch((err: unknown) => {
      const status = (err as { status?: number }).status ?? statusOf(err);
      if (!res.headersSent) send(res, status, { error: (err as Error).message });
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(Number(m[2]), host, () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  const shown = host.includes(":") ? `[${host}]` : host === "0.0.0.0" ? "127.0.0.1" : host;
  return {
    url: `http://${shown}:${port}/${token ? `?token=${token}` : ""}`,
    host,
    port,
    ...(token ? { token } : {}),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * Serves the live page of a run (or of a demonstration being recorded): every slot's machines'
 * screens as they change, its task, turn, the agent's last action drawn on the screen and its last
 * message; a person takes a slot over, drives its machines with mouse and keyboard and hands it back.
 * Guarded as {@link serveGuarded} says.
 */
export function startLiveServer(opts: LiveServerOptions): Promise<LiveServer> {
  const html = livePage({ mode: opts.mode ?? "run", title: opts.title ?? "Pincer live" });
  return serveGuarded(opts.listen ?? "127.0.0.1:0", opts.token, (req, res, url) => route(opts, html, req, res, url));
}

async function route(opts: LiveServerOptions, html: string, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const parts = url.pathname.split("/").filter(Boolean);
  if (req.method === "GET" && parts.length === 0) {
    res.writeHead(200, {
      "content-type": "text/html; charset=utf-8",
      "cache-control": "no-store",
      "content-security-policy": "default-src 'self' 'unsafe-inline' blob:",
    });
    return void res.end(html);
  }
  if (parts[0] !== "api") return send(res, 404, { error: `no such page: ${url.pathname}` });
  if (req.method === "GET" && parts[1] === "slots" && parts.length === 2) return send(res, 200, opts.board.views());
  if (req.method === "GET" && parts[1] === "events") return streamEvents(opts.board, req, res);
  if (req.method === "GET" && parts[1] === "vnc") return send(res, 200, opts.vnc ?? []);
  if (parts[1] === "slots" && parts.length >= 4) return slotRoute(opts, req, res, parts.slice(2));
  return send(res, 404, { error: `no such route: ${url.pathname}` });
}
