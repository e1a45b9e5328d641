import type { RunProgress } from "../runner/runner.js";

function duration(ms: number | null): string {
  if (ms === null) return "?";
  const s = Math.round(ms / 1000);
  return s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s` : `${s}s`;
}

/**
 * Shows run progress: on a terminal, one line rewritten in place; otherwise one plain line per
 * finished task (for CI logs and files).
 */
export function createProgressPrinter(stream: NodeJS.WriteStream = process.stderr): { update(p: RunProgress): void; end(): void } {
  const tty = stream.isTTY === true;
  let lastLast: string | undefined;
  return {
    update(p) {
      const status =
        `${p.done}/${p.total} done, ${p.running} running, ${p.passed} passed, ${p.failed} failed, ${p.errors} ` +
        `errors${p.skipped ? `, ${p.skipped} kept from before` : ""}, ETA ${duration(p.etaMs)}`;
      const finished = p.last && `${p.last.id}: ${p.last.state} (score ${p.last.score.toFixed(2)}, attempt ${p.last.attempt})`;
      if (tty) {
        if (finished && finished !== lastLast) stream.write(`\r\x1b[K${finished}\n`);
        stream.write(`\r\x1b[K${status}`);
      } else if (finished && finished !== lastLast) {
        stream.write(`${finished} — ${status}\n`);
      } else if (!finished) {
        stream.write(`${status}\n`);
      }
      lastLast = finished;
    },
    end() {
      if (tty) stream.write("\n");
    },
  };
}
