import sharp from "sharp";
import { describe, expect, test } from "vitest";
import { decodeGrayLikeOpenCv, histogramCorrelation, resizeArea } from "../../../packages/controller/src/datasets/pycompat/cv2.js";
import { hex, pattern } from "./pattern.js";

// The expected samples and numbers are what OpenCV 5.0.0's Python binding gives for the same
// arrays (np.array(pattern).reshape(height, width[, 3])), as bytes(result).hex().
const OPENCV = {
  area_13x9: [
    "63ad4475b9569f707499838a9da35e7481936ab2548d75998f746988747387897267787391959b718e8077937d8c8b717c897e7d8692678667a58c70",
    "8468859e80755f5a8584848b82868781888086698a777ea37474876f8c9f7a7875957b7b81897865937e73816a84905585a09d6d845b7a9681",
  ].join(""),
  area_15x10: [
    "50a275499fb54ca47e58b38f6d8baaa656887a6da157cd44bc36b06ba765818f5e6e8092a5794fa53cd46e88a35f8bb9675686786a9d51877d746ca6",
    "828c57a3717f8e9e708295697f956c68907a648f7ba9978676689a8d817793596068727c8793616f7e8ea0b28581658b719880aa547fab598776a698",
    "747679bd83499098626c7783915f6e6a8a6c8e7155bba188705a846f9b89",
  ].join(""),
  bgr2gray: ["81d565bd52cb47c546c94eb85ecd78559b30a960489939be8073b27b75bb8a3e41ae6872c8a76b7d46a791607f52be978e6b4a785b41bfaa96859386", "7c746d"].join(""),
};

describe("cv2", () => {
  const grey = { width: 30, height: 20, data: pattern(600, 8) };

  test("resize(..., interpolation=INTER_AREA) by a whole and by a fractional factor", () => {
    expect(hex(resizeArea(grey, 15, 10).data)).toBe(OPENCV.area_15x10);
    expect(hex(resizeArea(grey, 13, 9).data)).toBe(OPENCV.area_13x9);
  });

  test("imread + cvtColor(COLOR_BGR2GRAY) of a PNG", async () => {
    const png = await sharp(Buffer.from(pattern(9 * 7 * 3, 9)), { raw: { width: 9, height: 7, channels: 3 } })
      .png()
      .toBuffer();
    const gray = await decodeGrayLikeOpenCv(png);
    expect([gray.width, gray.height]).toEqual([9, 7]);
    expect(hex(gray.data)).toBe(OPENCV.bgr2gray);
  });

  test("calcHist + normalize(NORM_MINMAX) + compareHist(HISTCMP_CORREL), the larger image first shrunk with INTER_AREA", () => {
    const other = { width: 12, height: 8, data: pattern(96, 10) };
    expect(histogramCorrelation(grey, other)).toBeCloseTo(0.02101244359962928, 6);
    expect(histogramCorrelation(other, grey)).toBeCloseTo(0.02101244359962928, 6);
    expect(histogramCorrelation(grey, grey)).toBeCloseTo(1, 12);
  });
});
