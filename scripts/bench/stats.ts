import type { MachineSlot } from "../../packages/controller/src/machines/provider.js";

/** Timing helpers for the benchmarks: medians and 95th percentiles of repeated runs, in ms. */
export interface Sample {
  p50: number;
  p95: number;
  n: number;
}

export function summarize(times: number[]): Sample {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { p50: at(0.5), p95: at(0.95), n: sorted.length };
}

/** Runs `fn` `n` times, one after another; the time of each run in ms. */
export async function timesOf(n: number, fn: (i: number) => Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn(i);
    times.push(performance.now() - t);
  }
  return times;
}

/** Runs `fn` `warmup` times untimed, then `n` times timed, one after another. */
export async function measure(n: number, fn: (i: number) => Promise<unknown>, warmup = Math.min(10, n)): Promise<Sample> {
  for (let i = 0; i < warmup; i++) await fn(i);
  return summarize(await timesOf(n, fn));
}

export interface Row {
  operation: string;
  ours: Sample;
  peer?: { name: string; sample: Sample };
  /** What the issue asks of this figure, for the reader. */
  goal?: string;
}

const ms = (v: number) => (v < 10 ? v.toFixed(2) : v.toFixed(1));

/** Prints rows as a Markdown table: operation, p50, p95, peer, peer p50, ratio (peer / ours). */
export function printTable(rows: Row[]): void {
  const lines = ["| operation | p50 ms | p95 ms | n | peer | peer p50 ms | ratio (peer/ours) | goal |", "|---|---:|---:|---:|---|---:|---:|---|"];
  for (const r of rows) {
    const ratio = r.peer ? `${(r.peer.sample.p50 / r.ours.p50).toFixed(1)}×` : "";
    lines.push(
      `| ${r.operation} | ${ms(r.ours.p50)} | ${ms(r.ours.p95)} | ${r.ours.n} | ${r.peer?.name ?? ""} | ${r.peer ? ms(r.peer.sample.p50) : ""} | ${ratio} ` +
        `| ${r.goal ?? ""} |`,
    );
  }
  console.log(lines.join("\n"));
}

/** The short task between two resets of a reset bench: a command on the machine, then a wait. */
export const SHORT_TASK_MS = 1_000;

/**
 * Resets `slot` `n` times, each after a short task on its machine (a command, then
 * {@link SHORT_TASK_MS}), as a run of short tasks does; each time is the reset's until the new
 * machine answers. The first reset (which only marks the fresh machine used) is not counted.
 */
export async function resetTimes(slot: MachineSlot, n: number): Promise<{ times: number[]; method: string }> {
  await slot.reset!();
  const times: number[] = [];
  let method = "";
  for (let i = 0; i < n; i++) {
    await slot.envs.desktop!.process.run(["true"]);
    await new Promise((r) => setTimeout(r, SHORT_TASK_MS));
    const t = performance.now();
    const how = await slot.reset!();
    await slot.envs.desktop!.system.info({ timeoutMs: 30_000 });
    times.push(performance.now() - t);
    method = how.desktop!.method;
  }
  return { times, method };
}
