import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { InvalidArgumentError, screenshotToScreen } from "@pincer/controller";
import { DRIVERS, spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";
import { procStat } from "../fixtures/processes.js";
import { openWitnessWindow, type WitnessWindow } from "../fixtures/xwitness.js";
import { startXvfb, type XServer } from "../fixtures/xvfb.js";

let xs: XServer;
let daemon: RunningDaemon;
let red: WitnessWindow;
const RED = { x: 200, y: 150, width: 300, height: 200, color: 0xff0000 };

beforeAll(async () => {
  xs = await startXvfb({ width: 1280, height: 800 });
  daemon = await spawnDaemon({ display: xs.display });
  await daemon.env.waitUntilReady({ timeoutMs: 20_000 });
  red = await openWitnessWindow(xs.display, RED);
  // Park the pointer away from the window so it does not show in cursor-free shots.
  await daemon.env.mouse.move({ x: 1000, y: 700 });
});

afterAll(async () => {
  red?.close();
  await daemon?.close();
  await xs?.close();
});

async function pixels(data: Buffer) {
  const { data: raw, info } = await sharp(data).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { at: (x: number, y: number) => [...raw.subarray((y * info.width + x) * 3, (y * info.width + x) * 3 + 3)], info };
}

describe("screenshots of a real X screen", () => {
  test("PNG of the whole screen shows the window at its place in its colour", async () => {
    const shot = await daemon.env.screen.screenshot();
    expect(shot).toMatchObject({ format: "png", mimeType: "image/png", width: 1280, height: 800, scale: 1 });
    expect(shot.source).toEqual({ x: 0, y: 0, width: 1280, height: 800 });
    expect(shot.screen).toEqual({ width: 1280, height: 800 });
    const px = await pixels(shot.data);
    expect(px.at(350, 250)).toEqual([255, 0, 0]);
    expect(px.at(RED.x, RED.y)).toEqual([255, 0, 0]);
    expect(px.at(RED.x - 1, RED.y)).toEqual([0, 0, 0]);
    expect(px.at(RED.x + RED.width, RED.y + RED.height)).toEqual([0, 0, 0]);
  });

  test("a region shows only that part", async () => {
    const shot = await daemon.env.screen.screenshot({ region: { x: 190, y: 140, width: 20, height: 20 } });
    expect(shot).toMatchObject({ width: 20, height: 20, source: { x: 190, y: 140, width: 20, height: 20 } });
    const px = await pixels(shot.data);
    expect(px.at(0, 0)).toEqual([0, 0, 0]);
    expect(px.at(15, 15)).toEqual([255, 0, 0]);
  });

  test("a downscaled shot maps back to the right pixel: a click there lands in the window", async () => {
    const shot = await daemon.env.screen.screenshot({ maxWidth: 640, maxHeight: 640 });
    expect(shot).toMatchObject({ width: 640, height: 400, scale: 0.5 });
    // Find the red window in the small image, take its centre, map it back and click.
    const px = await pixels(shot.data);
    let minX = Infinity,
      minY = Infinity,
      maxX = -1,
      maxY = -1;
    for (let y = 0; y < shot.height; y++)
      for (let x = 0; x < shot.width; x++) {
        const [r, g, b] = px.at(x, y);
        if (r! > 200 && g! < 50 && b! < 50) {
          minX = Math.min(minX, x);
          maxX = Math.max(maxX, x);
          minY = Math.min(minY, y);
          maxY = Math.max(maxY, y);
        }
      }
    expect([minX, minY]).toEqual([100, 75]);
    const target = screenshotToScreen(shot, { x: (minX + maxX) / 2, y: (minY + maxY) / 2 });
    expect(Math.abs(target.x - (RED.x + RED.width / 2))).toBeLessThanOrEqual(2);
    expect(Math.abs(target.y - (RED.y + RED.height / 2))).toBeLessThanOrEqual(2);
    const from = red.events.length;
    await daemon.env.mouse.click({ at: target });
    const events = await red.waitFor((ev) => ev.slice(from).some((e) => e.name === "ButtonPress"));
    const press = events.slice(from).find((e) => e.name === "ButtonPress")!;
    expect(press.rootX).toBe(target.x);
    expect(press.rootY).toBe(target.y);
  });

  test("a shot shrunk to 1/2 or 2/3 is the area average of the full-size one, edges included", async () => {
    /** Each output pixel: the source pixels it covers, weighted by the overlap. */
    function areaAverage(raw: Buffer, w: number, h: number, ow: number, oh: number): number[] {
      const f = w / ow;
      const overlap = (o: number, s: number) => Math.max(0, Math.min((o + 1) * f, s + 1) - Math.max(o * f, s));
      const out: number[] = [];
      for (let oy = 0; oy < oh; oy++)
        for (let ox = 0; ox < ow; ox++)
          for (let c = 0; c < 3; c++) {
            let sum = 0;
            for (let sy = Math.floor(oy * f); sy < Math.min(h, Math.ceil((oy + 1) * f)); sy++)
              for (let sx = Math.floor(ox * f); sx < Math.min(w, Math.ceil((ox + 1) * f)); sx++)
                sum += raw[(sy * w + sx) * 3 + c]! * overlap(ox, sx) * overlap(oy, sy);
            out.push(sum / (f * f));
          }
      return out;
    }
    // The window's top-left corner falls inside the blocks, so edge pixels mix black and red.
    for (const { region, maxWidth } of [
      { region: { x: 181, y: 130, width: 60, height: 45 }, maxWidth: 40 },
      { region: { x: 181, y: 131, width: 40, height: 40 }, maxWidth: 20 },
    ]) {
      const full = await daemon.env.screen.screenshot({ region, format: "raw" });
      const small = await daemon.env.screen.screenshot({ region, format: "raw", maxWidth });
      expect(small.scale).toBe(maxWidth / region.width);
      const expected = areaAverage(full.data, region.width, region.height, small.width, small.height);
      expect(small.data.length).toBe(expected.length);
      expect(expected.some((v) => v > 10 && v < 245)).toBe(true);
      const worst = Math.max(...expected.map((v, i) => Math.abs(v - small.data[i]!)));
      expect(worst).toBeLessThanOrEqual(1);
    }
  });

  test("JPEG, WebP and raw RGB have their formats and sizes", async () => {
    const jpeg = await daemon.env.screen.screenshot({ format: "jpeg", quality: 60 });
    expect(jpeg.data.subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
    expect(jpeg.mimeType).toBe("image/jpeg");
    const webp = await daemon.env.screen.screenshot({ format: "webp", maxWidth: 320 });
    expect(webp.data.subarray(8, 12).toString()).toBe("WEBP");
    expect((await sharp(webp.data).metadata()).width).toBe(320);
    const raw = await daemon.env.screen.screenshot({ format: "raw", region: { x: 195, y: 145, width: 10, height: 10 } });
    expect(raw.data.length).toBe(10 * 10 * 3);
    expect([...raw.data.subarray(0, 3)]).toEqual([0, 0, 0]);
    expect([...raw.data.subarray((9 * 10 + 9) * 3, (9 * 10 + 9) * 3 + 3)]).toEqual([255, 0, 0]);
  });

  test("the cursor overlay draws the pointer only when asked", async () => {
    await daemon.env.mouse.move({ x: 800, y: 500 });
    const region = { x: 795, y: 495, width: 30, height: 40 };
    const plain = await pixels((await daemon.env.screen.screenshot({ region })).data);
    const withCursor = await daemon.env.screen.screenshot({ region, includeCursor: true });
    expect(withCursor.cursor).toEqual({ x: 800, y: 500 });
    const drawn = await pixels(withCursor.data);
    let changed = 0;
    for (let y = 0; y < 40; y++) for (let x = 0; x < 30; x++) if (drawn.at(x, y).join() !== plain.at(x, y).join()) changed++;
    expect(changed).toBeGreaterThan(30);
    // Nothing is drawn above or left of the hot spot.
    expect(drawn.at(2, 2)).toEqual([0, 0, 0]);
    // In a downscaled shot the pointer is drawn at the shot's scale, its hot spot mapped there.
    const small = await daemon.env.screen.screenshot({ region, includeCursor: true, maxWidth: 15 });
    const smallPlain = await pixels((await daemon.env.screen.screenshot({ region, maxWidth: 15 })).data);
    const smallDrawn = await pixels(small.data);
    let smallChanged = 0;
    for (let y = 0; y < small.height; y++) for (let x = 0; x < small.width; x++) if (smallDrawn.at(x, y).join() !== smallPlain.at(x, y).join()) smallChanged++;
    expect(smallChanged).toBeGreaterThan(8);
    expect(smallDrawn.at(1, 1)).toEqual([0, 0, 0]);
  });

  test("screen size", async () => {
    expect(await daemon.env.screen.size()).toEqual({ width: 1280, height: 800 });
  });

  test("bad requests name the field", async () => {
    await expect(daemon.env.screen.screenshot({ region: { x: 1200, y: 0, width: 200, height: 10 } })).rejects.toThrow(
      expect.objectContaining({ name: "InvalidArgumentError", message: expect.stringMatching(/region: 200x10\+1200\+0 is not inside the 1280x800 screen/) }),
    );
    await expect(daemon.env.screen.screenshot({ format: "jpeg", quality: 101 })).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(daemon.env.screen.screenshot({ format: "jpeg", quality: 101 })).rejects.toThrow(/quality: 101 is out of range/);
    await expect(daemon.env.screen.screenshot({ maxWidth: 100_000 })).rejects.toThrow(/max_width/);
  });
});

describe("the pixels a screenshot is converted in are kept for the next one", () => {
  /** The daemon's minor page faults so far (field 10 of /proc/PID/stat). */
  const faults = () => procStat(daemon.process.pid!, 10);

  test.runIf(DRIVERS === "native")("a full-size screenshot takes fewer page faults than a new RGB buffer of the screen would", async () => {
    // The daemon maps large buffers on their own (fresh pages, faulted in and zeroed on first write);
    // a kept buffer is already resident. A new one for 1280x800 RGB is 750 pages, each written.
    const rgbPages = Math.ceil((1280 * 800 * 3) / 4096);
    for (let i = 0; i < 3; i++) await daemon.env.screen.screenshot({ format: "jpeg" });
    const perShot: number[] = [];
    for (let i = 0; i < 7; i++) {
      const before = faults();
      await daemon.env.screen.screenshot({ format: "jpeg" });
      perShot.push(faults() - before);
    }
    const median = [...perShot].sort((a, b) => a - b)[3]!;
    expect(median, `page faults per screenshot: ${perShot.join(", ")}`).toBeLessThan(rgbPages);
  });

  test("screenshots taken at once each get their own pixels, and raw pixels are not reused", async () => {
    const inRed = { x: RED.x + 10, y: RED.y + 10, width: 64, height: 48 };
    const inBlack = { x: 700, y: 500, width: 64, height: 48 };
    const shots = await Promise.all([inRed, inBlack, inRed, inBlack, inRed, inBlack].map((region) => daemon.env.screen.screenshot({ format: "png", region })));
    for (const [i, shot] of shots.entries()) {
      const { at } = await pixels(shot.data);
      const want = i % 2 === 0 ? [255, 0, 0] : [0, 0, 0];
      for (const [x, y] of [
        [0, 0],
        [63, 0],
        [31, 24],
        [0, 47],
        [63, 47],
      ] as const)
        expect(at(x, y)).toEqual(want);
    }
    const [raw, png] = await Promise.all([
      daemon.env.screen.screenshot({ format: "raw", region: inRed }),
      daemon.env.screen.screenshot({ format: "png", region: inBlack }),
    ]);
    expect(raw.data.equals(Buffer.alloc(64 * 48 * 3).fill(Buffer.from([255, 0, 0])))).toBe(true);
    expect((await pixels(png.data)).at(10, 10)).toEqual([0, 0, 0]);
  });
});

describe("the screenshot-desktop fallback (ImageMagick import)", () => {
  test("gives the same picture as the in-process grab", async () => {
    // Native drivers whichever set is under test: under the portable set this checks nut-js's grab.
    const slow = await spawnDaemon({ display: xs.display, args: ["--drivers", "native", "--capture", "screenshot-desktop"] });
    try {
      const region = { x: 190, y: 140, width: 40, height: 30 };
      const viaFallback = await slow.env.screen.screenshot({ region, format: "raw" });
      const inProcess = await daemon.env.screen.screenshot({ region, format: "raw" });
      expect(viaFallback.width).toBe(40);
      expect(viaFallback.data.equals(inProcess.data)).toBe(true);
      expect([...viaFallback.data.subarray((25 * 40 + 35) * 3, (25 * 40 + 35) * 3 + 3)]).toEqual([255, 0, 0]);
    } finally {
      await slow.close();
    }
  });
});

describe("capture methods agree", () => {
  test("the default capture (X shared memory; nut-js under the portable drivers) and GetImage over the X socket give the same pixels", async () => {
    const viaGetImage = await spawnDaemon({ display: xs.display, args: ["--drivers", "native", "--capture", "getimage"] });
    try {
      const region = { x: 150, y: 100, width: 400, height: 300 };
      const shm = await daemon.env.screen.screenshot({ region, format: "raw" });
      const got = await viaGetImage.env.screen.screenshot({ region, format: "raw" });
      expect(shm.data.length).toBe(400 * 300 * 3);
      // Not a black screen: the test scene is in the region.
      expect(shm.data.some((b) => b !== 0)).toBe(true);
      expect(shm.data.equals(got.data)).toBe(true);
      const info = await daemon.env.system.info();
      if (DRIVERS === "native") expect(info.capabilities).toContain("screen.capture.shm");
      expect(info.drivers).toMatchObject(DRIVERS === "native" ? { set: "native", screen: "mit-shm" } : { set: "portable", screen: "nut-js" });
      expect((await viaGetImage.env.system.info()).drivers).toMatchObject({ set: "native", screen: "getimage" });
    } finally {
      await viaGetImage.close();
    }
  });
});
