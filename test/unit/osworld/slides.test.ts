import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import JSZip from "jszip";
import PptxGenJSModule from "pptxgenjs";
import sharp from "sharp";
import { beforeAll, describe, expect, test } from "vitest";
import { scoreOf } from "../../../packages/controller/src/datasets/osworld/metric.js";
import { readPresentation } from "../../../packages/controller/src/datasets/osworld/metrics/office/pptx.js";
import { slidesMetrics } from "../../../packages/controller/src/datasets/osworld/metrics/slides.js";

// pptxgenjs's types describe a CommonJS module; under ESM its default export is the class itself.
const PptxGenJS: typeof PptxGenJSModule.default = (PptxGenJSModule as any).default ?? PptxGenJSModule;
const dir = mkdtempSync(join(tmpdir(), "osworld-slides-"));
const metric = (name: string) => slidesMetrics.find((m) => m.name === name)!;
const compare = async (result: unknown, expected: unknown, options: Record<string, unknown> = {}) => {
  const m = metric("compare_pptx_files");
  return scoreOf(await m.run(result, expected, m.options.parse(options)));
};

let pngA: string;
beforeAll(async () => {
  const png = (r: number) =>
    sharp({ create: { width: 8, height: 8, channels: 3, background: { r, g: 0, b: 0 } } })
      .png()
      .toBuffer();
  pngA = `image/png;base64,${(await png(255)).toString("base64")}`;
});

interface Deck {
  title?: string;
  titleSize?: number;
  titleBold?: boolean;
  titleAlign?: "left" | "center";
  titleX?: number;
  titleY?: number;
  notes?: string;
  background?: string;
  bullet?: boolean | { code: string };
  cellBold?: boolean;
  extraSlide?: boolean;
  picture?: { x: number; w: number; h?: number; data?: string };
}

let n = 0;
/** Writes a one- or two-slide deck with pptxgenjs; `edit` rewrites parts of the zip afterwards. */
async function deck(d: Deck = {}, edit?: (zip: JSZip) => Promise<void>): Promise<string> {
  const p = new PptxGenJS();
  const s = p.addSlide();
  if (d.background) s.background = { color: d.background };
  s.addText([{ text: d.title ?? "Quarterly report", options: { fontSize: d.titleSize ?? 28, bold: d.titleBold ?? true, fontFace: "Arial" } }], {
    x: d.titleX ?? 1,
    y: d.titleY ?? 0.5,
    w: 6,
    h: 1,
    align: d.titleAlign ?? "left",
  });
  s.addText("Revenue grew", { x: 1, y: 2, w: 6, h: 1, bullet: d.bullet ?? true });
  s.addTable(
    [
      [{ text: "Region", options: { bold: d.cellBold ?? true } }, { text: "Sales" }],
      [{ text: "North" }, { text: "12" }],
    ],
    { x: 1, y: 3.5, w: 6 },
  );
  if (d.picture) s.addImage({ data: d.picture.data ?? pngA, x: d.picture.x, y: 5, w: d.picture.w, h: d.picture.h ?? 1 });
  s.addNotes(d.notes ?? "Speak slowly");
  if (d.extraSlide) p.addSlide().addText("Thanks", { x: 1, y: 1, w: 4, h: 1 });
  const zip = await JSZip.loadAsync((await p.write({ outputType: "nodebuffer" })) as Buffer);
  if (edit) await edit(zip);
  const path = join(dir, `deck${n++}.pptx`);
  writeFileSync(path, await zip.generateAsync({ type: "nodebuffer" }));
  return path;
}

async function editXml(zip: JSZip, part: string, f: (xml: string) => string): Promise<void> {
  zip.file(part, f(await zip.file(part)!.async("string")));
}

