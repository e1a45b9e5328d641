import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { describe, expect, test } from "vitest";
import { appsMetrics } from "../../../packages/controller/src/datasets/osworld/metrics/apps.js";
import { metricRunner } from "./metricRunner.js";

const dir = mkdtempSync(join(tmpdir(), "osworld-apps-images-"));

/** Writes a fixture file and returns its path. */
function fixture(name: string, content: string | Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

const run = metricRunner(appsMetrics);

/** An RGB test picture: gradients plus a bright disc and a dark bar, scaled by `gain`, optionally with noise. */
function picture(width: number, height: number, gain = 1, seed = 0): Buffer {
  const data = Buffer.alloc(width * height * 3);
  let s = seed;
  const noise = () => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return seed === 0 ? 0 : (s / 2 ** 31) * 120 - 60;
  };
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const disc = (x - width / 3) ** 2 + (y - height / 2) ** 2 < (height / 4) ** 2;
      const bar = x > (width * 2) / 3 && x < (width * 3) / 4;
      const base = [40 + (150 * x) / width, 60 + (120 * y) / height, 90];
      const px = disc ? [230, 220, 120] : bar ? [20, 25, 30] : base;
      for (let c = 0; c < 3; c++) data[(y * width + x) * 3 + c] = Math.max(0, Math.min(255, Math.round(px[c]! * gain + noise())));
    }
  }
  return data;
}

/** Writes raw pixels as a PNG fixture. */
async function png(name: string, raw: Buffer, width: number, height: number, channels: 3 | 4 = 3, palette = false): Promise<string> {
  return fixture(name, await sharp(raw, { raw: { width, height, channels } }).png({ palette }).toBuffer());
}

/** An RGBA picture: transparent except an opaque `w` × `h` box at (x, y). */
function cutout(width: number, height: number, box: { x: number; y: number; w: number; h: number }): Buffer {
  const data = Buffer.alloc(width * height * 4);
  for (let y = box.y; y < box.y + box.h; y++) for (let x = box.x; x < box.x + box.w; x++) data.set([200, 100, 50, 255], (y * width + x) * 4);
  return data;
}

describe("check_image_size", () => {
  test("passes on the size, or on the non-transparent content's size with ignore_transparent", async () => {
    expect((await run("check_image_size", await png("size-128.png", picture(128, 128), 128, 128), { height: 128, width: 128 })).score).toBe(1);
    const cut = await png("size-cut.png", cutout(300, 200, { x: 10, y: 20, w: 120, h: 128 }), 300, 200, 4);
    expect((await run("check_image_size", cut, { height: 128, ignore_transparent: true })).score).toBe(1);
    expect((await run("check_image_size", cut, { height: 200, width: 300 })).score).toBe(1);
  });
  test("a palette PNG with a transparent colour is measured by its content even without ignore_transparent (OSWorld's precedence)", async () => {
    const pal = await png("size-pal.png", cutout(64, 64, { x: 8, y: 8, w: 16, h: 32 }), 64, 64, 4, true);
    expect(await run("check_image_size", pal, { height: 32, width: 16 })).toEqual({ score: 1, reason: "passed" });
  });
  test("fails on another size, on the canvas size when content counts, with no file", async () => {
    const r = await run("check_image_size", await png("size-64.png", picture(128, 64), 128, 64), { height: 128, width: 128 });
    expect(r).toEqual({ score: 0, reason: "image is 128×64, expected 128×128" });
    const cut = await png("size-cut2.png", cutout(300, 200, { x: 10, y: 20, w: 120, h: 128 }), 300, 200, 4);
    expect((await run("check_image_size", cut, { height: 200, ignore_transparent: true })).score).toBe(0);
    expect((await run("check_image_size", null, { height: 1 })).score).toBe(0);
    expect((await run("check_image_size", join(dir, "none.png"), { height: 1 })).score).toBe(0);
  });
});

describe("check_image_file_size", () => {
  test("passes under max_size bytes, fails at or over it and with no file", async () => {
    const p = fixture(
      "small.jpeg",
      await sharp(picture(64, 64), { raw: { width: 64, height: 64, channels: 3 } })
        .jpeg()
        .toBuffer(),
    );
    const { size } = await import("node:fs").then((fs) => fs.statSync(p));
    expect((await run("check_image_file_size", p, { max_size: 600000 })).score).toBe(1);
    expect((await run("check_image_file_size", p, { max_size: size })).score).toBe(0);
    expect((await run("check_image_file_size", p, { max_size: 100 })).reason).toBe(`file is ${size} bytes, not under 100`);
    expect((await run("check_image_file_size", null, { max_size: 600000 })).score).toBe(0);
  });
});

describe("check_structure_sim", () => {
  test("passes on the same picture (re-encoded, with an alpha band)", async () => {
    const a = await png("ss-a.png", picture(96, 80), 96, 80);
    const rgba = await sharp(picture(96, 80), { raw: { width: 96, height: 80, channels: 3 } })
      .ensureAlpha()
      .png()
      .toBuffer();
    expect((await run("check_structure_sim", fixture("ss-a-rgba.png", rgba), a)).score).toBe(1);
  });
  test("fails on a noisy picture, another size, a tiny image, no file", async () => {
    const a = await png("ss-b.png", picture(96, 80), 96, 80);
    const noisy = await png("ss-noisy.png", picture(96, 80, 1, 7), 96, 80);
    const r = await run("check_structure_sim", noisy, a);
    expect(r.score).toBe(0);
    expect(r.reason).toMatch(/^SSIM 0\.\d{4} < 0\.9$/);
    expect((await run("check_structure_sim", await png("ss-c.png", picture(96, 81), 96, 81), a)).reason).toContain("sizes differ");
    const tiny = await png("ss-tiny.png", picture(6, 6), 6, 6);
    expect((await run("check_structure_sim", tiny, tiny)).reason).toContain("too small");
    expect((await run("check_structure_sim", null, a)).score).toBe(0);
  });
});

describe("check_brightness_decrease_and_structure_sim", () => {
  test("passes when the result is a darker version of the original", async () => {
    const original = await png("br-orig.png", picture(80, 60), 80, 60);
    const darker = await png("br-dark.png", picture(80, 60, 0.7), 80, 60);
    expect((await run("check_brightness_decrease_and_structure_sim", darker, original)).score).toBe(1);
    expect((await run("check_brightness_decrease_and_structure_sim", darker, original, { threshold: 0.15 })).score).toBe(1);
  });
  test("fails when brighter, when the picture changed, with no file", async () => {
    const original = await png("br-orig2.png", picture(80, 60), 80, 60);
    const brighter = await png("br-bright.png", picture(80, 60, 1.2), 80, 60);
    expect((await run("check_brightness_decrease_and_structure_sim", brighter, original)).reason).toMatch(/^brightness .* is not below/);
    const other = await png("br-other.png", picture(80, 60, 0.6, 11), 80, 60);
    expect((await run("check_brightness_decrease_and_structure_sim", other, original)).reason).toMatch(/normalised MSE .* ≥ 0.03/);
    expect((await run("check_brightness_decrease_and_structure_sim", other, original, { threshold: 0.5 })).score).toBe(1);
    expect((await run("check_brightness_decrease_and_structure_sim", null, original)).score).toBe(0);
    const pal = await png("br-pal.png", picture(80, 60, 0.7), 80, 60, 3, true);
    await expect(run("check_brightness_decrease_and_structure_sim", pal, original)).rejects.toThrow(/palette/);
  });
});
