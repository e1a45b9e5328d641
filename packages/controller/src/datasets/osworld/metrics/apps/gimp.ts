import { z } from "zod";
import { defineMetric, type MetricResult, type OsworldMetric } from "../../metric.js";
import { fail } from "../../../../evaluators/verdict.js";
import { filePath, rulesObject, show } from "../common/outcome.js";
import { fileSize, readBytes, readText } from "./common.js";
import { pyLines } from "../../../pycompat/pyStr.js";
import { pyEqual } from "../../../pycompat/pyValues.js";
import { alphaBBox, imageFileFacts, imageSize } from "../../../pycompat/pilInfo.js";

/**
 * `check_config_status`: a line of GIMP's gimprc/sessionrc, `(key … value)`, has `rules.key` first
 * (or `rules.key[0] rules.key[1]` first when the key is a pair) and `rules.value` last, compared as
 * the whitespace-split words OSWorld makes (so `"Light"` keeps its quotes).
 */
const checkConfigStatus = defineMetric({
  name: "check_config_status",
  options: z.strictObject({}),
  async run(result, expected): Promise<MetricResult> {
    const rule = rulesObject("check_config_status", expected);
    const path = filePath(result);
    if (path === undefined) return fail("no config file");
    const text = await readText(path);
    if (text === null) return fail(`cannot read ${path}`);
    const key = rule.key;
    const pair = Array.isArray(key) && key.length === 2;
    for (const [n, line] of pyLines(text).entries()) {
      if (line.startsWith("#") || line === "\n") continue;
      // line.strip().lstrip('(').rstrip(')\n').split()
      const items = line
        .trim()
        .replace(/^\(+/, "")
        .replace(/[)\n]+$/, "")
        .split(/\s+/)
        .filter((s) => s !== "");
      // Where OSWorld's indexing raises (a blank-looking line, a one-word line for a key pair), it errors out.
      const breaks = (items.length === 0 && (pair || typeof key === "string")) || (pair && items.length === 1 && items[0] === key[0]);
      if (breaks) return fail(`line ${n + 1} ${show(line)} breaks OSWorld's parser`);
      const last = items[items.length - 1];
      if (typeof key === "string" && items[0] === key && last === rule.value) return 1;
      if (pair && items[0] === key[0] && items[1] === key[1] && last === rule.value) return 1;
    }
    return fail(`no line sets ${show(key)} to ${show(rule.value)}`);
  },
});

/**
 * `check_image_size`: the image is `rules.width` × `rules.height` (either may be absent). With
 * `rules.ignore_transparent` and an RGBA/LA image, or for any image with a transparent colour (as
 * OSWorld's operator precedence has it), the size is that of the box around non-transparent pixels.
 */
const checkImageSize = defineMetric({
  name: "check_image_size",
  options: z.strictObject({}),
  async run(result, expected): Promise<MetricResult> {
    const rule = rulesObject("check_image_size", expected);
    const path = filePath(result);
    const bytes = path === undefined ? null : await readBytes(path);
    if (bytes === null) return fail("no image file");
    const file = await imageFileFacts(bytes);
    let width: number;
    let height: number;
    let what = "image";
    try {
      if ((rule.ignore_transparent && file.alphaMode) || file.transparencyInfo) {
        const box = await alphaBBox(file.bytes);
        [width, height] = box === null ? [0, 0] : [box[2] - box[0], box[3] - box[1]];
        what = "non-transparent content";
      } else {
        ({ width, height } = await imageSize(file.bytes));
      }
    } catch (e) {
      return fail(`cannot read the image: ${(e as Error).message}`);
    }
    const heightOk = rule.height === undefined || rule.height === null || pyEqual(height, rule.height);
    const widthOk = rule.width === undefined || rule.width === null || pyEqual(width, rule.width);
    return heightOk && widthOk ? 1 : fail(`${what} is ${width}×${height}, expected ${show(rule.width ?? "any")}×${show(rule.height ?? "any")}`);
  },
});

/** `check_image_file_size`: the file is smaller than `rules.max_size` bytes. */
const checkImageFileSize = defineMetric({
  name: "check_image_file_size",
  options: z.strictObject({}),
  async run(result, expected): Promise<MetricResult> {
    const max = rulesObject("check_image_file_size", expected).max_size;
    if (typeof max !== "number") throw new Error("check_image_file_size: rules.max_size must be a number");
    const path = filePath(result);
    const size = path === undefined ? null : await fileSize(path);
    if (size === null) return fail("no image file");
    return size < max ? 1 : fail(`file is ${size} bytes, not under ${max}`);
  },
});

/** OSWorld's GIMP metrics on config files and image sizes (`gimp.py`). */
export const gimpMetrics: OsworldMetric[] = [checkConfigStatus, checkImageSize, checkImageFileSize];
