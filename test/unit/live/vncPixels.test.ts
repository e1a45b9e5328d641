import { describe, expect, test } from "vitest";
import { keyNameOfKeysym } from "../../../packages/controller/src/live/vncKeys.js";
import { changedRects, type PixelFormat, patched, type RgbFrame, rawPixels, SERVER_PIXEL_FORMAT } from "../../../packages/controller/src/live/vncPixels.js";

/** A `width` x `height` frame of one colour. */
function solid(width: number, height: number, rgb: [number, number, number]): RgbFrame {
  const data = Buffer.alloc(width * height * 3);
  for (let i = 0; i < data.length; i += 3) data.set(rgb, i);
  return { rgb: data, width, height };
}

/** `frame` with the pixels of a rectangle painted `rgb`. */
function painted(frame: RgbFrame, r: { x: number; y: number; width: number; height: number }, rgb: [number, number, number]): RgbFrame {
  const data = Buffer.from(frame.rgb);
  for (let y = r.y; y < r.y + r.height; y++) for (let x = r.x; x < r.x + r.width; x++) data.set(rgb, (y * frame.width + x) * 3);
  return { ...frame, rgb: data };
}

const all = (f: RgbFrame) => ({ x: 0, y: 0, width: f.width, height: f.height });

describe("changed rectangles", () => {
  const base = solid(200, 150, [0, 0, 0]);

  test("nothing when nothing changed; the whole area when there is no previous frame or the size changed", () => {
    expect(changedRects(base, { ...base, rgb: Buffer.from(base.rgb) }, all(base))).toEqual([]);
    expect(changedRects(undefined, base, all(base))).toEqual([all(base)]);
    expect(changedRects(solid(100, 100, [0, 0, 0]), base, all(base))).toEqual([all(base)]);
  });

  test("one changed pixel gives its tile; tiles side by side and one above the other are joined", () => {
    expect(changedRects(base, painted(base, { x: 70, y: 10, width: 1, height: 1 }, [9, 9, 9]), all(base))).toEqual([{ x: 64, y: 0, width: 64, height: 64 }]);
    const block = painted(base, { x: 10, y: 10, width: 100, height: 100 }, [9, 9, 9]);
    expect(changedRects(base, block, all(base))).toEqual([{ x: 0, y: 0, width: 128, height: 128 }]);
    // Tiles at the edge are cut to the frame, and the answer stays inside the area asked for.
    const corner = painted(base, { x: 199, y: 149, width: 1, height: 1 }, [9, 9, 9]);
    expect(changedRects(base, corner, all(base))).toEqual([{ x: 192, y: 128, width: 8, height: 22 }]);
    expect(changedRects(base, corner, { x: 0, y: 0, width: 100, height: 100 })).toEqual([]);
  });

  test("patching a frame with the changed rectangles gives the new frame", () => {
    const next = painted(base, { x: 30, y: 100, width: 120, height: 20 }, [1, 2, 3]);
    expect(patched(base, next, changedRects(base, next, all(base))).rgb.equals(next.rgb)).toBe(true);
  });
});

describe("raw pixels in the viewer's format", () => {
  const frame = solid(2, 1, [0xff, 0x80, 0x00]);

  test("32 bits, the server's format: 0x00RRGGBB little-endian", () => {
    expect(rawPixels(frame, all(frame), SERVER_PIXEL_FORMAT).toString("hex")).toBe("0080ff00".repeat(2));
  });

  test("32 bits big-endian with red in the low byte", () => {
    const pf: PixelFormat = { ...SERVER_PIXEL_FORMAT, bigEndian: true, redShift: 0, blueShift: 16 };
    expect(rawPixels(frame, all(frame), pf).toString("hex")).toBe("000080ff".repeat(2));
  });

  test("16 bits RGB565, both byte orders, and 8 bits BGR233", () => {
    const rgb565: PixelFormat = {
      ...SERVER_PIXEL_FORMAT,
      bitsPerPixel: 16,
      depth: 16,
      redMax: 31,
      greenMax: 63,
      blueMax: 31,
      redShift: 11,
      greenShift: 5,
      blueShift: 0,
    };
    // red 31, green round(128 * 63 / 255) = 32, blue 0: 0b11111_100000_00000 = 0xfc00.
    expect(rawPixels(frame, all(frame), rgb565).toString("hex")).toBe("00fc".repeat(2));
    expect(rawPixels(frame, all(frame), { ...rgb565, bigEndian: true }).toString("hex")).toBe("fc00".repeat(2));
    const bgr233: PixelFormat = {
      ...SERVER_PIXEL_FORMAT,
      bitsPerPixel: 8,
      depth: 8,
      redMax: 7,
      greenMax: 7,
      blueMax: 3,
      redShift: 0,
      greenShift: 3,
      blueShift: 6,
    };
    // red 7, green round(128 * 7 / 255) = 4, blue 0: 0b00_100_111.
    expect(rawPixels(frame, all(frame), bgr233).toString("hex")).toBe("27".repeat(2));
  });
});

describe("X keysyms to key names", () => {
  test.each([
    [0x61, "a"],
    [0x41, "A"],
    [0x20, " "],
    [0xe9, "é"],
    [0xff0d, "Return"],
    [0xff08, "BackSpace"],
    [0xffe1, "Shift_L"],
    [0xffe3, "Control_L"],
    [0xffe9, "Alt_L"],
    [0xffeb, "Super_L"],
    [0xff51, "Left"],
    [0xff55, "Prior"],
    [0xffbe, "F1"],
    [0xffc9, "F12"],
    [0xff8d, "KP_Enter"],
    [0xffb7, "KP_7"],
    [0x010020ac, "€"],
    [0x01004e2d, "中"],
  ])("keysym %i is %s", (keysym, name) => {
    expect(keyNameOfKeysym(keysym)).toBe(name);
  });

  test("keysyms with no key (a dead key, a surrogate half) have no name", () => {
    expect(keyNameOfKeysym(0xfe51)).toBeUndefined();
    expect(keyNameOfKeysym(0x0100d800)).toBeUndefined();
  });
});
