import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Document, ImageRun, LineRuleType, Packer, Paragraph, Table, TableCell, TableRow, TextRun } from "docx";
import JSZip from "jszip";
import sharp from "sharp";
import { describe, expect, test } from "vitest";
import { scoreOf } from "../../../packages/controller/src/datasets/osworld/metric.js";
import { docsMetrics } from "../../../packages/controller/src/datasets/osworld/metrics/docs.js";
import { readDocx } from "../../../packages/controller/src/datasets/osworld/metrics/office/docx.js";
import { fuzzRatio } from "../../../packages/controller/src/datasets/pycompat/similarity.js";

const dir = mkdtempSync(join(tmpdir(), "osworld-docs-"));
const run = async (name: string, result: unknown, expected: unknown, options: Record<string, unknown> = {}) => {
  const m = docsMetrics.find((x) => x.name === name)!;
  return scoreOf(await m.run(result, expected, m.options.parse(options)));
};

type Block = string | { text: string; line?: number; rule?: "auto" | "exact" } | { table: string[][] } | { image: Buffer };

let n = 0;
/** Writes a .docx with the `docx` package: paragraphs (optionally with line spacing), tables and images. */
async function docx(blocks: Block[], ext = ".docx"): Promise<string> {
  const children = blocks.map((b) => {
    if (typeof b === "string") return new Paragraph({ children: [new TextRun(b)] });
    if ("table" in b) {
      const rows = b.table.map((r) => new TableRow({ children: r.map((c) => new TableCell({ children: [new Paragraph(c)] })) }));
      return new Table({ rows, columnWidths: b.table[0]!.map(() => 2000) });
    }
    if ("image" in b) return new Paragraph({ children: [new ImageRun({ type: "png", data: b.image, transformation: { width: 20, height: 20 } })] });
    const rule = b.rule === "exact" ? LineRuleType.EXACT : LineRuleType.AUTO;
    return new Paragraph({ children: [new TextRun(b.text)], spacing: b.line === undefined ? undefined : { line: b.line, lineRule: rule } });
  });
  const path = join(dir, `doc${n++}${ext}`);
  writeFileSync(path, await Packer.toBuffer(new Document({ sections: [{ children }] })));
  return path;
}

const png = (r: number, width = 6) =>
  sharp({ create: { width, height: 6, channels: 3, background: { r, g: 40, b: 40 } } })
    .png()
    .toBuffer();

describe("the docx reader", () => {
  test("paragraph text joins runs and hyperlinks, with tabs and line breaks; table cells follow python-docx's merged grid", async () => {
    const path = await docx([
      "x",
      {
        table: [
          ["a", "b"],
          ["c", "d"],
        ],
      },
    ]);
    const zip = await JSZip.loadAsync(await Packer.toBuffer(new Document({ sections: [{ children: [new Paragraph("y")] }] })));
    const body =
      '<w:p><w:r><w:t xml:space="preserve">A </w:t><w:tab/><w:t>B</w:t><w:br/><w:br w:type="page"/></w:r>' +
      '<w:hyperlink r:id="x"><w:r><w:t>link</w:t></w:r></w:hyperlink></w:p>' +
      "<w:tbl><w:tblGrid><w:gridCol/><w:gridCol/></w:tblGrid>" +
      '<w:tr><w:tc><w:tcPr><w:gridSpan w:val="2"/><w:vMerge w:val="restart"/></w:tcPr><w:p><w:r><w:t>top</w:t></w:r></w:p></w:tc></w:tr>' +
      '<w:tr><w:tc><w:tcPr><w:gridSpan w:val="2"/><w:vMerge/></w:tcPr><w:p/></w:tc></w:tr></w:tbl>';
    const xml = (await zip.file("word/document.xml")!.async("string")).replace(/<w:body>.*<w:sectPr/s, `<w:body>${body}<w:sectPr`);
    zip.file("word/document.xml", xml);
    const hand = join(dir, "hand.docx");
    writeFileSync(hand, await zip.generateAsync({ type: "nodebuffer" }));
    const doc = (await readDocx(hand))!;
    expect(doc.paragraphs.map((p) => p.text)).toEqual(["A \tB\nlink"]);
    expect([0, 1].flatMap((r) => [0, 1].map((c) => doc.tables[0]!.cellText(r, c)))).toEqual(["top", "top", "top", "top"]);
    expect((await readDocx(path))!.tables[0]!.cellText(1, 0)).toBe("c");
  });

  test("fuzz.ratio is rapidfuzz's normalized Indel similarity (0-100)", () => {
    expect(fuzzRatio("", "")).toBe(100);
    expect(fuzzRatio("this is a test", "this is a test!")).toBeCloseTo(100 * (28 / 29), 10);
    expect(fuzzRatio("kitten", "sitting")).toBeCloseTo(100 * (1 - 5 / 13), 10);
    const long = "lorem ipsum dolor sit amet ".repeat(20);
    expect(fuzzRatio(long, `${long}x`)).toBeCloseTo(100 * (1 - 1 / (2 * long.length + 1)), 10);
  });
});

