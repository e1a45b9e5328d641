import { deflateSync } from "node:zlib";
import {
  CancelledError,
  InvalidArgumentError,
  KeyNameError,
  parseChord,
  PINCER_VERSION,
  PROTOCOL_VERSION,
  resolveKeyOrThrow,
  TimeoutError,
  UnavailableError,
  UnimplementedError,
} from "@pincer/shared";
import type { Env } from "./env.js";
import type { CallOptions, MouseButton, Point, Size } from "./types.js";
import type { Screenshot, ScreenshotOptions } from "./screen.js";
import type { SystemInfo } from "./system.js";

/** What the in-memory machine received, in order. Key names are canonical (`Control_L`, `Return`). */
export type MemoryEnvEvent =
  | { type: "move"; to: Point }
  | { type: "click"; at: Point; button: MouseButton; count: number; modifiers: string[] }
  | { type: "buttonDown" | "buttonUp"; at: Point; button: MouseButton }
  | { type: "drag"; path: Point[]; button: MouseButton; modifiers: string[] }
  | { type: "scroll"; at: Point; dx: number; dy: number; modifiers: string[] }
  | { type: "press"; keys: string[]; repeat: number }
  | { type: "keyDown" | "keyUp"; key: string }
  | { type: "type"; text: string };

/** An `env` handle with no machine behind it, that records what it is asked to do. */
export interface MemoryEnv extends Env {
  /** Every input it received, in order. */
  readonly events: MemoryEnvEvent[];
  /** Where the pointer is now. */
  readonly pointer: Point;
  /** All text typed so far, concatenated. */
  readonly typed: string;
  readonly size: Size;
}

/** Options of {@link createMemoryEnv}. */
export interface MemoryEnvOptions {
  /** Shown as the handle's address. @default "memory" */
  name?: string;
  /** @default 1280 */
  width?: number;
  /** @default 800 */
  height?: number;
  /** Screen colour of screenshots, RGB 0-255. @default [0, 0, 0] */
  background?: [number, number, number];
  /** Delay of every call in milliseconds, to test deadlines and cancellation. @default 0 */
  latencyMs?: number;
}

/**
 * An in-memory `env` for unit tests and templates: it keeps a pointer, validates points and key
 * names as the daemon does, records every input in `events` and renders solid-colour PNG or raw
 * screenshots. It honours `signal` and `timeoutMs`. APIs it does not model (files, processes) reject
 * with UnimplementedError.
 */
export function createMemoryEnv(opts: MemoryEnvOptions = {}): MemoryEnv {
  const size = { width: opts.width ?? 1280, height: opts.height ?? 800 };
  const address = opts.name ?? "memory";
  const events: MemoryEnvEvent[] = [];
  let pointer: Point = { x: Math.floor(size.width / 2), y: Math.floor(size.height / 2) };
  let typed = "";
  let closed = false;

  async function op<T>(method: string, o: CallOptions | undefined, body: () => T): Promise<T> {
    if (closed) throw new UnavailableError(`${method}: the in-memory environment ${address} is closed`);
    if (o?.signal?.aborted) throw new CancelledError(`${method}: cancelled before it started`);
    const latency = opts.latencyMs ?? 0;
    if (latency > 0) await delay(method, latency, o);
    try {
      return body();
    } catch (err) {
      if (err instanceof KeyNameError) throw new InvalidArgumentError(`${method}: ${err.message}`);
      throw err;
    }
  }
  function inside(method: string, p: Point): Point {
    if (!Number.isFinite(p.x) || !Number.isFinite(p.y) || p.x < 0 || p.y < 0 || p.x >= size.width || p.y >= size.height) {
      throw new InvalidArgumentError(`${method}: point (${p.x}, ${p.y}) is outside the ${size.width}x${size.height} screen`);
    }
    return { x: Math.round(p.x), y: Math.round(p.y) };
  }
  const keys = (list: string[]) => list.map((k, i) => resolveKeyOrThrow(k, `modifiers[${i}]`).name);

  const env = {
    address,
    mouse: {
      move: (to: Point, o?: CallOptions) =>
        op("move", o, () => {
          pointer = inside("move", to);
          events.push({ type: "move", to: pointer });
          return pointer;
        }),
      click: (o: CallOptions & { button?: MouseButton; count?: number; at?: Point; modifiers?: string[] } = {}) =>
        op("click", o, () => {
          if (o.at) pointer = inside("click", o.at);
          events.push({ type: "click", at: pointer, button: o.button ?? "left", count: o.count ?? 1, modifiers: keys(o.modifiers ?? []) });
          return pointer;
        }),
      down: (button: MouseButton = "left", o: CallOptions & { at?: Point } = {}) =>
        op("down", o, () => {
          if (o.at) pointer = inside("down", o.at);
          events.push({ type: "buttonDown", at: pointer, button });
          return pointer;
        }),
      up: (button: MouseButton = "left", o: CallOptions & { at?: Point } = {}) =>
        op("up", o, () => {
          if (o.at) pointer = inside("up", o.at);
          events.push({ type: "buttonUp", at: pointer, button });
          return pointer;
        }),
      drag: (path: Point[], o: CallOptions & { button?: MouseButton; modifiers?: string[] } = {}) =>
        op("drag", o, () => {
          if (path.length < 2) throw new InvalidArgumentError("drag: give at least two points");
          const points = path.map((p) => inside("drag", p));
          pointer = points[points.length - 1]!;
          events.push({ type: "drag", path: points, button: o.button ?? "left", modifiers: keys(o.modifiers ?? []) });
          return pointer;
        }),
      scroll: (o: CallOptions & { dx?: number; dy?: number; at?: Point; modifiers?: string[] }) =>
        op("scroll", o, () => {
          if (o.at) pointer = inside("scroll", o.at);
          events.push({ type: "scroll", at: pointer, dx: o.dx ?? 0, dy: o.dy ?? 0, modifiers: keys(o.modifiers ?? []) });
          return pointer;
        }),
      position: (o?: CallOptions) => op("position", o, () => pointer),
    },
    keyboard: {
      press: (chord: string | string[], o: CallOptions & { repeat?: number } = {}) =>
        op("press", o, () => {
          const names = typeof chord === "string" ? parseChord(chord).map((k) => k.name) : keys(chord);
          events.push({ type: "press", keys: names, repeat: o.repeat ?? 1 });
        }),
      down: (key: string, o?: CallOptions) => op("keyDown", o, () => void events.push({ type: "keyDown", key: resolveKeyOrThrow(key).name })),
      up: (key: string, o?: CallOptions) => op("keyUp", o, () => void events.push({ type: "keyUp", key: resolveKeyOrThrow(key).name })),
      type: (text: string, o?: CallOptions) =>
        op("type", o, () => {
          typed += text;
          events.push({ type: "type", text });
        }),
    },
    screen: {
      screenshot: (o: ScreenshotOptions = {}) => op("screenshot", o, () => render(size, pointer, opts.background ?? [0, 0, 0], o)),
      size: (o?: CallOptions) => op("size", o, () => ({ ...size })),
    },
    system: { info: (o?: CallOptions) => op("info", o, () => info(address, size)) },
    waitUntilReady: (o?: CallOptions) => op("waitUntilReady", o, () => info(address, size)),
    close: () => {
      closed = true;
    },
    events,
    get pointer() {
      return { ...pointer };
    },
    get typed() {
      return typed;
    },
    size,
  } satisfies Partial<MemoryEnv>;
  return withUnimplemented(env, address) as MemoryEnv;
}

