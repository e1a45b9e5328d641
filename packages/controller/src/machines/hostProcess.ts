import { rm, readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { processAlive } from "@pincer/shared";

/**
 * Removes the folders `<prefix><pid>-…` of the temporary folder whose process is gone: what a
 * controller killed before it could clean up left (a Podman socket folder, token files).
 */
export async function removeDeadDirs(prefix: string): Promise<void> {
  const names = await readdir(tmpdir()).catch(() => [] as string[]);
  const dead = names.filter((n) => {
    const pid = n.startsWith(prefix) ? /^(\d+)-/.exec(n.slice(prefix.length))?.[1] : undefined;
    return pid !== undefined && !processAlive(Number(pid));
  });
  await Promise.all(dead.map((n) => rm(join(tmpdir(), n), { recursive: true, force: true }).catch(() => undefined)));
}
