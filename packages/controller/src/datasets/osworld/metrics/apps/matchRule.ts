import { pyEq, show } from "./common.js";

/** Python `re` flag names (`re.I`, `re.IGNORECASE`, …) as JavaScript RegExp flags; `re.X`/`re.A`/`re.U` have none and are refused. */
const FLAGS: Record<string, string> = { I: "i", IGNORECASE: "i", M: "m", MULTILINE: "m", S: "s", DOTALL: "s" };

/** Python's `float(v)` for a JSON value, or null where it raises. */
function pyFloat(v: unknown): number | null {
  if (typeof v === "number") return v;
  if (typeof v === "boolean") return Number(v);
  if (typeof v !== "string") return null;
  const t = v.trim().replaceAll(/(?<=\d)_(?=\d)/g, "");
  if (/^[+-]?(inf|infinity)$/i.test(t)) return t.startsWith("-") ? -Infinity : Infinity;
  if (/^[+-]?nan$/i.test(t)) return Number.NaN;
  return /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(t) ? Number(t) : null;
}

/** Python's ordering operators on JSON scalars; null where Python raises TypeError (mixed types). */
function pyCompare(a: unknown, b: unknown, op: "lt" | "le" | "gt" | "ge"): boolean | null {
  const num = (x: unknown) => (typeof x === "boolean" ? Number(x) : x);
  const x = num(a);
  const y = num(b);
  if (!((typeof x === "number" && typeof y === "number") || (typeof x === "string" && typeof y === "string"))) return null;
  const [p, q] = [x as number | string, y as number | string];
  return op === "lt" ? p < q : op === "le" ? p <= q : op === "gt" ? p > q : p >= q;
}

/**
 * OSWorld's `_match_value_to_rule(value, {method, ref})`: `re[.FLAG…]` (re.search), `eq`/`ne`/`lt`/
 * `le`/`gt`/`ge`, `approx:THRESHOLD` and `range.XY` (X, Y each `e` or `t`: ref[0] <X value <Y ref[1]).
 * Where Python raises (a regex on a non-string, an ordering across types) this returns false.
 * Throws for `spreadsheet_range` and unknown methods (OSWorld returns None there).
 */
export function matchValueToRule(value: unknown, rule: unknown): boolean {
  const { method, ref } = (rule ?? {}) as { method?: unknown; ref?: unknown };
  if (typeof method !== "string") throw new Error(`rule without a method: ${show(rule)}`);
  if (method.startsWith("re")) {
    const flags = method
      .split(".")
      .slice(1)
      .map((f) => {
        const js = FLAGS[f];
        if (js === undefined) throw new Error(`regex flag re.${f} is not supported`);
        return js;
      });
    if (typeof value !== "string" || typeof ref !== "string") return false;
    // Python-only syntax: named groups `(?P<n>…)` / `(?P=n)` and `\Z`.
    const source = ref
      .replaceAll("(?P<", "(?<")
      .replaceAll(/\(\?P=(\w+)\)/g, "\\k<$1>")
      .replaceAll("\\Z", "$(?![\\s\\S])");
    return new RegExp(source, [...new Set(flags)].join("")).test(value);
  }
  if (method === "eq") return pyEq(value, ref);
  if (method === "ne") return !pyEq(value, ref);
  if (method === "lt" || method === "le" || method === "gt" || method === "ge") return pyCompare(value, ref, method) ?? false;
  if (method.startsWith("approx")) {
    const threshold = Number(method.split(":")[1]);
    const v = pyFloat(value);
    return v !== null && typeof ref === "number" && Math.abs(v - ref) <= threshold;
  }
  if (method.startsWith("range.") && Array.isArray(ref)) {
    const left = method[6] === "e" ? "le" : method[6] === "t" ? "lt" : null;
    const right = method[7] === "e" ? "le" : method[7] === "t" ? "lt" : null;
    if (left === null || right === null) throw new Error(`unknown range method ${method}`);
    return (pyCompare(ref[0], value, left) ?? false) && (pyCompare(value, ref[1], right) ?? false);
  }
  throw new Error(`rule method ${show(method)} is not supported`);
}
