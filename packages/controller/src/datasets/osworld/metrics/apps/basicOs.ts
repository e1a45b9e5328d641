import { z } from "zod";
import { defineMetric, type MetricResult, type OsworldMetric } from "../../metric.js";
import { fail } from "../../../../evaluators/verdict.js";
import { rulesObject, show } from "../common/outcome.js";

/** `is_utc_0`: the 4th line of `timedatectl status` (the time zone) ends with `+0000)`. */
const isUtc0 = defineMetric({
  name: "is_utc_0",
  options: z.strictObject({}),
  async run(result): Promise<MetricResult> {
    if (typeof result !== "string") return fail("no timedatectl output");
    const line = result.split("\n")[3];
    if (line === undefined) return fail(`timedatectl output has fewer than 4 lines: ${show(result)}`);
    return line.endsWith("+0000)") ? 1 : fail(`time zone line is ${show(line.trim())}`);
  },
});

const ESCAPES: Record<string, string> = {
  n: "\n",
  t: "\t",
  r: "\r",
  "\\": "\\",
  "'": "'",
  '"': '"',
  "\n": "",
  a: "\x07",
  b: "\b",
  f: "\f",
  v: "\v",
  "0": "\0",
};

/**
 * Python's `eval` of what `gsettings get` prints for a string array (`['a.desktop', 'b.desktop']`):
 * a list or tuple of quoted string literals. Null for anything else (where OSWorld's eval would
 * raise, or give something that is not a list of strings, such as `@as []`).
 */
export function parsePyStringList(text: string): string[] | null {
  const t = text.trim();
  const m = /^(\[|\()([\s\S]*)(\]|\))$/.exec(t);
  if (!m || (m[1] === "[") !== (m[3] === "]")) return null;
  const out: string[] = [];
  const token = /\s*(?:'((?:[^'\\\n]|\\[\s\S])*)'|"((?:[^"\\\n]|\\[\s\S])*)")\s*(,|$)/y;
  const body = m[2]!;
  if (body.trim() === "") return [];
  let at = 0;
  while (at < body.length) {
    token.lastIndex = at;
    const s = token.exec(body);
    if (!s) return null;
    const raw = s[1] ?? s[2]!;
    out.push(
      raw.replaceAll(/\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|[\s\S])/g, (e, c: string) =>
        c.length > 1 ? String.fromCharCode(Number.parseInt(c.slice(1), 16)) : (ESCAPES[c] ?? e),
      ),
    );
    at = token.lastIndex;
    if (s[3] === "") break;
    if (body.slice(at).trim() === "") break;
  }
  // A tuple of one string needs its comma: `('a')` is a string, not a tuple.
  if (m[1] === "(" && out.length === 1 && !/,\s*$/.test(body)) return null;
  return at >= body.length || body.slice(at).trim() === "" ? out : null;
}

/** `check_gnome_favorite_apps`: the dock's favourites (gsettings output) are `rules.expected`, in any order, as many. */
const checkGnomeFavoriteApps = defineMetric({
  name: "check_gnome_favorite_apps",
  options: z.strictObject({}),
  async run(result, expected): Promise<MetricResult> {
    const want = rulesObject("check_gnome_favorite_apps", expected).expected;
    if (!Array.isArray(want)) throw new Error("check_gnome_favorite_apps: rules.expected must be a list");
    if (typeof result !== "string") return fail("no gsettings output");
    const apps = parsePyStringList(result);
    if (apps === null) return fail(`cannot read the favourites list ${show(result)}`);
    const same = apps.length === want.length && new Set(apps).size === new Set(want).size && apps.every((a) => want.includes(a));
    return same ? 1 : fail(`favourites are ${show(apps, 200)}, expected ${show(want, 200)}`);
  },
});

/** OSWorld's OS-settings metrics (`basic_os.py`). */
export const basicOsMetrics: OsworldMetric[] = [isUtc0, checkGnomeFavoriteApps];
