import { InvalidArgumentError as CliArgumentError } from "commander";
import type { SettleOptions } from "../env/index.js";

/** `--settle auto|off|QUIET[:INITIAL[:MAX]]` (milliseconds). */
export function parseSettle(v: string): SettleOptions | false | "auto" {
  if (v === "auto") return "auto";
  if (v === "off") return false;
  const m = /^(\d+)(?::(\d+))?(?::(\d+))?$/.exec(v);
  const [quietMs, initialQuietMs, maxMs] = [m?.[1], m?.[2], m?.[3]].map((x) => (x === undefined ? undefined : Number(x)));
  if (!m || !quietMs || initialQuietMs === 0 || maxMs === 0) {
    throw new CliArgumentError("--settle takes auto, off, or QUIET[:INITIAL[:MAX]] in milliseconds, each ≥ 1, e.g. 300:1500:5000");
  }
  const max = maxMs ?? Math.max(5000, quietMs, initialQuietMs ?? 0);
  if (quietMs > max || (initialQuietMs ?? 0) > max) throw new CliArgumentError(`--settle: the quiet times must not exceed the maximum (${max} ms)`);
  return { quietMs, initialQuietMs: initialQuietMs ?? quietMs, maxMs: max, sinceLastWait: true };
}
