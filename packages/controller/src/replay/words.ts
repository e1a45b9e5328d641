/** A value as a message says it: a string quoted, a number or boolean as written, an object as its fields ("x 400, y 300"), a list in brackets. */
function words(v: unknown): string {
  if (v === undefined) return "nothing";
  if (v === null || typeof v !== "object") return typeof v === "string" ? JSON.stringify(v) : String(v);
  if (Array.isArray(v)) return `[${v.map(words).join(", ")}]`;
  const entries = Object.entries(v);
  if (entries.length === 0) return "nothing";
  return entries.map(([k, x]) => `${k} ${x && typeof x === "object" && !Array.isArray(x) ? `(${words(x)})` : words(x)}`).join(", ");
}

/** A value in words (see `words`), clipped at `max` characters. */
export function inWords(v: unknown, max = 160): string {
  const s = words(v);
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

const isRecord = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);

/**
 * How `a` became `b`, in words: for two objects, each field that differs (`same` decides) as
 * "name a → b", joined by "; "; otherwise "a → b".
 */
export function changeInWords(a: unknown, b: unknown, same: (x: unknown, y: unknown) => boolean, max = 160): string {
  if (!isRecord(a) || !isRecord(b)) return `${inWords(a, max)} → ${inWords(b, max)}`;
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => !same(a[k], b[k]));
  return keys.map((k) => `${k} ${inWords(a[k], max)} → ${inWords(b[k], max)}`).join("; ");
}