describe("compare_pptx_files", () => {
  test("the same deck matches", async () => {
    expect(await compare(await deck(), await deck())).toMatchObject({ score: 1 });
  });

  test("different title text fails", async () => {
    const r = await compare(await deck({ title: "Annual report" }), await deck());
    expect(r.score).toBe(0);
    expect(r.reason).toMatch(/slide 1: shape 1 .*text differs/);
  });

  test("a different font size fails, unless examine_font_size is off", async () => {
    const result = await deck({ titleSize: 32 });
    expect(await compare(result, await deck())).toMatchObject({ score: 0, reason: expect.stringMatching(/font size differs \(3200 vs 2800/) });
    expect((await compare(result, await deck(), { examine_font_size: false })).score).toBe(1);
  });

  test("bold off against bold on fails; None and False are the same", async () => {
    expect((await compare(await deck({ titleBold: false }), await deck())).reason).toMatch(/bold differs/);
    const noB = await deck({}, (z) => editXml(z, "ppt/slides/slide1.xml", (x) => x.replace(' b="1"', "")));
    const falseB = await deck({}, (z) => editXml(z, "ppt/slides/slide1.xml", (x) => x.replace(' b="1"', ' b="0"')));
    expect((await compare(noB, falseB)).score).toBe(1);
  });

  test("a different number of slides fails; with examine_number_of_slides off the common slides are compared", async () => {
    const two = await deck({ extraSlide: true });
    expect(await compare(two, await deck())).toMatchObject({ score: 0, reason: "2 slides, expected 1" });
    expect((await compare(two, await deck(), { examine_number_of_slides: false })).score).toBe(1);
  });

  test("a moved shape fails by default and passes with examine_shape off", async () => {
    const moved = await deck({ titleX: 2 });
    expect((await compare(moved, await deck())).reason).toMatch(/position\/size differs/);
    expect((await compare(moved, await deck(), { examine_shape: false })).score).toBe(1);
    // within approximately_tolerance (0.5% by default; 1% here): 1 in → 1.005 in is 0.5% of the larger value
    expect((await compare(await deck({ titleX: 1.005 }), await deck(), { approximately_tolerance: 0.01 })).score).toBe(1);
  });

  test("notes and background colours are compared, each with its switch", async () => {
    const notes = await deck({ notes: "Speak fast" });
    expect((await compare(notes, await deck())).reason).toMatch(/notes differ/);
    expect((await compare(notes, await deck(), { examine_note: false })).score).toBe(1);
    const red = await deck({ background: "FF0000" });
    expect((await compare(red, await deck({ background: "00FF00" }))).reason).toMatch(/background colour differs \(FF0000 vs 00FF00\)/);
    expect((await compare(red, await deck({ background: "00FF00" }), { examine_background_color: false })).score).toBe(1);
  });

  test("a table cell's bold is compared even with examine_font_bold off (as OSWorld does)", async () => {
    const r = await compare(await deck({ cellBold: false }), await deck(), { examine_font_bold: false });
    expect(r).toMatchObject({ score: 0, reason: expect.stringMatching(/table cell \[0,0\].*bold differs/) });
  });

  test("bullet characters are compared unless examine_bullets is off", async () => {
    const square = await deck({ bullet: { code: "25AA" } });
    expect((await compare(square, await deck())).reason).toMatch(/bullet of "Revenue grew" differs/);
    expect((await compare(square, await deck(), { examine_bullets: false })).score).toBe(1);
  });

  test("alignment: centred against left fails; None counts as left", async () => {
    expect((await compare(await deck({ titleAlign: "center" }), await deck())).reason).toMatch(/alignment differs \(ctr vs l\)/);
    expect((await compare(await deck({ titleAlign: "center" }), await deck(), { examine_alignment: false })).score).toBe(1);
    const noAlgn = await deck({}, (z) => editXml(z, "ppt/slides/slide1.xml", (x) => x.replace('algn="l" ', "")));
    expect((await compare(noAlgn, await deck())).score).toBe(1);
  });

  test("examine_image_size: a resized picture fails, a moved one passes (with examine_shape off)", async () => {
    const o = { examine_shape: false, examine_image_size: true };
    const expected = await deck({ picture: { x: 1, w: 1 } });
    expect((await compare(await deck({ picture: { x: 1, w: 2 } }), expected, o)).reason).toMatch(/picture size differs/);
    expect((await compare(await deck({ picture: { x: 1.5, w: 1 } }), expected, o)).score).toBe(1);
  });

  test("examine_modify_height: only a non-text shape's height is checked", async () => {
    const o = { examine_shape: false, examine_modify_height: true };
    const expected = await deck({ picture: { x: 1, w: 1 } });
    expect((await compare(await deck({ picture: { x: 3, w: 2 } }), expected, o)).score).toBe(1);
    const taller = await deck({ picture: { x: 1, w: 1, h: 2 } });
    expect((await compare(taller, expected, o)).reason).toMatch(/height differs/);
  });

  test("examine_title_bottom_position: the 'Product Comparison' title must end up lower, and in the bottom part", async () => {
    const o = { examine_shape: false, examine_title_bottom_position: true };
    const original = await deck({ title: "Product Comparison" });
    expect((await compare(await deck({ title: "Product Comparison", titleY: 4.5 }), original, o)).score).toBe(1);
    expect((await compare(await deck({ title: "Product Comparison", titleY: 2 }), original, o)).reason).toMatch(/title was not moved below/);
    expect((await compare(original, original, o)).reason).toMatch(/title was not moved below/);
  });

  test("a missing or unreadable file scores 0", async () => {
    expect((await compare(null, await deck())).score).toBe(0);
    const junk = join(dir, "junk.pptx");
    writeFileSync(junk, "not a zip");
    expect(await compare(junk, await deck())).toMatchObject({ score: 0, reason: expect.stringMatching(/not a \.pptx/) });
  });

  test("the options are OSWorld's, with its defaults; unknown keys are dropped, as its **options ignores them", () => {
    const o = metric("compare_pptx_files").options;
    expect(o.parse({})).toMatchObject({ examine_shape: true, examine_modify_height: false, approximately_tolerance: 0.005 });
    expect(() => o.parse({ examine_shape_lenient_height: true, _note: "see slides.py" })).not.toThrow();
    expect(o.parse({ examine_everything: false })).toEqual(o.parse({}));
    expect(() => o.parse({ examine_shape: "no" })).toThrow();
  });
});

describe("the pptx reader", () => {
  test("a placeholder without a position takes its layout placeholder's", async () => {
    const path = await deck({}, async (z) => {
      await editXml(z, "ppt/slides/slide1.xml", (x) =>
        x.replace(/<p:nvPr><\/p:nvPr><\/p:nvSpPr><p:spPr><a:xfrm>.*?<\/a:xfrm>/, '<p:nvPr><p:ph type="title"/></p:nvPr></p:nvSpPr><p:spPr>'),
      );
      const ph =
        '<p:sp><p:nvSpPr><p:cNvPr id="2" name="T"/><p:cNvSpPr/><p:nvPr><p:ph type="title"/></p:nvPr></p:nvSpPr>' +
        '<p:spPr><a:xfrm><a:off x="11" y="22"/><a:ext cx="33" cy="44"/></a:xfrm></p:spPr></p:sp>';
      await editXml(z, "ppt/slideLayouts/slideLayout1.xml", (x) => x.replace("</p:spTree>", `${ph}</p:spTree>`));
    });
    const shape = (await readPresentation(path))!.slides[0]!.shapes[0]!;
    expect(shape).toMatchObject({ shapeType: 14, left: 11, top: 22, width: 33, height: 44, text: "Quarterly report" });
    expect(readFileSync(path).length).toBeGreaterThan(0);
  });
});

describe("check_auto_saving_time", () => {
  const xcu = (value: string) => {
    const path = join(dir, `registry${n++}.xcu`);
    writeFileSync(
      path,
      `<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema">
<item oor:path="/org.openoffice.Office.Common/Misc"><prop oor:name="FirstRun" oor:op="fuse"><value>false</value></prop></item>
${value}
</oor:items>`,
    );
    return path;
  };
  const interval = (v: string) =>
    `<item oor:path="/org.openoffice.Office.Common/Save/Document"><prop oor:name="AutoSaveTimeIntervall" oor:op="fuse"><value>${v}</value></prop></item>`;
  const run = async (path: unknown) => scoreOf(await metric("check_auto_saving_time").run(path, { minutes: 3 }, {}));

  test("the interval set to the expected minutes passes", async () => {
    expect((await run(xcu(interval("3")))).score).toBe(1);
  });

  test("another interval fails", async () => {
    expect(await run(xcu(interval("10")))).toMatchObject({ score: 0, reason: expect.stringMatching(/"10", expected 3/) });
  });

  test("no interval set, or no file, fails", async () => {
    expect(await run(xcu(""))).toMatchObject({ score: 0, reason: "AutoSaveTimeIntervall is not set" });
    expect((await run(null)).score).toBe(0);
  });
});
