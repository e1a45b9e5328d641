import { deflateSync } from "node:zlib";
import {
  CancelledError,
  InvalidArgumentError,
  IMAGE_FORMATS,
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
import type { KeyboardApi } from "./keyboard.js";
import type { MouseApi } from "./mouse.js";
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
  const m = memoryMachine(opts);
  const env = {
    address: m.address,
    mouse: memoryMouse(m),
    keyboard: memoryKeyboard(m),
    screen: {
      screenshot: (o: ScreenshotOptions = {}) => m.op("screenshot", o, () => render(m.size, m.pointer, opts.background ?? [0, 0, 0], o)),
      size: (o?: CallOptions) => m.op("size", o, () => ({ ...m.size })),
      // Nothing draws on the in-memory screen, so it is settled at once.
      waitForSettle: (o?: CallOptions) => m.op("waitForSettle", o, () => ({ settled: true, waitedMs: 0, frames: 1, changes: 0, lastChangeMs: 0 })),
      watch: () => ({
        cancel: () => undefined,
        // biome-ignore lint/correctness/useYield: a stream that fails at its first read
        async *[Symbol.asyncIterator]() {
          throw new UnimplementedError(`${m.address}: the in-memory env has no screen stream; use a daemon`);
        },
      }),
    },
    system: { info: (o?: CallOptions) => m.op("info", o, () => info(m.address, m.size)) },
    waitUntilReady: (o?: CallOptions) => m.op("waitUntilReady", o, () => info(m.address, m.size)),
    close: () => {
      m.closed = true;
    },
    events: m.events,
    get pointer() {
      return { ...m.pointer };
    },
    get typed() {
      return m.typed;
    },
    size: m.size,
  } satisfies Partial<MemoryEnv>;
  return withUnimplemented(env, m.address) as MemoryEnv;
}

/** The state of one in-memory machine and the checks every call makes. */
interface MemoryMachine {
  readonly address: string;
  readonly size: Size;
  readonly events: MemoryEnvEvent[];
  pointer: Point;
  typed: string;
  closed: boolean;
  /** Runs one call: refused when closed or aborted, delayed by the latency, key errors as INVALID_ARGUMENT. */
  op<T>(method: string, o: CallOptions | undefined, body: () => T): Promise<T>;
  /** The point, rounded, or INVALID_ARGUMENT when it is off the screen. */
  inside(method: string, p: Point): Point;
  /** Canonical names of modifier keys. */
  keys(list: string[]): string[];
}

function memoryMachine(opts: MemoryEnvOptions): MemoryMachine {
  const size = { width: opts.width ?? 1280, height: opts.height ?? 800 };
  const m: MemoryMachine = {
    address: opts.name ?? "memory",
    size,
    events: [],
    pointer: { x: Math.floor(size.width / 2), y: Math.floor(size.height / 2) },
    typed: "",
    closed: false,
    async op(method, o, body) {
      if (m.closed) throw new UnavailableError(`${method}: the in-memory environment ${m.address} is closed`);
      if (o?.signal?.aborted) throw new CancelledError(`${method}: cancelled before it started`);
      const latency = opts.latencyMs ?? 0;
      if (latency > 0) await delay(method, latency, o);
      try {
        return body();
      } catch (err) {
        if (err instanceof KeyNameError) throw new InvalidArgumentError(`${method}: ${err.message}`);
        throw err;
      }
    },
    inside(method, p) {
      if (!Number.isFinite(p.x) || !Number.isFinite(p.y) || p.x < 0 || p.y < 0 || p.x >= size.width || p.y >= size.height) {
        throw new InvalidArgumentError(`${method}: point (${p.x}, ${p.y}) is outside the ${size.width}x${size.height} screen`);
      }
      return { x: Math.round(p.x), y: Math.round(p.y) };
    },
    keys: (list) => list.map((k, i) => resolveKeyOrThrow(k, `modifiers[${i}]`).name),
  };
  return m;
}

function memoryMouse(m: MemoryMachine): MouseApi {
  /** Moves to `at` when given, records the event, answers with the pointer. */
  const pointerOp = (method: string, o: CallOptions & { at?: Point }, event: () => MemoryEnvEvent) =>
    m.op(method, o, () => {
      if (o.at) m.pointer = m.inside(method, o.at);
      m.events.push(event());
      return m.pointer;
    });
  return {
    move: (to, o = {}) => pointerOp("move", { ...o, at: to }, () => ({ type: "move", to: m.pointer })),
    click: (o = {}) =>
      pointerOp("click", o, () => ({ type: "click", at: m.pointer, button: o.button ?? "left", count: o.count ?? 1, modifiers: m.keys(o.modifiers ?? []) })),
    down: (button = "left", o = {}) => pointerOp("down", o, () => ({ type: "buttonDown", at: m.pointer, button })),
    up: (button = "left", o = {}) => pointerOp("up", o, () => ({ type: "buttonUp", at: m.pointer, button })),
    drag: (path, o = {}) =>
      m.op("drag", o, () => {
        if (path.length < 2) throw new InvalidArgumentError("drag: give at least two points");
        const points = path.map((p) => m.inside("drag", p));
        m.pointer = points[points.length - 1]!;
        m.events.push({ type: "drag", path: points, button: o.button ?? "left", modifiers: m.keys(o.modifiers ?? []) });
        return m.pointer;
      }),
    scroll: (o) => pointerOp("scroll", o, () => ({ type: "scroll", at: m.pointer, dx: o.dx ?? 0, dy: o.dy ?? 0, modifiers: m.keys(o.modifiers ?? []) })),
    position: (o) => m.op("position", o, () => m.pointer),
  };
}

function memoryKeyboard(m: MemoryMachine): KeyboardApi {
  return {
    press: (chord, o = {}) =>
      m.op("press", o, () => {
        const names = typeof chord === "string" ? parseChord(chord).map((k) => k.name) : m.keys(chord);
        m.events.push({ type: "press", keys: names, repeat: o.repeat ?? 1 });
      }),
    down: (key, o) => m.op("keyDown", o, () => void m.events.push({ type: "keyDown", key: resolveKeyOrThrow(key).name })),
    up: (key, o) => m.op("keyUp", o, () => void m.events.push({ type: "keyUp", key: resolveKeyOrThrow(key).name })),
    type: (text, o) =>
      m.op("type", o, () => {
        m.typed += text;
        m.events.push({ type: "type", text });
      }),
  };
}

/** Any API of `Env` the object lacks answers with UnimplementedError. */
function withUnimplemented(target: object, address: string): unknown {
  return new Proxy(target, {
    get(t, prop, receiver) {
      if (typeof prop !== "string" || prop in t || prop === "then") return Reflect.get(t, prop, receiver);
      return new Proxy(
        {},
        {
          get: (_x, method) => () =>
            Promise.reject(new UnimplementedError(`env.${prop}.${String(method)}: the in-memory environment ${address} does not model it`)),
        },
      );
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
    const timer = setTimeout(() => {
      cleanup();
      resolve();
    }, ms);
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
    hostname: address,
    os: "memory",
    osRelease: "",
    arch: process.arch,
    daemonVersion: PINCER_VERSION,
    protocolVersion: PROTOCOL_VERSION,
    nodeVersion: process.version,
    display: "",
    screen: { ...size },
    capabilities: ["input", "screen"],
    warnings: [],
    uptimeSeconds: 0,
    drivers: null,
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
    mimeType: IMAGE_FORMATS[format].mimeType,
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
