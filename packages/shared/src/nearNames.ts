/** Levenshtein distance between two strings (insertions, deletions and substitutions of one character). */
export function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next.push(Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)));
    row = next;
  }
  return row[b.length]!;
}

/**
 * The names of `known` a misspelt `name` most likely meant, nearest first, for a "did you mean"
 * (case ignored): those within a fifth of the name's length in edits (at least 2), and those that
 * begin or end with it or that it begins with. At most `max`. @default max 3
 */
export function nearNames(name: string, known: Iterable<string>, max = 3): string[] {
  const asked = name.toLowerCase();
  const limit = Math.max(2, Math.floor(asked.length / 5));
  const scored: Array<[string, number]> = [];
  for (const k of known) {
    if (k === name) continue;
    const candidate = k.toLowerCase();
    const d = editDistance(asked, candidate);
    const part = asked.length >= 4 && (candidate.startsWith(asked) || candidate.endsWith(asked) || asked.startsWith(candidate));
    if (d <= limit || part) scored.push([k, d]);
  }
  return scored
    .sort((x, y) => x[1] - y[1] || x[0].localeCompare(y[0]))
    .slice(0, max)
    .map(([k]) => k);
}

/** ` (did you mean "a" or "b"?)` for the names `nearNames` finds, or "" when none is near. */
export function didYouMean(name: string, known: Iterable<string>): string {
  const near = nearNames(name, known);
  return near.length ? ` (did you mean ${near.map((n) => JSON.stringify(n)).join(" or ")}?)` : "";
}
