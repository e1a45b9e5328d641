/** Keeps results readable in trajectories (and episodes' step answers): binary data (screenshots) becomes its size. */
export function summarizeResult(value: unknown): unknown {
  if (Buffer.isBuffer(value)) return `<${value.length} bytes>`;
  if (value && typeof value === "object" && !Array.isArray(value)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, Buffer.isBuffer(v) ? `<${v.length} bytes>` : v]));
  }
  return value;
}
