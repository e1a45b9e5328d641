import { describe, expect, test } from "vitest";
import { decodeGray, ssim } from "../../../packages/controller/src/datasets/evaluationFunctions/index.js";
import type { GrayImage } from "../../../packages/controller/src/datasets/pycompat/cv2.js";
import { fixtureBytes } from "./fixtures.js";

const histogram = (img: GrayImage) => {
  const h = new Array<number>(256).fill(0);
  for (let i = 0; i < img.data.length; i++) h[img.data[i]!]!++;
  return h;
};

describe("ssim", () => {
  test("identical images score 1, including flat ones", () => {
    const flat = { width: 40, height: 30, data: new Uint8Array(1200).fill(200) };
    expect(ssim(flat, flat)).toBeCloseTo(1, 12);
    const noise = { width: 40, height: 30, data: Uint8Array.from({ length: 1200 }, (_, i) => (i * 7919) % 256) };
    expect(ssim(noise, noise)).toBeCloseTo(1, 12);
  });

  test("the same pixels in other places are not similar (unlike a histogram)", async () => {
    const expected = await decodeGray(fixtureBytes("images/expected.png"));
    const swapped = await decodeGray(fixtureBytes("images/result-fail.png"));
    expect(histogram(swapped)).toEqual(histogram(expected));
    expect(ssim(expected, swapped)).toBeLessThan(0.5);
  });

  test("a twice-as-large lossy copy with a small mark, resized back, is similar", async () => {
    const expected = await decodeGray(fixtureBytes("images/expected.png"));
    const bytes = fixtureBytes("images/result-pass.png");
    expect((await decodeGray(bytes)).width).toBe(2 * expected.width);
    const resized = await decodeGray(bytes, { width: expected.width, height: expected.height });
    expect(resized).toMatchObject({ width: 320, height: 200 });
    const s = ssim(expected, resized);
    expect(s).toBeGreaterThan(0.98);
    expect(s).toBeLessThan(1);
  });

  test("more noise, less similarity", () => {
    const base = Uint8Array.from({ length: 64 * 64 }, (_, i) => (i % 64 < 32 ? 40 : 220));
    const noisy = (amp: number) => ({
      width: 64,
      height: 64,
      data: base.map((v, i) => Math.max(0, Math.min(255, v + (((i * 2654435761) >>> 0) % (2 * amp + 1)) - amp))),
    });
    const img = { width: 64, height: 64, data: base };
    const a = ssim(img, noisy(5));
    const b = ssim(img, noisy(40));
    expect(a).toBeGreaterThan(b);
    expect(b).toBeLessThan(0.9);
  });

  test("large images are averaged down first, and it stays quick", () => {
    const w = 1920;
    const h = 1080;
    const data = Uint8Array.from({ length: w * h }, (_, i) => (((i % w) >> 4) % 2 ? 255 : 0));
    const t = performance.now();
    expect(ssim({ width: w, height: h, data }, { width: w, height: h, data })).toBeCloseTo(1, 9);
    expect(performance.now() - t).toBeLessThan(2000);
  });

  test("sizes must match; images smaller than the window still work", () => {
    expect(() => ssim({ width: 2, height: 2, data: [0, 0, 0, 0] }, { width: 1, height: 4, data: [0, 0, 0, 0] })).toThrow("ssim: sizes differ");
    expect(ssim({ width: 4, height: 3, data: new Uint8Array(12).fill(9) }, { width: 4, height: 3, data: new Uint8Array(12).fill(9) })).toBeCloseTo(1, 12);
    expect(ssim({ width: 4, height: 3, data: new Uint8Array(12).fill(0) }, { width: 4, height: 3, data: new Uint8Array(12).fill(255) })).toBeLessThan(0.01);
  });
});

test("decodeGray flattens transparency over white and rejects what is not an image", async () => {
  const { default: sharp } = await import("sharp");
  const transparent = await sharp({ create: { width: 3, height: 2, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
    .png()
    .toBuffer();
  expect(await decodeGray(transparent)).toEqual({ width: 3, height: 2, data: new Uint8Array(6).fill(255) });
  await expect(decodeGray(Buffer.from("not an image"))).rejects.toThrow();
});
