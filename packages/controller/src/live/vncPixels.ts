/** A screen image as packed 8-bit RGB, row by row from the top left. Never changed once made. */
export interface RgbFrame {
  readonly rgb: Buffer;
  readonly width: number;
  readonly height: number;
}

/** A rectangle of the framebuffer, in pixels. */
export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** An RFB PIXEL_FORMAT (RFC 6143, 7.4). */
export interface PixelFormat {
  bitsPerPixel: number;
  depth: number;
  bigEndian: boolean;
  trueColour: boolean;
  redMax: number;
  greenMax: number;
  blueMax: number;
  redShift: number;
  greenShift: number;
  blueShift: number;
}

/** The format the server announces: 32 bits a pixel, 8 bits a channel, 0x00RRGGBB little-endian. */
export const SERVER_PIXEL_FORMAT: PixelFormat = {
  bitsPerPixel: 32,
  depth: 24,
  bigEndian: false,
  trueColour: true,
  redMax: 255,
  greenMax: 255,
  blueMax: 255,
  redShift: 16,
  greenShift: 8,
  blueShift: 0,
};

/** The 16 bytes of a PIXEL_FORMAT. */
export function encodePixelFormat(pf: PixelFormat): Buffer {
  const b = Buffer.alloc(16);
  b.writeUInt8(pf.bitsPerPixel, 0);
  b.writeUInt8(pf.depth, 1);
  b.writeUInt8(pf.bigEndian ? 1 : 0, 2);
  b.writeUInt8(pf.trueColour ? 1 : 0, 3);
  b.writeUInt16BE(pf.redMax, 4);
  b.writeUInt16BE(pf.greenMax, 6);
  b.writeUInt16BE(pf.blueMax, 8);
  b.writeUInt8(pf.redShift, 10);
  b.writeUInt8(pf.greenShift, 11);
  b.writeUInt8(pf.blueShift, 12);
  return b;
}

/** Reads a PIXEL_FORMAT from its 16 bytes. */
export function decodePixelFormat(b: Buffer): PixelFormat {
  return {
    bitsPerPixel: b.readUInt8(0),
    depth: b.readUInt8(1),
    bigEndian: b.readUInt8(2) !== 0,
    trueColour: b.readUInt8(3) !== 0,
    redMax: b.readUInt16BE(4),
    greenMax: b.readUInt16BE(6),
    blueMax: b.readUInt16BE(8),
    redShift: b.readUInt8(10),
    greenShift: b.readUInt8(11),
    blueShift: b.readUInt8(12),
  };
}

/** Why the server cannot send pixels in `pf`, or undefined when it can. */
export function unsupportedPixelFormat(pf: PixelFormat): string | undefined {
  if (!pf.trueColour) return "colour-map pixel formats are not supported; use true colour";
  if (![8, 16, 32].includes(pf.bitsPerPixel)) return `${pf.bitsPerPixel} bits per pixel is not supported; use 8, 16 or 32`;
  const channels: [number, number][] = [
    [pf.redMax, pf.redShift],
    [pf.greenMax, pf.greenShift],
    [pf.blueMax, pf.blueShift],
  ];
  for (const [max, shift] of channels) {
    if (max === 0 || max > 0xffff || shift >= pf.bitsPerPixel) return `a channel's max ${max} or shift ${shift} does not fit ${pf.bitsPerPixel} bits`;
  }
  return undefined;
}

/** For each 8-bit value of one channel, its bits in a pixel of `max` levels at `shift`. */
function channelTable(max: number, shift: number): Uint32Array {
  return Uint32Array.from({ length: 256 }, (_, v) => (Math.round((v * max) / 255) * 2 ** shift) >>> 0);
}

