import { describe, expect, test } from "vitest";
import { band, greyImage, meanBrightness, type PilImage, toHSV, toL, toRGB, toRGBA } from "../../../packages/controller/src/datasets/pycompat/pilImage.js";
import { resize } from "../../../packages/controller/src/datasets/pycompat/pilResize.js";
import { hex, pattern } from "./pattern.js";

// The expected samples are what Pillow 12.3.0 gives for the same input (Image.frombytes of the
// pattern's bytes, then the call named in each test), as bytes(np.array(result)).hex().
const PILLOW = {
  resize_L_lanczos_13x9: [
    "8262bd44999952a77b8584836a7b8d778876998363847d8e75856f8a75667e8e7f6a7966a69a788cac6c827a7e8d606d718d7a707f867da1805e5f95",
    "797d8659a6978b92938c786ca9bda75e7a83a4847c8f98508d6e71846a6476906fae837c898e6f7260908271698086778996a4677769839282",
  ].join(""),
  resize_L_bicubic_13x9: [
    "8266b64b9399599f7c8783826c778b7989739b7f648976957385738b746a7f8f816d7664a797768cad6c82767d8b5f6f748d7b737c8880a081606492",
    "7b80805da3968d91918c7671a7b5a4647481a283808d9556857275836e657b8f72ab867b8a8e7373608e7f6f6b7b8b7a8294aa63756d819281",
  ].join(""),
  resize_L8x5_lanczos_13x7: [
    "748097a4dcff8700174656707b819cd3f6e0893f273a536ca1bed3b7a3c89f1917668aadc1a893ff980c164d617a93a7dfe95f00624c324376b5f7db",
    "592e5d4c344b69a3ceb77e96a14e275a97b3a3abd0ffc526084d7a9ab6d4e3",
  ].join(""),
  resize_L8x5_bicubic_13x7: [
    "73829cb2d5fb8104203f5771818ba3c9ecd6804429435d769db5c3b4a4caa5292f607e9cb2a395f9960f2346607a94aed2e660006152445b80acd8d4",
    "5937605346536c97bab48096a34e3a618da79caecefdc9271d4c7494afd0e3",
  ].join(""),
  resize_L_lanczos_30x7: [
    "67a26f5886a4d2574a5690bcf6174985b7856397779c8a5a89b74e806a7e6569a668aa5f6196737d54a4b177707aba3b407dd7474d9dec407dc8696e",
    "e82589ec5b9b4d64997073946888a28b4a5c8e5e635e867bb2846cb8457e9e6d77c754a17a73eb43ba309c3f7b695dc96eb7488d8b9b5b953e67afa1",
    "9d89b076897b9e908c9aa9735c77648776d457e763ff675b7743934eaf62f07055b145e27f54b687817d49987f83995d486f8b684994906a7d5b9d4c",
    "72706b7b73d68123dd8026ec9053ef965851ab6a5f627f6a95937eb04d9b",
  ].join(""),
  resize_RGB_lanczos_8x5: [
    "8589729b61999a866b666a859c686d988d735284956a7dabc1a4445e859e4b8dbe3a8aa3c16463bb637c7459acb44f6bab49a6528d956f77a4717f59",
    "a179749763656a65a27ea37e87a38b938e87a09f819b5d70687d7374808a6575788a5ea18d9936ad4ba56d67b29e76739141b37646d3589a76be7132",
  ].join(""),
  resize_RGBA_bicubic_7x6: [
    "9895428e9d8d5590707cc05678396b9f973f7771af9c458780b0956f4862b05b82bad16f70a3c8546f74a9659cac1e8fb4be4c8697766a6572569c91",
    "a19ea147c06a667fba417b7441787861517e867d6eca728384b7456e947a7a8959aa5b7e71864c6186786e833ebc3b8a8acd8e769f499f53b815ae82",
    "6fe56a9571d771757db179a263de6cac51a2a82fc1498a95c84db4639f6f75a041b25c8c81a2b14568a498953ea06a94",
  ].join(""),
  RGB_to_L: [
    "34a5648d517e4778467c4d885e9d2bbb4ec67a5fae4ccf8e33bc827abe8b3dd4a86168bb985a6ac7ad774460c89c8f67416b4ac1a58b907a66554686",
    "7b736d6968696b7178828e4f607388829bb73f5f825a818db85080657db4569165a5519572ba6f70a25e659e606fae776f3da2a17578515836abba9d",
    "b099b09db9aa34574f76739e9f396b73aa995b998f589c9969b46b8d499d5d894eab748b7646ae82a57e765333ab8f75aa958271807469625c595859",
    "5d636a74647384",
  ].join(""),
  RGB_to_HSV: [
    "94c460945cd2f7dff8956bbcf7f1e49477aff6fcd8947eabf6fdd6947fb0f5f4dc947abef5e2ec9470d594f4649464f594b78834deec948eb6f4e0e9",
    "9470ec94c28b35d1f69486cf94f17436dfe49492c6f2c7ff36dbe6948fd194e78437c5fc9481f094baaaf1d4e838d6e4948fe494c6a7f0d0e839c8f0",
    "9487fc94adc894ea96efd9db3ac3f23aeec694a1e494c3bd94f498edcde2edf0c03cc2ec3cdcd03cfab694a8ec94bad794cdc494e2b494f8a6ebb4f7",
    "eabceceac2e3eac7dce9cbd8e9cbd6e9cad6e9c7d8e8c3dde8bbe4e8b3ede7aaf894f6bb94e3cc94d1e094c0f642eab043ccca43b2e6e5f8a4e5d0c4",
    "e5b0e694f2ce94cdf645d3bc45abe8e3dfb1e2afe094eadf47e1ad47aae4e1d5b4e1a1ef48ff9649b1d6dfdbacdf9df04ae5a34a9decdeb8c894e9f4",
    "4badd4ddc9b594f6ec4cacd0dcc5b694eef84e9de1daaecb4ed9a2daf48fd98ef450a2d4d8adc651c6acd7d3a052f08cd7ff84d686f9538beed58dea",
    "548fe5d48fe4558fe5d38dea568beed286f9d1ff8457f08cd1d3a058c6acd0adc659a2d4cf8ef4cef48f5bd9a2ceaecb5b9de115eef8ccc5b65dacd0",
    "15f6eccbc9b55eadd415e9f4cab8c85f9dec5fe5a3c99df0c9dbac60b1d661ff96c7a1efc7d5b462aae462e1ad15eadfc6afe0c5dfb164abe864d3bc",
    "15cdf615f2cec3b0e6c3d0c4c3f8a466b2e666ccca67eab015c0f615d1e015e3cc15f6bbc1aaf8c0b3edc0bbe4c0c3ddbfc7d8bfcad6bfcbd6bfcbd8",
    "bec7dcbec2e3bebcecbdb4f715f8a615e2b415cdc4",
  ].join(""),
};

