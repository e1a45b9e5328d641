import { closeSync, openSync, readFileSync, readSync, writeSync } from "node:fs";

/**
 * Overwrites the value of `name` in the environment block the process started with, so that
 * /proc/<pid>/environ no longer shows it. Deleting it from process.env only unlinks it from the
 * live environment (commands no longer inherit it); the kernel's environ file reads the original
 * block, which stays in memory. The block's bounds come from /proc/self/stat and it is written
 * through /proc/self/mem, which a process may do to itself. Linux only; false when it could not.
 */
export function scrubStartEnvironment(name: string): boolean {
  if (process.platform !== "linux") return false;
  let fd: number | undefined;
  try {
    // Fields after the command name (which may hold spaces or parentheses): state is field 3,
    // env_start field 50, env_end field 51 (proc(5)).
    const stat = readFileSync("/proc/self/stat", "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const start = Number(fields[50 - 3]);
    const end = Number(fields[51 - 3]);
    if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || end <= start || end - start > 16 * 1024 * 1024) return false;
    fd = openSync("/proc/self/mem", "r+");
    const block = Buffer.alloc(end - start);
    readSync(fd, block, 0, block.length, start);
    const key = Buffer.from(`${name}=`);
    let scrubbed = false;
    for (let at = 0; at < block.length; ) {
      const stop = block.indexOf(0, at);
      const entryEnd = stop === -1 ? block.length : stop;
      if (entryEnd - at >= key.length && block.subarray(at, at + key.length).equals(key)) {
        const value = Buffer.alloc(entryEnd - at - key.length);
        if (value.length > 0) writeSync(fd, value, 0, value.length, start + at + key.length);
        scrubbed = true;
      }
      at = entryEnd + 1;
    }
    return scrubbed;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Takes `name` out of process.env (the commands the daemon runs do not inherit it) and erases it
 * from the block /proc/<pid>/environ reads ({@link scrubStartEnvironment}): its value, and whether
 * it was erased there (true when it was not set).
 */
export function takeStartVariable(name: string): { value?: string; erased: boolean } {
  const value = process.env[name];
  if (value === undefined) return { erased: true };
  delete process.env[name];
  return { value, erased: scrubStartEnvironment(name) };
}
