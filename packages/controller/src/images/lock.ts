import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { processAlive } from "@pincer/shared";

/**
 * Runs `fn` holding the lock directory `dir` (made atomically with mkdir; its owner's PID inside).
 * Another holder is waited for; a lock whose owner has died is taken over.
 */
export async function withBuildLock<T>(dir: string, log: (l: string) => void, fn: () => Promise<T>): Promise<T> {
  let said = false;
  for (;;) {
    try {
      await mkdir(dir);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const pid = Number((await readFile(join(dir, "pid"), "utf8").catch(() => "")).trim());
      if (pid > 0 && !processAlive(pid)) {
        await rm(dir, { recursive: true, force: true });
        continue;
      }
      if (!said) log(`waiting for another build of this image (${pid > 0 ? `process ${pid}` : "starting"})`);
      said = true;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  await writeFile(join(dir, "pid"), `${process.pid}\n`);
  try {
    return await fn();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
