import { PY_WS } from "./pyStr.js";

/**
 * Python `re` patterns (on `str`) run as JavaScript regular expressions in Unicode mode (`u`), so
 * that code points, not UTF-16 units, are matched and case is folded as Python folds it. The
 * translation keeps what differs in meaning: `\d` (any Unicode decimal digit), `\w` (letters,
 * numbers and `_` of every script), `\b`/`\B` (on those word characters), `\s` (Python's whitespace,
 * `str.isspace()`), `.` (excludes only `\n`), `$` (also before a final `\n`), `^`/`$` under
 * MULTILINE (only `\n` breaks lines), `\A`, `\Z`, `{,n}`, a `{` or `]` that is a literal,
 * `(?P<name>...)`, `(?P=name)`, `(?#...)`, escapes JavaScript refuses (`\"`, `\U0001F600`, `\a`)
 * and leading inline flags `(?aims)`; ASCII (`re.A`) keeps the ASCII classes. Refused: VERBOSE
 * (`x`), LOCALE, scoped flags `(?i:...)`, `\N{...}`, and `\W`/`\S` beside other items in a class.
 */

/** Python's regex flags that have a JavaScript meaning. */
export interface PyRegexFlags {
  ignoreCase?: boolean;
  multiline?: boolean;
  dotAll?: boolean;
  /** `re.ASCII`: `\d`, `\w`, `\s`, `\b` match ASCII only. */
  ascii?: boolean;
}

const FLAG_NAMES: Record<string, keyof PyRegexFlags | null> = {
  I: "ignoreCase",
  IGNORECASE: "ignoreCase",
  M: "multiline",
  MULTILINE: "multiline",
  S: "dotAll",
  DOTALL: "dotAll",
  A: "ascii",
  ASCII: "ascii",
  U: null,
  UNICODE: null,
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
      if (c === "a") out.ascii = true;
    }
    rest = rest.slice(m[0].length);
  }
  return [rest, out];
}

/** The bodies of the character classes `\d`, `\w`, `\s` (for use inside `[...]`). */
function classBodies(f: PyRegexFlags) {
  return f.ascii ? { d: "0-9", w: "A-Za-z0-9_", s: " \\t\\n\\r\\f\\v" } : { d: "\\p{Nd}", w: "\\p{L}\\p{N}_", s: PY_WS };
}

/** Characters JavaScript's Unicode mode lets a backslash escape (outside a class). */
const SYNTAX = new Set([..."^$\\.*+?()[]{}|/"]);
const hex = (cp: number) => `\\u{${cp.toString(16)}}`;

/**
 * An escape JavaScript reads as Python does, or as a literal: `\n`, `\t`, hex and Unicode escapes,
 * back references. Returns the translation and how many characters of the pattern it used.
 */
function commonEscape(p: string, i: number, inClass: boolean): [string, number] {
  const c = p[i + 1] ?? "";
  if ("ntrfv".includes(c) && c !== "") return [`\\${c}`, 2];
  if (c === "a") return ["\\x07", 2];
  if (c === "b" && inClass) return ["\\x08", 2];
  if (c === "x" && /^[0-9a-fA-F]{2}$/.test(p.slice(i + 2, i + 4))) return [`\\x${p.slice(i + 2, i + 4)}`, 4];
  if (c === "u" && /^[0-9a-fA-F]{4}$/.test(p.slice(i + 2, i + 6))) return [`\\u${p.slice(i + 2, i + 6)}`, 6];
  if (c === "U" && /^[0-9a-fA-F]{8}$/.test(p.slice(i + 2, i + 10))) return [hex(Number.parseInt(p.slice(i + 2, i + 10), 16)), 10];
  if (c === "0" || (inClass && /[1-7]/.test(c))) {
    const m = /^[0-7]{1,3}/.exec(p.slice(i + 1))!;
    return [hex(Number.parseInt(m[0], 8)), 1 + m[0].length];
  }
  if (/[1-9]/.test(c)) {
    const m = /^[1-9][0-9]?/.exec(p.slice(i + 1))!;
    return [`\\${m[0]}`, 1 + m[0].length];
  }
  if (c === "N") throw new Error("Python regex escape \\N{...} is not supported");
  if (/[A-Za-z]/.test(c) || c === "") throw new Error(`bad escape \\${c} in a Python regex`);
  // Any other character escapes to itself in Python; JavaScript's Unicode mode refuses most such escapes.
  if (SYNTAX.has(c) || (inClass && c === "-")) return [`\\${c}`, 2];
  return [hex(c.codePointAt(0)!), 1 + String.fromCodePoint(c.codePointAt(0)!).length];
}