/** Any API of `Env` the object lacks answers with UnimplementedError. */
function withUnimplemented(target: object, address: string): unknown {
  return new Proxy(target, {
    get(t, prop, receiver) {
      if (typeof prop !== "string" || prop in t || prop === "then") return Reflect.get(t, prop, receiver);
      return new Proxy({}, {
        get: (_x, method) => () =>
          Promise.reject(new UnimplementedError(`env.${prop}.${String(method)}: the in-memory environment ${address} does not model it`)),
      });
    },
  });
}

function delay(method: string, ms: number, o: CallOptions | undefined): Promise<void> {
  const signal = o?.signal;
  const timeoutMs = o?.timeoutMs;
  return new Promise((resolve, reject) => {
    const cleanup = () => {
      clearTimeout(timer);
      clearTimeout(deadline);
      signal?.removeEventListener("abort", onAbort);
    };
    const onAbort = () => {
      cleanup();
      reject(new CancelledError(`${method}: cancelled by the caller`));
    };
    const timer = setTimeout(() => (cleanup(), resolve()), ms);
    const deadline =
      timeoutMs !== undefined && timeoutMs < ms
        ? setTimeout(() => {
            cleanup();
            reject(new TimeoutError(`${method}: no answer within ${timeoutMs} ms`));
          }, timeoutMs)
        : undefined;
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

function info(address: string, size: Size): SystemInfo {
  return {
    hostname: address, os: "memory", osRelease: "", arch: process.arch, daemonVersion: PINCER_VERSION,
    protocolVersion: PROTOCOL_VERSION, nodeVersion: process.version, display: "", screen: { ...size },
    capabilities: ["input", "screen"], warnings: [], uptimeSeconds: 0,
  };
}

function render(size: Size, cursor: Point, rgb: [number, number, number], o: ScreenshotOptions): Screenshot {
  const source = o.region ?? { x: 0, y: 0, width: size.width, height: size.height };
  const scale = Math.min(1, (o.maxWidth ?? Infinity) / source.width, (o.maxHeight ?? Infinity) / source.height);
  const width = Math.max(1, Math.round(source.width * scale));
  const height = Math.max(1, Math.round(source.height * scale));
  const format = o.format ?? "png";
  if (format !== "png" && format !== "raw") {
    throw new UnimplementedError(`screenshot: the in-memory environment renders png and raw, not ${format}`);
  }
  const row = Buffer.alloc(width * 3);
  for (let i = 0; i < width; i++) row.set(rgb, i * 3);
  const pixels = Buffer.concat(Array.from({ length: height }, () => row));
  return {
    data: format === "raw" ? pixels : encodePng(width, height, row),
    format,
    mimeType: format === "raw" ? "application/octet-stream" : "image/png",
    width,
    height,
    source,
    scale: width / source.width,
    cursor: { ...cursor },
    screen: { ...size },
  };
}

/** A PNG of identical RGB rows (filter 0), with zlib from node. */
function encodePng(width: number, height: number, row: Buffer): Buffer {
  const line = Buffer.concat([Buffer.from([0]), row]);
  const raw = Buffer.concat(Array.from({ length: height }, () => line));
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body), 8 + data.length);
    return out;
  };
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(raw)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
