import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import JSZip from "jszip";
import { PDFDocument, StandardFonts } from "pdf-lib";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { greyImage } from "../../../packages/controller/src/datasets/pycompat/pilImage.js";
import { resize } from "../../../packages/controller/src/datasets/pycompat/pilResize.js";
import { structuralSimilarity } from "../../../packages/controller/src/datasets/pycompat/skimageSsim.js";
import { filesMetrics } from "../../../packages/controller/src/datasets/osworld/metrics/files.js";
import { scoreOf } from "../../../packages/controller/src/datasets/osworld/metric.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "osworld-files-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function file(name: string, content: Uint8Array | string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, content);
  return path;
}

const metric = (name: string) => filesMetrics.find((x) => x.name === name)!;

async function run(name: string, result: unknown, expected: unknown, options: unknown = {}) {
  const m = metric(name);
  return scoreOf(await m.run(result, expected, m.options.parse(options)));
}

/** A PDF with one page per list of lines. */
async function pdf(pages: string[][]): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const lines of pages) {
    const page = doc.addPage([600, 800]);
    for (const [i, text] of lines.entries()) page.drawText(text, { x: 50, y: 740 - 20 * i, font, size: 12 });
  }
  return doc.save();
}

/** A ustar archive of files (name, content). */
function tar(files: Array<[string, string]>): Buffer {
  const blocks: Buffer[] = [];
  for (const [name, content] of files) {
    const h = Buffer.alloc(512);
    h.write(name, 0);
    h.write("0000644\0", 100);
    h.write("0000000\0", 108);
    h.write("0000000\0", 116);
    h.write(`${content.length.toString(8).padStart(11, "0")}\0`, 124);
    h.write("00000000000\0", 136);
    h.write("0", 156);
    h.write("ustar\0", 257);
    h.write("00", 263);
    h.fill(32, 148, 156);
    const sum = h.reduce((a, b) => a + b, 0);
    h.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148);
    const body = Buffer.alloc(Math.ceil(content.length / 512) * 512);
    body.write(content);
    blocks.push(h, body);
  }
  return Buffer.concat([...blocks, Buffer.alloc(1024)]);
}

describe("compare_pdfs", () => {
  test("the same text scores 1, whatever the layout's bytes", async () => {
    const gold = await file("gold.pdf", await pdf([["Invoice 243729", "Total: 42 EUR"], ["Page two"]]));
    const same = await file("same.pdf", await pdf([["Invoice 243729", "Total: 42 EUR"], ["Page two"]]));
    expect((await run("compare_pdfs", same, gold)).score).toBe(1);
  });
  test("partly different text scores rapidfuzz's ratio; an unreadable or missing PDF scores 0", async () => {
    const gold = await file("gold2.pdf", await pdf([["abcdefghij"]]));
    const other = await run("compare_pdfs", await file("other.pdf", await pdf([["abcdefghXY"]])), gold);
    expect(other.score).toBeCloseTo(0.8, 12);
    expect(other.reason).toContain("text similarity 0.8000");
    const broken = await run("compare_pdfs", await file("broken.pdf", "not a pdf"), gold);
    expect(broken.score).toBe(0);
    expect((await run("compare_pdfs", null, gold)).score).toBe(0);
  });
  test("lists of PDFs: the mean over the pairs", async () => {
    const [g1, g2] = [await file("g1.pdf", await pdf([["one"]])), await file("g2.pdf", await pdf([["two"]]))];
    expect((await run("compare_pdfs", [g1, g2], [g1, g2])).score).toBe(1);
    expect((await run("compare_pdfs", [g1, null], [g1, g2])).score).toBe(0.5);
  });
});