/** Translates one escape outside a character class; returns it and its length in the pattern. */
function escapeOutside(p: string, i: number, f: PyRegexFlags): [string, number] {
  const c = p[i + 1] ?? "";
  const b = classBodies(f);
  const word = `[${b.w}]`;
  switch (c) {
    case "A":
      return ["(?<![\\s\\S])", 2];
    case "Z":
      return ["(?![\\s\\S])", 2];
    case "d":
      return [`[${b.d}]`, 2];
    case "D":
      return [`[^${b.d}]`, 2];
    case "w":
      return [word, 2];
    case "W":
      return [`[^${b.w}]`, 2];
    case "s":
      return [`[${b.s}]`, 2];
    case "S":
      return [`[^${b.s}]`, 2];
    case "b":
      return [`(?:(?<=${word})(?!${word})|(?<!${word})(?=${word}))`, 2];
    case "B":
      return [`(?:(?<=${word})(?=${word})|(?<!${word})(?!${word}))`, 2];
    default:
      return commonEscape(p, i, false);
  }
}

/** Translates a character class starting at `[`; returns it and its length in the pattern. */
function translateClass(p: string, start: number, f: PyRegexFlags): [string, number] {
  const b = classBodies(f);
  let i = start + 1;
  const negated = p[i] === "^";
  if (negated) i++;
  const items: string[] = [];
  const complements: string[] = [];
  if (p[i] === "]") {
    items.push("\\]");
    i++;
  }
  for (; i < p.length && p[i] !== "]"; i++) {
    const c = p[i]!;
    if (c !== "\\") {
      items.push(c === "[" || c === "/" ? `\\${c}` : c);
      continue;
    }
    const e = p[i + 1] ?? "";
    if (e === "d" || e === "w" || e === "s") items.push(b[e]);
    else if (e === "D" && !f.ascii) items.push("\\P{Nd}");
    else if (e === "D" || e === "W" || e === "S") complements.push(b[e.toLowerCase() as "d" | "w" | "s"]);
    else {
      const [t, n] = commonEscape(p, i, true);
      items.push(t);
      i += n - 2;
    }
    i++;
  }
  if (i >= p.length) throw new Error("unterminated character set in a Python regex");
  const length = i - start + 1;
  if (complements.length === 0) return [`[${negated ? "^" : ""}${items.join("")}]`, length];
  // [\W] is [^\w]; JavaScript has no way to put a complement beside other items in one class.
  if (complements.length === 1 && items.length === 0) return [`[${negated ? "" : "^"}${complements[0]}]`, length];
  throw new Error("a Python regex class mixing \\W or \\S with other items is not supported");
}

/** `{m,n}` as a quantifier (Python's `{,n}` is `{0,n}`), or undefined when the brace is a literal. */
function quantifier(p: string, i: number): [string, number] | undefined {
  const m = /^\{(\d*)(,(\d*))?\}/.exec(p.slice(i));
  if (!m || (m[1] === "" && m[2] === undefined)) return undefined;
  if (m[2] === undefined) return [m[0], m[0].length];
  return [`{${m[1] || "0"},${m[3] ?? ""}}`, m[0].length];
}

/** Translates a group opening `(`; returns it and its length in the pattern. */
function groupOpen(p: string, i: number): [string, number] {
  if (p.startsWith("(?P<", i)) return ["(?<", 4];
  if (p.startsWith("(?P=", i)) {
    const end = p.indexOf(")", i);
    return [`\\k<${p.slice(i + 4, end)}>`, end - i + 1];
  }
  if (p.startsWith("(?#", i)) {
    const end = p.indexOf(")", i);
    return ["(?:)", end - i + 1];
  }
  if (/^\(\?[aiLmsux-]+[:)]/.test(p.slice(i))) throw new Error("Python regex inline flags inside the pattern are not supported");
  return ["(", 1];
}

/** Translates the parts of the pattern whose meaning differs. */
function translate(p: string, f: PyRegexFlags): string {
  let out = "";
  for (let i = 0; i < p.length; ) {
    const c = p[i]!;
    let piece: [string, number];
    if (c === "\\") piece = escapeOutside(p, i, f);
    else if (c === "[") piece = translateClass(p, i, f);
    else if (c === "(") piece = groupOpen(p, i);
    else if (c === "{") piece = quantifier(p, i) ?? ["\\{", 1];
    else if (c === "}" || c === "]") piece = [`\\${c}`, 1];
    else if (c === ".") piece = [f.dotAll ? "[\\s\\S]" : "[^\\n]", 1];
    else if (c === "$") piece = [f.multiline ? "(?=\\n|(?![\\s\\S]))" : "(?=\\n?(?![\\s\\S]))", 1];
    else if (c === "^") piece = [f.multiline ? "(?:(?<![\\s\\S])|(?<=\\n))" : "^", 1];
    else piece = [c, 1];
    out += piece[0];
    i += piece[1];
  }
  return out;
}

/** A Python `re` pattern as a JavaScript RegExp (for `search`: `regex.test(text)` is `re.search(...) is not None`). */
export function pyRegex(pattern: string, flags: PyRegexFlags = {}): RegExp {
  const [rest, f] = leadingFlags(pattern, flags);
  return new RegExp(translate(rest, f), f.ignoreCase ? "iu" : "u");
}
