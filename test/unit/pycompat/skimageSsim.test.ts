import { describe, expect, test } from "vitest";
import { structuralSimilarity } from "../../../packages/controller/src/datasets/pycompat/skimageSsim.js";
import { pattern } from "./pattern.js";

// The expected values are what scikit-image 0.26.0's skimage.metrics.structural_similarity gives
// for the same uint8 arrays (np.array(pattern).reshape(height, width[, 3])).

describe("scikit-image's structural_similarity", () => {
  const a = { width: 24, height: 18, data: pattern(24 * 18, 4) };
  const noise = pattern(24 * 18, 5);
  const b = { width: 24, height: 18, data: a.data.map((v, i) => Math.floor((v * 3 + noise[i]!) / 4)) };

  test("its defaults on uint8 images: a uniform 7 × 7 window, sample covariance, data range 255", () => {
    expect(structuralSimilarity(a, b)).toBeCloseTo(0.9739904408402617, 12);
    expect(structuralSimilarity(a, a)).toBe(1);
  });

  test("win_size=9", () => {
    expect(structuralSimilarity(a, b, { winSize: 9 })).toBeCloseTo(0.9738748972998039, 12);
  });

  test("gaussian_weights=True, sigma=1.5, use_sample_covariance=False (Wang et al.'s settings)", () => {
    expect(structuralSimilarity(a, b, { gaussianWeights: true, sigma: 1.5, useSampleCovariance: false })).toBeCloseTo(0.9747124556613761, 12);
  });

  test("channel_axis=2: the mean over the channels", () => {
    const ca = pattern(16 * 12 * 3, 6);
    const other = pattern(16 * 12 * 3, 7);
    const cb = ca.map((v, i) => Math.floor((v + other[i]!) / 2));
    expect(
      structuralSimilarity({ width: 16, height: 12, channels: 3, data: ca }, { width: 16, height: 12, channels: 3, data: cb }, { winSize: 7 }),
    ).toBeCloseTo(0.9500909558274105, 12);
  });

  test("raises as skimage does: different shapes, a window larger than the image", () => {
    expect(() => structuralSimilarity(a, { ...b, width: 23 })).toThrow(/same dimensions/);
    const tiny = { width: 6, height: 8, data: new Uint8Array(48) };
    expect(() => structuralSimilarity(tiny, tiny)).toThrow(/win_size exceeds image extent/);
  });
});
