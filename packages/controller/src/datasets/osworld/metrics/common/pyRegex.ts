/**
 * Python `re` patterns run as JavaScript regular expressions. The translation keeps what differs in
 * meaning: `.` (excludes only `\n`), `$` (also before a final `\n`), `^`/`$` under MULTILINE (only
 * `\n` breaks lines), `\A`, `\Z`, `(?P<name>...)`, `(?P=name)` and leading inline flags `(?ims)`.
 * Not translated: `\d`, `\w`, `\b` match ASCII only here (Python also matches other Unicode digits
 * and letters); `\s` is JavaScript's set, which lacks \x1c-\x1f and \x85 and has \ufeff; VERBOSE
 * (`x`) and scoped flags `(?i:...)` are refused.
 */

/** Python's regex flags that have a JavaScript meaning. */
export interface PyRegexFlags {
  ignoreCase?: boolean;
  multiline?: boolean;
  dotAll?: boolean;
}

const FLAG_NAMES: Record<string, keyof PyRegexFlags | null> = {
  I: "ignoreCase",
  IGNORECASE: "ignoreCase",
  M: "multiline",
  MULTILINE: "multiline",
  S: "dotAll",
  DOTALL: "dotAll",
  U: null,
  UNICODE: null,
  A: null,
  ASCII: null,
  NOFLAG: null,
};

/** Python flag names (`re.I` as "I" or "IGNORECASE", ...) as {@link PyRegexFlags}; throws for one JavaScript cannot honour (VERBOSE, LOCALE). */
export function pyFlagsFromNames(names: readonly string[]): PyRegexFlags {
  const flags: PyRegexFlags = {};
  for (const n of names) {
    const f = FLAG_NAMES[n];
    if (f === undefined) throw new Error(`Python regex flag re.${n} is not supported`);
    if (f) flags[f] = true;
  }
  return flags;
}

/** Reads leading global inline flags (`(?im)`), returning them and the rest of the pattern. */
function leadingFlags(pattern: string, flags: PyRegexFlags): [string, PyRegexFlags] {
  const out = { ...flags };
  let rest = pattern;
  for (let m = /^\(\?([aiLmsux]+)\)/.exec(rest); m; m = /^\(\?([aiLmsux]+)\)/.exec(rest)) {
    for (const c of m[1]!) {
      if (c === "x" || c === "L") throw new Error(`Python regex inline flag (?${c}) is not supported`);
      if (c === "i") out.ignoreCase = true;
      if (c === "m") out.multiline = true;
      if (c === "s") out.dotAll = true;
    }
    rest = rest.slice(m[0].length);
  }
  return [rest, out];
}

/** Translates one escape (`\` + c) outside a character class. */
function escapeOutside(c: string): string {
  if (c === "A") return "(?<![\\s\\S])";
  if (c === "Z") return "(?![\\s\\S])";
  return `\\${c}`;
}

/** Translates the parts of the pattern whose meaning differs. */
function translate(p: string, f: PyRegexFlags): string {
  let out = "";
  let inClass = false;
  for (let i = 0; i < p.length; i++) {
    const c = p[i]!;
    if (c === "\\") {
      const next = p[i + 1] ?? "";
      out += inClass ? `\\${next}` : escapeOutside(next);
      i++;
    } else if (inClass) {
      if (c === "]") inClass = false;
      out += c;
    } else if (c === "[") {
      inClass = true;
      out += c;
      if (p[i + 1] === "^") out += p[++i];
      if (p[i + 1] === "]") out += `\\${p[++i]}`;
    } else if (c === "(" && p.startsWith("(?P<", i)) {
      out += "(?<";
      i += 3;
    } else if (c === "(" && p.startsWith("(?P=", i)) {
      const end = p.indexOf(")", i);
      out += `\\k<${p.slice(i + 4, end)}>`;
      i = end;
    } else if (c === "(" && /^\(\?[aiLmsux-]+:/.test(p.slice(i))) {
      throw new Error("Python regex scoped inline flags (?flags:...) are not supported");
    } else if (c === ".") out += f.dotAll ? "[\\s\\S]" : "[^\\n]";
    else if (c === "$") out += f.multiline ? "(?=\\n|(?![\\s\\S]))" : "(?=\\n?(?![\\s\\S]))";
    else if (c === "^") out += f.multiline ? "(?:(?<![\\s\\S])|(?<=\\n))" : "^";
    else out += c;
  }
  return out;
}

/** A Python `re` pattern as a JavaScript RegExp (for `search`: `regex.test(text)` is `re.search(...) is not None`). */
export function pyRegex(pattern: string, flags: PyRegexFlags = {}): RegExp {
  const [rest, f] = leadingFlags(pattern, flags);
  return new RegExp(translate(rest, f), f.ignoreCase ? "i" : "");
}
