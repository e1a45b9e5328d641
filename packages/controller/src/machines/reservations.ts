import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { processAlive } from "@pincer/shared";

/**
 * A number in `from`..`from + count - 1`, unique among the runners on this computer until
 * `release`: held by a lock file (`$TMPDIR/pincer-<what>/<n>`, holding the owner's pid) that other
 * runners skip, and take over when its owner is gone.
 */
export function reserveNumber(what: string, from: number, count: number): { number: number; release(): void } {
  const dir = join(tmpdir(), `pincer-${what}`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  for (let n = from; n < from + count; n++) {
    const lock = join(dir, String(n));
    let fd: number;
    try {
      fd = openSync(lock, "wx", 0o600);
    } catch {
      const owner = Number(readFileSync(lock, "latin1").trim() || Number.NaN);
      if (Number.isInteger(owner) && owner > 0 && !processAlive(owner)) rmSync(lock, { force: true });
      continue;
    }
    writeSync(fd, `${process.pid}\n`);
    closeSync(fd);
    return { number: n, release: () => rmSync(lock, { force: true }) };
  }
  throw new Error(`no free ${what} number between ${from} and ${from + count - 1}: remove stale files in ${dir}`);
}
