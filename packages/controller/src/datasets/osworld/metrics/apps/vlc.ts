import { z } from "zod";
import { defineMetric, type MetricResult, type OsworldMetric } from "../../metric.js";
import { fail } from "../../../../evaluators/verdict.js";
import { filePath, rulesObject, show } from "../common/outcome.js";
import { readText } from "./common.js";
import { pyStr } from "../../../pycompat/pyValues.js";
import { pyInt } from "../../../pycompat/pyNumbers.js";

/**
 * VLC's preferences file (vlcrc) read as OSWorld reads it: decoded as UTF-8 and split on `\n` (no
 * universal newlines; each line is stripped before use). Null when there is no file.
 */
async function vlcrcLines(result: unknown): Promise<string[] | null> {
  const path = filePath(result);
  if (path === undefined) return null;
  const text = await readText(path, false);
  return text === null ? null : text.split("\n");
}

/** `line.split('=')[-1].strip()`: the text after the last `=`, trimmed. */
function lastValue(line: string): string {
  return line.slice(line.lastIndexOf("=") + 1).trim();
}

/**
 * OSWorld's vlcrc setting lookup: the value on the LAST line containing `needle` anywhere (commented
 * lines such as `#qt-bgcone=1` included, as OSWorld does), else VLC's default.
 */
function lastSetting(lines: string[], needle: string, fallback: string): string {
  let value = fallback;
  for (const line of lines) if (line.includes(needle)) value = lastValue(line);
  return value;
}

/**
 * The rule's expected value as OSWorld compares it: an int (or bool) becomes `str(value)`, a string
 * stays, anything else (a float such as 1.0) never matches.
 */
function expectedSetting(rule: Record<string, unknown>, key: string): string | null {
  const v = rule[key];
  if (typeof v === "string") return v;
  if (typeof v === "boolean" || (typeof v === "number" && Number.isInteger(v))) return pyStr(v);
  return null;
}

/** One of the `check_qt_*`-style metrics: a vlcrc key compared with a rule value, with VLC's default when absent. */
function settingMetric(name: string, ruleKey: string, needle: string, fallback: string): OsworldMetric {
  return defineMetric({
    name,
    options: z.strictObject({}),
    // isinstance(1.0, int) is False: the rule's 1.0 is not "1".
    pythonFloats: true,
    async run(result, expected): Promise<MetricResult> {
      const rule = rulesObject(name, expected);
      const lines = await vlcrcLines(result);
      if (lines === null) return fail("no vlcrc file");
      const want = expectedSetting(rule, ruleKey);
      const got = lastSetting(lines, needle, fallback);
      return got === want ? 1 : fail(`${needle.replace(/=$/, "")} is ${show(got)}, expected ${show(rule[ruleKey])}`);
    },
  });
}

/** `is_vlc_recordings_folder`: the first uncommented line mentioning `input-record-path` sets `rules.recording_file_path`. */
const isVlcRecordingsFolder = defineMetric({
  name: "is_vlc_recordings_folder",
  options: z.strictObject({}),
  async run(result, expected): Promise<MetricResult> {
    const want = rulesObject("is_vlc_recordings_folder", expected).recording_file_path;
    const lines = await vlcrcLines(result);
    if (lines === null) return fail("no vlcrc file");
    for (const line of lines) {
      if (line.startsWith("#") || line.trim() === "") continue;
      if (line.includes("input-record-path")) {
        const got = lastValue(line);
        return got === want ? 1 : fail(`input-record-path is ${show(got)}, expected ${show(want)}`);
      }
    }
    return fail("input-record-path is not set");
  },
});

/**
 * `check_qt_slider_colours`: the slider colours equal `rules.expected_qt_slider_colours`
 * (`type: match`) or are all blackish (`type: blackish`, every value < 100).
 */
const checkQtSliderColours = defineMetric({
  name: "check_qt_slider_colours",
  options: z.strictObject({}),
  async run(result, expected): Promise<MetricResult> {
    const rule = rulesObject("check_qt_slider_colours", expected);
    const lines = await vlcrcLines(result);
    if (lines === null) return fail("no vlcrc file");
    // rule['type'] is read inside OSWorld's try: without one, the KeyError scores 0.
    if (!Object.hasOwn(rule, "type")) return fail("the rule has no type (OSWorld's KeyError scores 0)");
    // Another type falls through OSWorld's if/elif: it returns None, no score, which counts as a fail.
    if (rule.type !== "match" && rule.type !== "blackish")
      return fail(`rule type ${show(rule.type)} is neither match nor blackish: OSWorld returns None (no score)`);
    const colours = lastSetting(lines, "qt-slider-colours", "153;210;153;20;210;20;255;199;15;245;39;29");
    if (rule.type === "match") {
      return colours === rule.expected_qt_slider_colours ? 1 : fail(`qt-slider-colours is ${show(colours)}, expected ${show(rule.expected_qt_slider_colours)}`);
    }
    const values = colours.split(";").map(pyInt);
    if (values.some((v) => v === undefined)) return fail(`qt-slider-colours ${show(colours)} is not a list of integers`);
    // zip(values[0::3], values[1::3], values[2::3]): only whole triples count.
    const whole = values.slice(0, values.length - (values.length % 3)) as number[];
    const bright = whole.findIndex((v) => v >= 100);
    return bright < 0 ? 1 : fail(`qt-slider-colours ${show(colours)}: colour ${Math.floor(bright / 3) + 1} is not blackish (a value ≥ 100)`);
  },
});

/** A `{width, height}` from a window- or screen-size getter, or null. */
function sizeOf(x: unknown): { width: unknown; height: unknown } | null {
  return x !== null && typeof x === "object" && "width" in x && "height" in x ? (x as { width: unknown; height: unknown }) : null;
}

/** `is_vlc_fullscreen`: VLC's window size equals the screen size (OSWorld's getters give `{width, height}` for both). */
const isVlcFullscreen = defineMetric({
  name: "is_vlc_fullscreen",
  options: z.strictObject({}),
  async run(result, expected): Promise<MetricResult> {
    const a = sizeOf(result);
    const b = sizeOf(expected);
    if (a === null || b === null) return fail(a === null ? "no screen size" : "no VLC window size");
    return a.width === b.width && a.height === b.height ? 1 : fail(`window ${a.width}×${a.height} vs screen ${b.width}×${b.height}`);
  },
});

/** OSWorld's VLC settings metrics (`vlc.py`), which read vlcrc. */
export const vlcMetrics: OsworldMetric[] = [
  settingMetric("check_qt_bgcone", "expected_qt_bgcone", "qt-bgcone=", "1"),
  settingMetric("check_play_and_exit", "expected_play_and_exit", "play-and-exit=", "0"),
  settingMetric("check_qt_max_volume", "expected_qt_max_volume", "qt-max-volume=", "125"),
  settingMetric("check_qt_minimal_view", "expected_qt_minimal_view", "qt-minimal-view=", "0"),
  settingMetric("check_one_instance_when_started_from_file", "expected_one_instance_when_started_from_file", "one-instance-when-started-from-file=", "1"),
  isVlcRecordingsFolder,
  checkQtSliderColours,
  isVlcFullscreen,
];
