import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { defineMetric, type OsworldMetric } from "../metric.js";
import { fail } from "../../../evaluators/verdict.js";
import { show } from "./common/outcome.js";

/**
 * OSWorld's `compare_image_text` (docs.py) reads an image's text with EasyOCR's neural network, which
 * is not packaged for Debian. Pincer reads it with Tesseract (Debian's `tesseract-ocr`, English) on
 * the controller, where it also decodes videos: the image is data the agent left, and no task code
 * runs. The two engines do not always read the same text (docs/osworld.md), so this metric's
 * verdicts can differ from OSWorld's where the reading decides.
 */

/** Runs a program on the controller; its stdout, or why it failed. */
function runTool(cmd: string, args: string[], missing: string): Promise<{ ok: boolean; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString("utf8")));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
    child.on("error", (err: NodeJS.ErrnoException) => reject(err.code === "ENOENT" ? new Error(missing) : err));
    child.on("close", (code) => resolve({ ok: code === 0, stdout, stderr }));
  });
}

/** An X11 screen dump (XWD): `file` calls it "X-Window screen dump" (version 7 at offset 4, big-endian). */
const isXwd = (b: Buffer) => b.length >= 100 && b.readUInt32BE(4) === 7 && b.readUInt32BE(0) >= 100;

/**
 * The image's text as OSWorld joins EasyOCR's readings (`' '.join(texts)`): Tesseract's non-empty
 * lines, stripped, joined by a space; an X11 screen dump is converted to PNG first (OSWorld converts
 * it with its own XWD reader; Pincer with ffmpeg). Null when the image cannot be read.
 */
async function readText(path: string): Promise<string | null> {
  const dir = await mkdtemp(join(tmpdir(), "pincer-ocr-"));
  try {
    let image = path;
    if (isXwd(await readFile(path))) {
      const png = join(dir, "converted.png");
      const r = await runTool(
        "ffmpeg",
        ["-nostdin", "-v", "error", "-i", `file:${path}`, "-frames:v", "1", "-f", "image2", `file:${png}`],
        "ffmpeg is needed on the controller",
      );
      if (r.ok) image = png;
    }
    const missing = "tesseract is needed on the controller to read text in images (Debian: apt-get install tesseract-ocr)";
    const r = await runTool("tesseract", [image, "stdout", "-l", "eng"], missing);
    if (!r.ok) return null;
    return r.stdout
      .split("\n")
      .map((l) => l.trim())
      .filter((l) => l !== "")
      .join(" ");
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * `compare_image_text(image_path, rule)`: 1 when `rule.text` is in the text read from the image
 * (`rule.type` must be "text"); 0 when there is no image, it cannot be read, or the rule is not such
 * a rule (OSWorld catches the error and returns 0).
 */
const compareImageText = defineMetric({
  name: "compare_image_text",
  options: z.strictObject({}),
  async run(result, rule) {
    if (typeof result !== "string" || result === "") return fail("there is no image");
    try {
      await readFile(result);
    } catch {
      return fail(`${result} is not there`);
    }
    const text = await readText(result);
    if (text === null) return fail(`the OCR could not read ${result}`);
    const r = rule as { type?: unknown; text?: unknown } | null;
    if (typeof r !== "object" || r === null || Array.isArray(r)) return fail(`the rule ${show(rule)} is not a rules object (OSWorld catches the error: 0)`);
    if (r.type !== "text") return fail(`unsupported rule type ${show(r.type)} (OSWorld catches the ValueError: 0)`);
    if (typeof r.text !== "string") return fail(`the rule has no text (OSWorld catches the error: 0)`);
    return text.includes(r.text) ? 1 : fail(`${show(r.text)} is not in the text read: ${show(text, 200)}`);
  },
});

/** OSWorld's OCR metric. */
export const ocrMetrics: OsworldMetric[] = [compareImageText];
