import type { MouseButton, Point } from "../../env/index.js";
import { pincerKey } from "./keys.js";
import type { PyValue } from "./tokens.js";

/** A wrong argument of a call; the interpreter names the statement around it. */
export class PyArgumentError extends Error {}

const show = (v: PyValue | undefined) => (v === undefined ? "nothing" : JSON.stringify(v));

/**
 * A call's arguments bound to the parameter names of its Python signature, as Python binds them:
 * positionals in order, then keywords; too many, an unknown keyword or one given twice is an error.
 */
export class Args {
  readonly values = new Map<string, PyValue>();
  constructor(
    readonly fn: string,
    readonly params: readonly string[],
    args: PyValue[],
    kwargs: [string, PyValue][],
    readonly rest: PyValue[] = [],
  ) {
    if (args.length > params.length) throw new PyArgumentError(`${fn}() takes at most ${params.length} positional arguments, got ${args.length}`);
    for (const [i, v] of args.entries()) this.values.set(params[i]!, v);
    for (const [k, v] of kwargs) {
      if (!params.includes(k)) throw new PyArgumentError(`${fn}() got an unexpected keyword argument ${JSON.stringify(k)}`);
      if (this.values.has(k)) throw new PyArgumentError(`${fn}() got multiple values for argument ${JSON.stringify(k)}`);
      this.values.set(k, v);
    }
  }

  get(name: string): PyValue | undefined {
    const v = this.values.get(name);
    return v === null ? undefined : v;
  }

  /** A number (True and False count as 1 and 0, as in Python), or `def` when absent or None. */
  num(name: string, def?: number): number {
    const v = this.get(name);
    if (v === undefined && def !== undefined) return def;
    if (typeof v === "boolean") return v ? 1 : 0;
    if (typeof v !== "number" || !Number.isFinite(v)) throw new PyArgumentError(`${this.fn}(): ${name} must be a number, not ${show(v)}`);
    return v;
  }

  /** A whole number ≥ `min`. */
  count(name: string, def: number, min = 0): number {
    const n = this.num(name, def);
    if (!Number.isInteger(n) || n < min) throw new PyArgumentError(`${this.fn}(): ${name} must be a whole number ≥ ${min}, not ${n}`);
    return n;
  }

  /** Seconds, 0 or more. */
  seconds(name: string, def = 0): number {
    const n = this.num(name, def);
    if (n < 0) throw new PyArgumentError(`${this.fn}(): ${name} must not be negative`);
    return n;
  }

  str(name: string): string {
    const v = this.get(name);
    if (typeof v !== "string") throw new PyArgumentError(`${this.fn}(): ${name} must be a string, not ${show(v)}`);
    return v;
  }

  /** pyautogui's point arguments: `x, y`, or `(x, y)` as x; absent when both are None. */
  point(xName = "x", yName = "y"): Point | undefined {
    const x = this.get(xName);
    if (typeof x === "string") throw new PyArgumentError(`${this.fn}(): locating an image on the screen (${JSON.stringify(x)}) is not supported; give x and y`);
    if (Array.isArray(x)) {
      if (x.length !== 2 || typeof x[0] !== "number" || typeof x[1] !== "number") throw new PyArgumentError(`${this.fn}(): ${show(x)} is not a point (x, y)`);
      return { x: x[0], y: x[1] };
    }
    if (x === undefined && this.get(yName) === undefined) return undefined;
    return { x: this.num(xName), y: this.num(yName) };
  }

  /** A mouse button: left, right, middle, or pyautogui's primary and secondary. */
  button(def: MouseButton = "left"): MouseButton {
    const b = this.get("button") ?? def;
    const named = b === "primary" ? "left" : b === "secondary" ? "right" : b;
    if (named !== "left" && named !== "right" && named !== "middle")
      throw new PyArgumentError(`${this.fn}(): button must be left, right or middle, not ${show(b)}`);
    return named;
  }

  /** A key name in Pincer's vocabulary. */
  key(v: PyValue | undefined, what = "key"): string {
    if (typeof v !== "string") throw new PyArgumentError(`${this.fn}(): a ${what} must be a string, not ${show(v)}`);
    const k = pincerKey(v);
    if (k === undefined) throw new PyArgumentError(`${this.fn}(): ${JSON.stringify(v)} is not a key name pyautogui or Pincer knows`);
    return k;
  }

  /** Key names given as one string or a list of them. */
  keys(name: string): string[] {
    const v = this.get(name);
    return Array.isArray(v) ? v.map((k) => this.key(k)) : [this.key(v)];
  }
}
