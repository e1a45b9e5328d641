import { openPackage, PythonWouldRaise } from "./package.js";
import { kid, kidPath, kids, leafText, type XEl } from "./xml.js";

/**
 * A .docx as python-docx's `Document(path)` shows it to OSWorld's document metrics: the body's
 * paragraphs (`doc.paragraphs`, with `paragraph.text` and `paragraph_format.line_spacing`), its
 * tables (`doc.tables`, with python-docx's merged-cell grid) and the images the document part
 * relates to.
 */

/** One body paragraph. */
export interface DocxParagraph {
  text: string;
  /**
   * `paragraph_format.line_spacing`: a multiple of single spacing (float) for `lineRule="auto"`,
   * else the EMU length, null when not set directly on the paragraph, or what python-docx raises.
   */
  lineSpacing: number | null | PythonWouldRaise;
}

/** One body table. */
export interface DocxTable {
  rows: number;
  columns: number;
  /** `table.cell(r, c).text`; raises like python-docx outside the cell grid. */
  cellText(row: number, col: number): string;
}

/** A document. */
export interface DocxDocument {
  paragraphs: DocxParagraph[];
  tables: DocxTable[];
  /** The blobs of the document part's image relationships, in relationship order. */
  images(): Promise<Buffer[]>;
}

/** python-docx's `run.text`: its text, tabs, line breaks (`w:br` of type textWrapping, `w:cr`) and non-breaking hyphens. */
export function runText(r: XEl): string {
  let s = "";
  for (const e of kids(r)) {
    if (e.tag === "w:t") s += leafText(e) ?? "";
    else if (e.tag === "w:tab" || e.tag === "w:ptab") s += "\t";
    else if (e.tag === "w:cr") s += "\n";
    else if (e.tag === "w:noBreakHyphen") s += "-";
    else if (e.tag === "w:br") s += (e.attrs["w:type"] ?? "textWrapping") === "textWrapping" ? "\n" : "";
  }
  return s;
}

/** `paragraph.text`: its runs and hyperlinks' runs, with tabs and line breaks as `\t` and `\n`. */
export function paragraphText(p: XEl): string {
  return kids(p)
    .map((e) => (e.tag === "w:r" ? runText(e) : e.tag === "w:hyperlink" ? kids(e, "w:r").map(runText).join("") : ""))
    .join("");
}

const EMU_PER_UNIT: Record<string, number> = { mm: 36000, cm: 360000, in: 914400, pt: 12700, pc: 152400, pi: 152400 };

/** `ST_SignedTwipsMeasure` to EMU: twips (635 EMU each), or a universal measure such as `12pt`. */
function twipsMeasure(v: string): number {
  if (/[imp]/.test(v)) {
    const unit = EMU_PER_UNIT[v.slice(-2)];
    if (unit === undefined) throw new PythonWouldRaise(`bad measure ${v}`);
    return Math.round(Number.parseFloat(v.slice(0, -2)) * unit);
  }
  if (!/^\s*[-+]?\d+\s*$/.test(v)) throw new PythonWouldRaise(`bad measure ${v}`);
  return Number.parseInt(v, 10) * 635;
}

function lineSpacingOf(p: XEl): number | null | PythonWouldRaise {
  try {
    return lineSpacing(p);
  } catch (e) {
    if (e instanceof PythonWouldRaise) return e;
    throw e;
  }
}

function lineSpacing(p: XEl): number | null {
  const spacing = kidPath(p, "w:pPr", "w:spacing");
  const line = spacing?.attrs["w:line"];
  if (line === undefined) return null;
  const emu = twipsMeasure(line);
  const rule = spacing!.attrs["w:lineRule"] ?? "auto";
  if (!["auto", "atLeast", "exact"].includes(rule)) throw new PythonWouldRaise(`bad w:lineRule ${rule} (ValueError)`);
  return rule === "auto" ? emu / 152400 : emu;
}

function tableOf(tbl: XEl): DocxTable {
  const trs = kids(tbl, "w:tr");
  const columns = kids(kid(tbl, "w:tblGrid"), "w:gridCol").length;
  let grid: (XEl | undefined)[] | undefined;
  const cells = () => {
    if (grid) return grid;
    grid = [];
    for (const tc of trs.flatMap((tr) => kids(tr, "w:tc"))) {
      const tcPr = kid(tc, "w:tcPr");
      const span = Number.parseInt(kid(tcPr, "w:gridSpan")?.attrs["w:val"] ?? "1", 10);
      const vMerge = kid(tcPr, "w:vMerge");
      const continues = vMerge !== undefined && (vMerge.attrs["w:val"] ?? "continue") === "continue";
      for (let i = 0; i < span; i++) {
        if (continues) {
          if (grid.length < columns) throw new PythonWouldRaise("table grid: a vertical merge continues nothing (IndexError)");
          grid.push(grid[grid.length - columns]);
        } else grid.push(i > 0 ? grid[grid.length - 1] : tc);
      }
    }
    return grid;
  };
  return {
    rows: trs.length,
    columns,
    cellText(row, col) {
      const tc = cells()[col + row * columns];
      if (!tc) throw new PythonWouldRaise(`table.cell(${row}, ${col}) is outside the cell grid (IndexError)`);
      return kids(tc, "w:p").map(paragraphText).join("\n");
    },
  };
}

/** Opens a document; `undefined` when it is missing or not a readable .docx (python-docx raises). */
export async function readDocx(path: string): Promise<DocxDocument | undefined> {
  const pkg = await openPackage(path);
  if (!pkg) return undefined;
  const docRel = (await pkg.rels("")).find((r) => r.type.endsWith("/officeDocument") && !r.external);
  const root = docRel ? await pkg.xml(docRel.target).catch(() => undefined) : undefined;
  const body = kid(root, "w:body");
  if (!docRel || !root || root.tag !== "w:document") return undefined;
  return {
    paragraphs: kids(body, "w:p").map((p) => ({ text: paragraphText(p), lineSpacing: lineSpacingOf(p) })),
    tables: kids(body, "w:tbl").map(tableOf),
    async images() {
      const out: Buffer[] = [];
      for (const rel of await pkg.rels(docRel.target)) {
        if (!rel.type.includes("image")) continue;
        if (rel.external) throw new PythonWouldRaise(`image relationship ${rel.id} is external (no target part)`);
        const blob = await pkg.bytes(rel.target);
        if (!blob) throw new PythonWouldRaise(`image part ${rel.target} is missing (KeyError)`);
        out.push(blob);
      }
      return out;
    },
  };
}
