import { describe, expect, test } from "vitest";
import { ENCODED_IMAGE_FORMATS, IMAGE_FORMATS, imageFormatOfMime, imageFormatOfWire } from "@pincer/shared";
import { CONTRACT_JSON } from "../../../packages/shared/src/generated/contractJson.js";

describe("the image format table", () => {
  test("names every wire value of pincer.v1.ImageFormat but UNSPECIFIED, once", () => {
    const values = Object.keys(JSON.parse(CONTRACT_JSON).nested.pincer.nested.v1.nested.ImageFormat.values);
    const named = Object.values(IMAGE_FORMATS).map((f) => f.wire);
    expect([...named].sort()).toEqual(values.filter((v) => v !== "IMAGE_FORMAT_UNSPECIFIED").sort());
  });

  test("maps wire values and MIME types back to the format, both ways", () => {
    for (const [name, info] of Object.entries(IMAGE_FORMATS)) {
      expect(imageFormatOfWire(info.wire)).toBe(name);
      expect(imageFormatOfMime(info.mimeType)).toBe(name);
    }
    expect(imageFormatOfWire("IMAGE_FORMAT_UNSPECIFIED")).toBe("png");
    expect(imageFormatOfWire("IMAGE_FORMAT_GIF")).toBeUndefined();
    expect(imageFormatOfMime("image/gif")).toBeUndefined();
    expect(IMAGE_FORMATS.jpeg).toEqual({ wire: "IMAGE_FORMAT_JPEG", mimeType: "image/jpeg", extension: "jpg" });
  });

  test("the encoded formats are all but raw", () => {
    expect([...ENCODED_IMAGE_FORMATS].sort()).toEqual(
      Object.keys(IMAGE_FORMATS)
        .filter((f) => f !== "raw")
        .sort(),
    );
  });
});
