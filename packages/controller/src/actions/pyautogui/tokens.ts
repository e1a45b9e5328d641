/**
 * The lexical side of the pyautogui interpreter: Python source cut into logical lines (brackets and
 * a trailing backslash join physical lines), each with its indentation and its tokens.
 */

/** A Python value the interpreter handles: tuples and lists are both arrays. */
export type PyValue = string | number | boolean | null | PyValue[];

export interface Token {
  t: "name" | "num" | "str" | "op";
  /** The token's text; for a string, its decoded value is in `value`. */
  v: string;
  value?: PyValue;
  start: number;
  end: number;
}

/** A logical line: its indentation width, its tokens and where it is in the source. */
export interface Line {
  indent: number;
  toks: Token[];
  start: number;
  end: number;
}

/** A syntax error at a place of the source; the parser turns it into an error naming the line. */
export class PySyntaxError extends Error {
  constructor(
    message: string,
    readonly at: number,
  ) {
    super(message);
  }
}

const OPS = ["//=", "+=", "-=", "*=", "/=", "**", "//", "==", "!=", "<=", ">=", "->", ..."()[]{},:.=+-*/%;<>"];

const ESCAPES: Record<string, string> = {
  n: "\n",
  t: "\t",
  r: "\r",
  "\\": "\\",
  "'": "'",
  '"': '"',
  "0": "\0",
  a: "\x07",
  b: "\b",
  f: "\f",
  v: "\v",
  "\n": "",
};

/** Reads a string literal at `i` (after any prefix); returns its value and the index after it. */
function readString(src: string, i: number, raw: boolean): { value: string; end: number } {
  const q = src[i]!;
  const triple = src.startsWith(q.repeat(3), i);
  const close = triple ? q.repeat(3) : q;
  let j = i + close.length;
  let value = "";
  while (!src.startsWith(close, j)) {
    if (j >= src.length || (!triple && src[j] === "\n")) throw new PySyntaxError("unterminated string", i);
    const c = src[j]!;
    if (c === "\\" && !raw) {
      const e = src[j + 1] ?? "";
      const hex = e === "x" ? 2 : e === "u" ? 4 : e === "U" ? 8 : 0;
      if (hex) {
        const code = Number.parseInt(src.slice(j + 2, j + 2 + hex), 16);
        if (!/^[0-9a-fA-F]+$/.test(src.slice(j + 2, j + 2 + hex)) || Number.isNaN(code)) throw new PySyntaxError("bad escape", j);
        value += String.fromCodePoint(code);
        j += 2 + hex;
      } else {
        value += ESCAPES[e] ?? `\\${e}`;
        j += 2;
      }
    } else if (c === "\\" && raw) {
      value += c + (src[j + 1] ?? "");
      j += 2;
    } else {
      value += c;
      j++;
    }
  }
  return { value, end: j + close.length };
}

/** Reads one token at `i`, or undefined at a place that has none. */
function readToken(src: string, i: number): Token | undefined {
  const rest = src.slice(i, i + 40);
  const str = /^([rRbBuUfF]{0,2})['"]/.exec(rest);
  if (str) {
    const prefix = str[1]!.toLowerCase();
    if (prefix.includes("f")) throw new PySyntaxError("f-strings are not supported; join strings with +", i);
    const { value, end } = readString(src, i + str[1]!.length, prefix.includes("r"));
    return { t: "str", v: src.slice(i, end), value, start: i, end };
  }
  const num = /^(?:\d[\d_]*(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/.exec(src.slice(i));
  if (num) return { t: "num", v: num[0], value: Number(num[0].replace(/_/g, "")), start: i, end: i + num[0].length };
  const name = /^[A-Za-z_]\w*/.exec(src.slice(i));
  if (name) return { t: "name", v: name[0], start: i, end: i + name[0].length };
  const op = OPS.find((o) => src.startsWith(o, i));
  return op ? { t: "op", v: op, start: i, end: i + op.length } : undefined;
}

/** Measures a line's indentation from `i` (a tab advances to the next multiple of 8). */
function indentAt(src: string, i: number): { width: number; end: number } {
  let width = 0;
  while (src[i] === " " || src[i] === "\t") width = src[i++] === "\t" ? (Math.floor(width / 8) + 1) * 8 : width + 1;
  return { width, end: i };
}

/** Cuts Python source into logical lines; blank and comment-only lines are dropped. */
export function logicalLines(src: string): Line[] {
  const lines: Line[] = [];
  let cur: Line | undefined;
  let depth = 0;
  let i = 0;
  while (i < src.length) {
    if (!cur) {
      const { width, end } = indentAt(src, i);
      cur = { indent: width, toks: [], start: end, end };
      i = end;
      continue;
    }
    const c = src[i]!;
    if (c === "\n" || c === "\r") {
      if (depth === 0) {
        if (cur.toks.length > 0) lines.push(cur);
        cur = undefined;
      }
      i++;
    } else if (c === " " || c === "\t" || c === "\f") i++;
    else if (c === "#") while (i < src.length && src[i] !== "\n") i++;
    else if (c === "\\" && (src[i + 1] === "\n" || src.startsWith("\r\n", i + 1))) i += src[i + 1] === "\n" ? 2 : 3;
    else {
      const tok = readToken(src, i);
      if (!tok) throw new PySyntaxError(`unexpected character ${JSON.stringify(c)}`, i);
      if ("([{".includes(tok.v)) depth++;
      else if (")]}".includes(tok.v)) depth = Math.max(0, depth - 1);
      cur.toks.push(tok);
      cur.end = tok.end;
      i = tok.end;
    }
  }
  if (depth > 0) throw new PySyntaxError("unclosed bracket", cur?.start ?? src.length);
  if (cur && cur.toks.length > 0) lines.push(cur);
  return lines;
}
