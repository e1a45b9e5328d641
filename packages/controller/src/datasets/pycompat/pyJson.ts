/**
 * JSON as Python's `json.loads` reads it: `NaN`, `Infinity` and `-Infinity` are numbers, and a
 * number written with a fraction or an exponent is a float even when its value is whole (`5.0`),
 * which Python tells from the int `5` where it matters: `str(5.0)` is "5.0", `isinstance(5.0, int)`
 * is false. JavaScript's numbers cannot tell them apart, so such a value is a {@link PyFloat}.
 */

/** A Python float whose value is whole (`5.0`); other floats are plain numbers, which cannot be ints. */
export class PyFloat {
  constructor(readonly value: number) {}
  valueOf(): number {
    return this.value;
  }
  /** Written back as JSON, it is the number. */
  toJSON(): number {
    return this.value;
  }
}

/** The number of a Python int or float, a {@link PyFloat} included; undefined for anything else (booleans too). */
export function pyNumber(v: unknown): number | undefined {
  if (typeof v === "number") return v;
  return v instanceof PyFloat ? v.value : undefined;
}

/** Python's `isinstance(v, float)` for a parsed value. */
export const isPyFloat = (v: unknown): boolean => v instanceof PyFloat || (typeof v === "number" && !Number.isInteger(v));

/** A value with every {@link PyFloat} made a plain number, for code to which 5 and 5.0 are the same. */
export function plainJson<T>(v: T): T {
  if (v instanceof PyFloat) return v.value as T;
  if (Array.isArray(v)) return v.map(plainJson) as T;
  if (v !== null && typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype) {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plainJson(x)])) as T;
  }
  return v;
}

/** Whether a value holds a {@link PyFloat} anywhere. */
export function hasPyFloat(v: unknown): boolean {
  if (v instanceof PyFloat) return true;
  if (Array.isArray(v)) return v.some(hasPyFloat);
  if (v !== null && typeof v === "object") return Object.values(v).some(hasPyFloat);
  return false;
}

const WS = /[ \t\n\r]*/y;
const NUMBER = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;
// biome-ignore lint/suspicious/noControlCharactersInRegex: a JSON string may not hold raw control characters
const STRING = /"((?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*)"/y;
const CONSTANTS: Record<string, unknown> = {
  true: true,
  false: false,
  null: null,
  NaN: Number.NaN,
  Infinity: Number.POSITIVE_INFINITY,
  "-Infinity": Number.NEGATIVE_INFINITY,
};

/** A parse failure, as Python's `json.JSONDecodeError`: what was expected and where. */
export class PyJsonError extends SyntaxError {}

class Reader {
  pos = 0;
  constructor(readonly text: string) {}

  fail(what: string): never {
    throw new PyJsonError(`${what} at character ${this.pos}`);
  }

  ws(): void {
    WS.lastIndex = this.pos;
    WS.exec(this.text);
    this.pos = WS.lastIndex;
  }

  match(re: RegExp): RegExpExecArray | null {
    re.lastIndex = this.pos;
    const m = re.exec(this.text);
    if (m) this.pos = re.lastIndex;
    return m;
  }

  value(depth: number): unknown {
    if (depth > 1000) this.fail("nesting too deep");
    this.ws();
    const c = this.text[this.pos];
    if (c === "{") return this.object(depth);
    if (c === "[") return this.array(depth);
    if (c === '"') return this.string();
    for (const [word, v] of Object.entries(CONSTANTS)) {
      if (this.text.startsWith(word, this.pos)) {
        this.pos += word.length;
        return v;
      }
    }
    const m = this.match(NUMBER);
    if (!m) this.fail("Expecting value");
    const n = Number(m[0]);
    return (m[1] !== undefined || m[2] !== undefined) && Number.isInteger(n) ? new PyFloat(n) : n;
  }

  string(): string {
    const m = this.match(STRING);
    if (!m) this.fail("Invalid string");
    return JSON.parse(m[0]) as string;
  }

  object(depth: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    this.pos++;
    this.ws();
    if (this.text[this.pos] === "}") {
      this.pos++;
      return out;
    }
    for (;;) {
      this.ws();
      if (this.text[this.pos] !== '"') this.fail("Expecting property name enclosed in double quotes");
      const key = this.string();
      this.ws();
      if (this.text[this.pos++] !== ":") this.fail("Expecting ':' delimiter");
      // A duplicate key keeps the last value, as in Python's dict.
      Object.defineProperty(out, key, { value: this.value(depth + 1), enumerable: true, writable: true, configurable: true });
      this.ws();
      const c = this.text[this.pos++];
      if (c === "}") return out;
      if (c !== ",") this.fail("Expecting ',' delimiter");
    }
  }

  array(depth: number): unknown[] {
    const out: unknown[] = [];
    this.pos++;
    this.ws();
    if (this.text[this.pos] === "]") {
      this.pos++;
      return out;
    }
    for (;;) {
      out.push(this.value(depth + 1));
      this.ws();
      const c = this.text[this.pos++];
      if (c === "]") return out;
      if (c !== ",") this.fail("Expecting ',' delimiter");
    }
  }
}

/** Python's `json.loads(text)`; throws {@link PyJsonError} where Python raises JSONDecodeError. */
export function pyJsonParse(text: string): unknown {
  const r = new Reader(text);
  const v = r.value(0);
  r.ws();
  if (r.pos !== text.length) r.fail("Extra data");
  return v;
}
