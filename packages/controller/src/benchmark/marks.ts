import type { Screenshot } from "../env/index.js";

/** A widget's box on the screen and its number (set-of-marks). */
export interface Mark {
  n: number;
  x: number;
  y: number;
  width: number;
  height: number;
  /** The widget's role as the tree's line gives it ("push-button"); {@link marksOf} sets it. */
  role?: string;
  /** The widget's accessible name as the tree's line gives it; {@link marksOf} sets it. */
  name?: string;
}

/** The boxes of a linearised tree's lines (position and size are its last two fields, tag and name its first two), numbered from 1. */
export function marksOf(linearized: string): { numbered: string; marks: Mark[] } {
  const [header = "", ...rows] = linearized.split("\n");
  const marks: Mark[] = [];
  const numbered = rows.map((row, i) => {
    const m = /\((-?\d+), (-?\d+)\)\t\((\d+), (\d+)\)$/.exec(row);
    const [role = "", name = ""] = row.split("\t");
    if (m) marks.push({ n: i + 1, x: Number(m[1]), y: Number(m[2]), width: Number(m[3]), height: Number(m[4]), role, name });
    return `${i + 1}\t${row}`;
  });
  return { numbered: [`mark\t${header}`, ...numbered].join("\n"), marks };
}

const escapeXml = (s: string) => s.replace(/[<>&]/g, (c) => (c === "<" ? "&lt;" : c === ">" ? "&gt;" : "&amp;"));

/** Draws each mark's box and number over the screenshot, in image pixels; the format is kept. */
export async function drawMarks(shot: Screenshot, marks: readonly Mark[]): Promise<Screenshot> {
  if (marks.length === 0 || (shot.format !== "jpeg" && shot.format !== "png" && shot.format !== "webp")) return shot;
  const s = shot.scale;
  const shapes = marks.map((m) => {
    const x = Math.round((m.x - shot.source.x) * s);
    const y = Math.round((m.y - shot.source.y) * s);
    const w = Math.max(1, Math.round(m.width * s));
    const h = Math.max(1, Math.round(m.height * s));
    const label = escapeXml(String(m.n));
    const lw = 7 * label.length + 6;
    return (
      `<rect x="${x}" y="${y}" width="${w}" height="${h}" fill="none" stroke="#e0007a" stroke-width="2"/>` +
      `<rect x="${x}" y="${Math.max(0, y - 14)}" width="${lw}" height="14" fill="#e0007a"/>` +
      `<text x="${x + 3}" y="${Math.max(0, y - 14) + 11}" font-family="sans-serif" font-size="11" fill="#fff">${label}</text>`
    );
  });
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${shot.width}" height="${shot.height}">${shapes.join("")}</svg>`;
  // Loaded on first use: only runs with set-of-marks draw.
  const { default: sharp } = await import("sharp");
  const img = sharp(shot.data).composite([{ input: Buffer.from(svg), left: 0, top: 0 }]);
  const data = await (shot.format === "jpeg" ? img.jpeg({ quality: 80 }) : shot.format === "png" ? img.png() : img.webp()).toBuffer();
  return { ...shot, data };
}