const image = (mode: "L" | "RGB" | "RGBA", width: number, height: number, data: Uint8Array): PilImage =>
  mode === "L" ? greyImage(width, height, data) : { width, height, channels: mode.length, data, mode, transparency: false };

describe("Pillow's Image.resize", () => {
  const grey = image("L", 30, 20, pattern(600, 1));
  const small = image("L", 8, 5, pattern(40, 11));

  test("LANCZOS and BICUBIC, shrinking both ways, enlarging, and one axis only, give Pillow's samples", () => {
    expect(hex(resize(grey, 13, 9, "lanczos").data)).toBe(PILLOW.resize_L_lanczos_13x9);
    expect(hex(resize(grey, 13, 9).data)).toBe(PILLOW.resize_L_bicubic_13x9);
    expect(hex(resize(small, 13, 7, "lanczos").data)).toBe(PILLOW.resize_L8x5_lanczos_13x7);
    expect(hex(resize(small, 13, 7, "bicubic").data)).toBe(PILLOW.resize_L8x5_bicubic_13x7);
    expect(hex(resize(grey, 30, 7, "lanczos").data)).toBe(PILLOW.resize_L_lanczos_30x7);
  });

  test("each band of an RGB image is resized alike", () => {
    const out = resize(image("RGB", 17, 11, pattern(17 * 11 * 3, 2)), 8, 5, "lanczos");
    expect([out.width, out.height, out.mode]).toEqual([8, 5, "RGB"]);
    expect(hex(out.data)).toBe(PILLOW.resize_RGB_lanczos_8x5);
  });

  test("RGBA is resized premultiplied by alpha (transparent and opaque pixels among the others)", () => {
    const data = pattern(12 * 10 * 4, 3);
    for (let p = 0; p < 120; p++) if (p % 5 === 0) data[p * 4 + 3] = 0;
    for (let p = 1; p < 120; p += 5) data[p * 4 + 3] = 255;
    expect(hex(resize(image("RGBA", 12, 10, data), 7, 6).data)).toBe(PILLOW.resize_RGBA_bicubic_7x6);
  });

  test("the same size gives the image itself", () => {
    expect(resize(grey, 30, 20, "lanczos")).toBe(grey);
  });
});

describe("Pillow's conversions", () => {
  const rgb = image("RGB", 17, 11, pattern(17 * 11 * 3, 2));

  test("convert(\"L\") is ITU-R 601-2 luma in Pillow's fixed point, and ImageStat's mean of it", () => {
    expect(hex(toL(rgb).data)).toBe(PILLOW.RGB_to_L);
    expect(meanBrightness(rgb)).toBeCloseTo(123.524064171123, 10);
  });

  test('convert("HSV") in Pillow\'s single-precision arithmetic, and split() of its bands', () => {
    const hsv = toHSV(rgb);
    expect(hex(hsv.data)).toBe(PILLOW.RGB_to_HSV);
    expect(hex(band(hsv, 1).data)).toBe(hex(Uint8Array.from({ length: 17 * 11 }, (_, i) => hsv.data[i * 3 + 1]!)));
  });

  test('convert("RGB") drops alpha without compositing; convert("RGBA") of LA keeps its alpha', () => {
    const la: PilImage = { width: 2, height: 1, channels: 2, data: Uint8Array.from([10, 0, 200, 128]), mode: "LA", transparency: false };
    expect([...toRGB(la).data]).toEqual([10, 10, 10, 200, 200, 200]);
    expect([...toRGBA(la).data]).toEqual([10, 10, 10, 0, 200, 200, 200, 128]);
  });
});
