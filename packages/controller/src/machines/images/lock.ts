import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { processAlive, sleep } from "@pincer/shared";

/**
 * Takes the lock directory `dir` without waiting (made atomically with mkdir; its owner's PID
 * inside); a lock whose owner has died is taken over. Resolves to its release, or to the live
 * holder's PID (0 while a holder has not written it yet).
 */
export async function tryLock(dir: string): Promise<{ release: () => Promise<void> } | { heldBy: number }> {
  for (;;) {
    try {
      await mkdir(dir);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const pid = Number((await readFile(join(dir, "pid"), "utf8").catch(() => "")).trim());
      if (!(pid > 0) || processAlive(pid)) return { heldBy: pid > 0 ? pid : 0 };
      await rm(dir, { recursive: true, force: true });
    }
  }
  await writeFile(join(dir, "pid"), `${process.pid}\n`);
  return { release: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * Runs `fn` holding the lock directory `dir` ({@link tryLock}). Another holder is waited for; a lock
 * whose owner has died is taken over.
 */
export async function withBuildLock<T>(dir: string, log: (l: string) => void, fn: () => Promise<T>): Promise<T> {
  let said = false;
  for (;;) {
    const lock = await tryLock(dir);
    if ("release" in lock) {
      try {
        return await fn();
      } finally {
        await lock.release();
      }
    }
    if (!said) log(`waiting for another build of this image (${lock.heldBy > 0 ? `process ${lock.heldBy}` : "starting"})`);
    said = true;
    await sleep(500);
  }
}
