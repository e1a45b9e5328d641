/**
 * True when a process with this pid exists (signal 0 checks without sending anything; EPERM means
 * it exists but belongs to someone else). Used to tell stale lock files and journal entries of
 * processes that are gone from those of processes still running.
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
