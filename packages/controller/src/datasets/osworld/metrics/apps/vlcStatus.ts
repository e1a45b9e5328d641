import { readFile } from "node:fs/promises";
import { posix } from "node:path";
import { z } from "zod";
import { defineMetric, type MetricResult, type OsworldMetric } from "../../metric.js";
import { urlparse } from "../../../pycompat/pyUrl.js";
import { kids, leafText, parseXml, type XEl } from "../office/xml.js";
import { fail } from "../../../../evaluators/verdict.js";
import { filePath, rulesObject, show } from "../common/outcome.js";
import { pyStr } from "../../../pycompat/pyValues.js";

/**
 * OSWorld's VLC metrics on its web interface's status (`is_vlc_playing`) and on vlcrc's global
 * play/pause key (`check_global_key_play_pause`), vlc.py.
 */

/** ElementTree's `tree.find('information/category[@name=…]/info[@name=…]')` text, or null. */
function info(root: XEl, category: string, name: string): string | null {
  for (const cat of kids(kids(root, "information")[0], "category")) {
    if (cat.attrs.name !== category) continue;
    const el = kids(cat, "info").find((i) => i.attrs.name === name);
    if (el) return leafText(el);
  }
  return null;
}

/** The first non-empty of these `meta`/stream fields. */
function firstInfo(root: XEl, paths: Array<[string, string]>): string | null {
  for (const [c, n] of paths) {
    const v = info(root, c, n);
    if (v) return v;
  }
  return null;
}

/**
 * `is_vlc_playing(status_xml, rule)`: VLC is playing, and (type "file_name") the playing file's name
 * is `rule.file_name`, or (type "url") the stream is `rule.url` (contained, or its file name, or the
 * same host with the URL's path).
 */
const isVlcPlaying = defineMetric({
  name: "is_vlc_playing",
  options: z.strictObject({}),
  async run(result, expected): Promise<MetricResult> {
    const rule = rulesObject("is_vlc_playing", expected);
    const path = filePath(result);
    if (path === undefined) return fail("VLC's status could not be read (OSWorld raises)");
    let root: XEl;
    try {
      root = parseXml(new TextDecoder("utf-8", { fatal: true }).decode(await readFile(path)));
    } catch (e) {
      return fail(`VLC's status is not readable XML (OSWorld raises): ${(e as Error).message}`);
    }
    const state = kids(root, "state")[0];
    if (!state) return fail("VLC's status has no state (OSWorld raises)");
    if (leafText(state) !== "playing") return fail(`VLC is ${show(leafText(state))}, not playing`);
    if (rule.type === "file_name") {
      const file = firstInfo(
        root,
        ["filename", "title", "uri", "location", "name"].map((n) => ["meta", n] as [string, string]),
      );
      if (!file) return fail("VLC's status names no file");
      const want = String(rule.file_name);
      if (posix.basename(file) === want || file.endsWith(want)) return 1;
      return fail(`VLC plays ${show(file)}, expected ${show(want)}`);
    }
    if (rule.type === "url") {
      const paths: Array<[string, string]> = [
        ...["url", "URI", "location", "title", "filename"].map((n) => ["meta", n] as [string, string]),
        ...["Codec", "Type", "Language"].map((n) => ["Stream 0", n] as [string, string]),
      ];
      const got = firstInfo(root, paths);
      if (!got) return fail("VLC's status names no stream");
      const want = String(rule.url);
      if (got.includes(want) || got.endsWith(want)) return 1;
      try {
        const e = urlparse(want);
        if (got === posix.basename(e.path)) return 1;
        if (got.includes("://")) {
          const a = urlparse(got);
          if (e.netloc === a.netloc && a.path.includes(e.path)) return 1;
        }
      } catch {
        // OSWorld ignores a URL it cannot parse here.
      }
      return fail(`VLC plays ${show(got)}, expected ${show(want)}`);
    }
    return fail(`unknown rule type ${show(rule.type)}`);
  },
});

/** `check_global_key_play_pause(vlcrc, rule)`: a global play/pause key is set ("1") or not ("0"), as the last `global-key-play-pause=` line says. */
const checkGlobalKeyPlayPause = defineMetric({
  name: "check_global_key_play_pause",
  options: z.strictObject({}),
  // isinstance(1.0, int) is False: the rule's 1.0 stays a float, which no "0" or "1" equals.
  pythonFloats: true,
  async run(result, expected): Promise<MetricResult> {
    const rule = rulesObject("check_global_key_play_pause", expected);
    if (!Object.hasOwn(rule, "expected_global_key_play_pause")) throw new Error('check_global_key_play_pause: the rules need "expected_global_key_play_pause"');
    let want = rule.expected_global_key_play_pause;
    // An int (or bool: str(True) is "True") becomes its str(); a float (a PyFloat here) stays as it is.
    if (typeof want === "number" || typeof want === "boolean") want = pyStr(want);
    const path = filePath(result);
    if (path === undefined) return fail("no vlcrc (OSWorld raises)");
    let text: string;
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(await readFile(path));
    } catch (e) {
      return fail(`vlcrc cannot be read (OSWorld raises): ${(e as Error).message}`);
    }
    let set = "0";
    for (const line of text.split("\n")) if (line.includes("global-key-play-pause=")) set = line.split("=").pop()!.trim() === "" ? "0" : "1";
    return set === want ? 1 : fail(`the global play/pause key is ${set === "1" ? "set" : "not set"}, expected ${show(want)}`);
  },
});

/** OSWorld's VLC status metrics. */
export const vlcStatusMetrics: OsworldMetric[] = [isVlcPlaying, checkGlobalKeyPlayPause];