describe("compare_archive", () => {
  async function zip(files: Record<string, Uint8Array | string>): Promise<Uint8Array> {
    const z = new JSZip();
    for (const [name, content] of Object.entries(files)) z.file(name, content);
    return z.generateAsync({ type: "uint8array" });
  }
  test("zip of PDFs under file_path: same names and texts pass", async () => {
    const files = { "lecture_slides/a.pdf": await pdf([["Lecture 1"]]), "lecture_slides/b.pdf": await pdf([["Lecture 2"]]) };
    const gold = await file("gold.zip", await zip(files));
    const pred = await file("pred.zip", await zip(files));
    expect((await run("compare_archive", pred, gold, { file_path: "lecture_slides", file_type: "pdf" })).score).toBe(1);
  });
  test("different names fail; different contents score the mean; tar.gz is read too", async () => {
    const gold = await file("g.zip", await zip({ "a.pdf": await pdf([["abcdefghij"]]), "b.pdf": await pdf([["same"]]) }));
    const renamed = await run("compare_archive", await file("r.zip", await zip({ "a.pdf": await pdf([["x"]]) })), gold, { file_type: "pdf" });
    expect(renamed.reason).toContain('holds ["a.pdf"]');
    const changed = await file("c.zip", await zip({ "a.pdf": await pdf([["abcdefghXY"]]), "b.pdf": await pdf([["same"]]) }));
    const mean = await run("compare_archive", changed, gold, { file_type: "pdf" });
    expect(mean.score).toBeCloseTo(0.9, 12);
    const goldTxt = await file(
      "t.tar.gz",
      gzipSync(
        tar([
          ["x.txt", "hello\n"],
          ["y.txt", "world\n"],
        ]),
      ),
    );
    expect(
      (
        await run(
          "compare_archive",
          await file(
            "p.tar",
            tar([
              ["x.txt", "hello\n"],
              ["y.txt", "world\n"],
            ]),
          ),
          goldTxt,
        )
      ).score,
    ).toBe(1);
    expect(
      (
        await run(
          "compare_archive",
          await file(
            "q.tar",
            tar([
              ["x.txt", "HELLO\n"],
              ["y.txt", "world\n"],
            ]),
          ),
          goldTxt,
        )
      ).score,
    ).toBe(0.5);
    expect((await run("compare_archive", await file("q2.tar", tar([["x.txt", "HELLO\n"]])), goldTxt, { ignore_case: true })).score).toBe(0);
    expect((await run("compare_archive", await file("junk.zip", "junk"), goldTxt)).reason).toContain("cannot unpack");
    expect((await run("compare_archive", null, goldTxt)).score).toBe(0);
  });
  test("file types without a ported comparison are reported unsupported; compare_pdfs takes no options, the others ignore those they do not read", () => {
    const m = metric("compare_archive");
    expect(m.unsupported?.(m.options.parse({ file_type: "docx" }))).toEqual(["compare_archive.file_type docx"]);
    expect(m.unsupported?.(m.options.parse({ file_type: "pdf" }))).toEqual([]);
    expect(() => m.options.parse({ file_type: "pdf", ignore_case: true })).toThrow(/takes no options/);
    expect(() => m.options.parse({ file_type: "pdf", extra: 1 })).toThrow(/takes no options/);
    expect(() => m.options.parse({ file_type: "image", ignore_case: true, extra: 1 })).not.toThrow();
    expect(() => m.options.parse({ file_type: "text", reference_base_result: 0.5 })).not.toThrow();
  });
});

describe("compare_images", () => {
  const W = 64;
  const H = 48;
  /** A grey pattern (RGB), with an optional dark square at (x, y). */
  async function image(name: string, opts: { square?: [number, number]; width?: number; height?: number; noise?: number } = {}) {
    const [w, h] = [opts.width ?? W, opts.height ?? H];
    const raw = Buffer.alloc(w * h * 3);
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        let v = Math.round(128 + 100 * Math.sin((x * W) / w / 5) * Math.cos((y * H) / h / 7));
        const [sx, sy] = opts.square ?? [-99, -99];
        if (x >= sx && x < sx + 16 && y >= sy && y < sy + 16) v = 10;
        if (opts.noise) v = Math.max(0, Math.min(255, v + (((x * 7919 + y * 104729) % 97) - 48) * opts.noise));
        raw.fill(v, (y * w + x) * 3, (y * w + x) * 3 + 3);
      }
    }
    return file(
      name,
      await sharp(raw, { raw: { width: w, height: h, channels: 3 } })
        .png()
        .toBuffer(),
    );
  }
  test("identical images score 1", async () => {
    expect((await run("compare_images", await image("a.png"), await image("b.png"))).score).toBe(1);
  });
  test("a changed image scores its SSIM; with reference_base_result, rescaled or 0", async () => {
    const gold = await image("gold.png");
    const marked = await run("compare_images", await image("m.png", { square: [20, 10] }), gold);
    expect(marked.score).toBeGreaterThan(0.3);
    expect(marked.score).toBeLessThan(0.95);
    expect(marked.reason).toMatch(/^SSIM 0\.\d{4}$/);
    const noisy = await image("n.png", { noise: 2 });
    const raw = (await run("compare_images", noisy, gold)).score;
    expect(raw).toBeLessThan(marked.score);
    const based = await run("compare_images", noisy, gold, { reference_base_result: 0.11 });
    expect(based.score).toBeCloseTo((raw - 0.11) / 0.89, 12);
    expect((await run("compare_images", noisy, gold, { reference_base_result: raw })).score).toBe(0);
    expect((await run("compare_images", null, gold)).score).toBe(0);
    expect((await run("compare_images", await file("x.png", "not an image"), gold)).reason).toContain("cannot read");
  });
  test("images of different sizes are both resized to the smaller (Pillow's LANCZOS)", async () => {
    const big = await image("big.png", { width: 2 * W, height: 2 * H });
    const r = await run("compare_images", big, await image("gold3.png"));
    expect(r.score).toBeGreaterThan(0.9);
    expect(r.score).toBeLessThan(1);
  });
  test("the Pillow resize keeps a flat image flat, and SSIM needs 7 × 7", () => {
    const flat = greyImage(30, 20, new Uint8Array(600).fill(77));
    expect([...resize(flat, 13, 9, "lanczos").data].every((v) => v === 77)).toBe(true);
    expect(resize(flat, 30, 20, "lanczos")).toBe(flat);
    const tiny = { width: 6, height: 6, data: new Uint8Array(36) };
    expect(() => structuralSimilarity(tiny, tiny)).toThrow(/win_size/);
  });
});