/** The pixels of `rect` of `frame` in `pf`, row by row, as an RFB Raw rectangle carries them. */
export function rawPixels(frame: RgbFrame, rect: Rect, pf: PixelFormat): Buffer {
  const bytes = pf.bitsPerPixel / 8;
  const r = channelTable(pf.redMax, pf.redShift);
  const g = channelTable(pf.greenMax, pf.greenShift);
  const b = channelTable(pf.blueMax, pf.blueShift);
  const out = Buffer.allocUnsafe(rect.width * rect.height * bytes);
  const src = frame.rgb;
  let o = 0;
  for (let y = rect.y; y < rect.y + rect.height; y++) {
    let i = (y * frame.width + rect.x) * 3;
    for (let x = 0; x < rect.width; x++, i += 3) {
      const p = r[src[i]!]! | g[src[i + 1]!]! | b[src[i + 2]!]!;
      // Bytes of the pixel value, least significant first or last as the client asked.
      for (let k = 0; k < bytes; k++) out[o + (pf.bigEndian ? bytes - 1 - k : k)] = (p >>> (8 * k)) & 0xff;
      o += bytes;
    }
  }
  return out;
}

/** The part of `a` inside `b`, or undefined when they do not overlap. */
export function intersect(a: Rect, b: Rect): Rect | undefined {
  const x = Math.max(a.x, b.x);
  const y = Math.max(a.y, b.y);
  const right = Math.min(a.x + a.width, b.x + b.width);
  const bottom = Math.min(a.y + a.height, b.y + b.height);
  return right > x && bottom > y ? { x, y, width: right - x, height: bottom - y } : undefined;
}

/** The smallest rectangle holding both. */
export function union(a: Rect, b: Rect): Rect {
  const x = Math.min(a.x, b.x);
  const y = Math.min(a.y, b.y);
  return { x, y, width: Math.max(a.x + a.width, b.x + b.width) - x, height: Math.max(a.y + a.height, b.y + b.height) - y };
}

/** Whether `rect` of `a` and of `b` (frames of one size) hold the same pixels. */
function sameIn(a: RgbFrame, b: RgbFrame, rect: Rect): boolean {
  for (let y = rect.y; y < rect.y + rect.height; y++) {
    const start = (y * a.width + rect.x) * 3;
    const end = start + rect.width * 3;
    if (a.rgb.compare(b.rgb, start, end, start, end) !== 0) return false;
  }
  return true;
}

/**
 * The parts of `area` where `next` differs from `prev`, found tile by tile (`tile` pixels square, on
 * a grid from the top left) and joined into few rectangles: tiles side by side in a row become one,
 * and equal spans of consecutive rows one. All of `area` when there is no `prev` or the size changed.
 */
export function changedRects(prev: RgbFrame | undefined, next: RgbFrame, area: Rect, tile = 64): Rect[] {
  if (!prev || prev.width !== next.width || prev.height !== next.height) return [area];
  if (prev === next) return [];
  const rows: Rect[][] = [];
  for (let ty = Math.floor(area.y / tile) * tile; ty < area.y + area.height; ty += tile) {
    const spans: Rect[] = [];
    for (let tx = Math.floor(area.x / tile) * tile; tx < area.x + area.width; tx += tile) {
      const t = intersect({ x: tx, y: ty, width: tile, height: tile }, area);
      if (!t || sameIn(prev, next, t)) continue;
      const last = spans.at(-1);
      if (last && last.x + last.width === t.x) last.width += t.width;
      else spans.push(t);
    }
    rows.push(spans);
  }
  const out: Rect[] = [];
  let open: Rect[] = [];
  for (const spans of rows) {
    const nextOpen: Rect[] = [];
    for (const s of spans) {
      const above = open.find((r) => r.x === s.x && r.width === s.width && r.y + r.height === s.y);
      if (above) {
        above.height += s.height;
        nextOpen.push(above);
      } else {
        out.push(s);
        nextOpen.push(s);
      }
    }
    open = nextOpen;
  }
  return out;
}

/** `base` with the pixels of `rects` taken from `from` (both of one size), as a new frame. */
export function patched(base: RgbFrame, from: RgbFrame, rects: Rect[]): RgbFrame {
  const rgb = Buffer.from(base.rgb);
  for (const r of rects) {
    for (let y = r.y; y < r.y + r.height; y++) {
      const start = (y * from.width + r.x) * 3;
      from.rgb.copy(rgb, start, start, start + r.width * 3);
    }
  }
  return { rgb, width: base.width, height: base.height };
}