describe("compare_docx_files", () => {
  test("the same paragraphs match, whitespace collapsed by default", async () => {
    expect((await run("compare_docx_files", await docx(["Hello  world", "Bye"]), await docx(["Hello world", "Bye"]))).score).toBe(1);
  });

  test("different text fails", async () => {
    expect(await run("compare_docx_files", await docx(["Hello world"]), await docx(["Hello there"]))).toMatchObject({ score: 0 });
  });

  test("with ignore_blanks off, paragraph counts and exact texts must match", async () => {
    const o = { ignore_blanks: false };
    expect(await run("compare_docx_files", await docx(["Hello world", ""]), await docx(["Hello world"]), o)).toMatchObject({
      score: 0,
      reason: "2 paragraphs, expected 1",
    });
    expect((await run("compare_docx_files", await docx(["Hello  world"]), await docx(["Hello world"]), o)).reason).toMatch(/paragraph 1 is "Hello {2}world"/);
    expect((await run("compare_docx_files", await docx(["HELLO"]), await docx(["hello"]), { ...o, ignore_case: true })).score).toBe(1);
  });

  test("ignore_order sorts paragraphs; delete_empty_lines drops blank ones", async () => {
    const swapped = await docx(["b", "a"]);
    expect((await run("compare_docx_files", swapped, await docx(["a", "b"]))).score).toBe(0);
    expect((await run("compare_docx_files", swapped, await docx(["a", "b"]), { ignore_order: true })).score).toBe(1);
    expect(
      (await run("compare_docx_files", await docx(["a", " ", "b"]), await docx(["a", "b"]), { ignore_blanks: false, delete_empty_lines: true })).score,
    ).toBe(1);
  });

  test("fuzzy_match and content_only return the similarity", async () => {
    const r = await run("compare_docx_files", await docx(["this is a test"]), await docx(["this is a test!"]), { fuzzy_match: true });
    expect(r.score).toBeCloseTo(0.9655172413793104, 12);
    const c = await run("compare_docx_files", await docx(["Kitten"]), await docx(["sitting"]), { content_only: true, ignore_case: true });
    expect(c.score).toBeCloseTo(1 - 5 / 13, 12);
  });

  test("missing files and non-docx paths score 0", async () => {
    expect((await run("compare_docx_files", null, await docx(["a"]))).score).toBe(0);
    expect((await run("compare_docx_files", await docx(["a"], ".doc"), await docx(["a"]))).reason).toMatch(/unsupported file types/);
  });
});

describe("compare_docx_tables", () => {
  const t = (cell: string) =>
    docx([
      "intro",
      {
        table: [
          ["Name", "Price"],
          ["Tea", cell],
        ],
      },
    ]);
  test("the same tables match (cell text stripped)", async () => {
    expect((await run("compare_docx_tables", await t(" 3 "), await t("3"))).score).toBe(1);
  });
  test("a different cell fails", async () => {
    expect((await run("compare_docx_tables", await t("4"), await t("3"))).reason).toMatch(/cell \(1, 1\) is "4", expected "3"/);
  });
  test("a different table shape or count fails", async () => {
    expect((await run("compare_docx_tables", await docx([{ table: [["a", "b"]] }]), await docx([{ table: [["a"], ["b"]] }]))).reason).toMatch(
      /1×2, expected 2×1/,
    );
    expect((await run("compare_docx_tables", await docx(["no table"]), await t("3"))).reason).toBe("0 tables, expected 1");
  });
});

describe("compare_line_spacing", () => {
  test("the same text and spacing match", async () => {
    const d = () => docx([{ text: "One", line: 360 }, "Two"]);
    expect((await run("compare_line_spacing", await d(), await d())).score).toBe(1);
  });
  test("a different spacing fails (1.5 lines against double, or against exactly 18pt)", async () => {
    const expected = await docx([{ text: "One", line: 480 }, "Two"]);
    expect((await run("compare_line_spacing", await docx([{ text: "One", line: 360 }, "Two"]), expected)).reason).toMatch(/line spacing 1.5, expected 2/);
    expect((await run("compare_line_spacing", await docx([{ text: "One", line: 480, rule: "exact" }, "Two"]), expected)).score).toBe(0);
  });
  test("a different text fails first", async () => {
    expect((await run("compare_line_spacing", await docx([{ text: "Uno", line: 480 }]), await docx([{ text: "One", line: 480 }]))).reason).toMatch(
      /texts differ/,
    );
  });
});

describe("compare_docx_images", () => {
  test("the same images match", async () => {
    const img = await png(200);
    expect((await run("compare_docx_images", await docx(["a", { image: img }]), await docx(["b", { image: img }]))).score).toBe(1);
  });
  test("different pixels or sizes fail", async () => {
    const expected = await docx([{ image: await png(200) }]);
    expect((await run("compare_docx_images", await docx([{ image: await png(20) }]), expected)).reason).toMatch(/pixels differ/);
    expect((await run("compare_docx_images", await docx([{ image: await png(200, 7) }]), expected)).reason).toMatch(/sizes differ/);
  });
  test("a missing image fails", async () => {
    expect((await run("compare_docx_images", await docx(["no image"]), await docx([{ image: await png(200) }]))).reason).toBe("0 images, expected 1");
  });
});

describe("compare_docx_files_and_ignore_new_lines", () => {
  test("empty paragraphs are ignored", async () => {
    expect((await run("compare_docx_files_and_ignore_new_lines", await docx(["a", "", "b"]), await docx(["a", "b"]), { ignore_blanks: false })).score).toBe(1);
  });
  test("different text fails, with or without ignore_blanks", async () => {
    expect((await run("compare_docx_files_and_ignore_new_lines", await docx(["a", "c"]), await docx(["a", "b"]), { ignore_blanks: false })).score).toBe(0);
    expect((await run("compare_docx_files_and_ignore_new_lines", await docx(["a c"]), await docx(["a", "b"]))).score).toBe(0);
  });
  test("whitespace-only paragraphs count with ignore_blanks off", async () => {
    expect((await run("compare_docx_files_and_ignore_new_lines", await docx(["a", " ", "b"]), await docx(["a", "b"]), { ignore_blanks: false })).score).toBe(0);
  });
});
