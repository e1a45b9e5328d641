import { closeSync, readdirSync, readFileSync } from "node:fs";

/** O_CLOEXEC as /proc/self/fdinfo prints it (octal flags). */
const O_CLOEXEC = 0o2000000;

/**
 * Closes the descriptors beyond stderr that this process inherited open across exec: a parent's
 * pipe, a shell's `exec 9<file`, a test runner's channel. The daemon never uses them, and every
 * command started through Node (execa in the portable driver set, the Node spawner) would get
 * them and could hold them open after its call. Node opens its own descriptors close-on-exec, so
 * those left without the flag are the inherited ones; `keep` (Node's IPC channel) stays open.
 * Linux only (it reads /proc/self/fdinfo): elsewhere, and where /proc is not mounted, it closes
 * nothing. Returns the descriptors closed.
 */
export function closeInheritedFds(keep: ReadonlySet<number> = nodeChannelFd()): number[] {
  let fds: number[];
  try {
    fds = readdirSync("/proc/self/fdinfo").map(Number);
  } catch {
    return [];
  }
  const closed: number[] = [];
  for (const fd of fds) {
    if (!(fd > 2) || keep.has(fd)) continue;
    let flags: number;
    try {
      flags = Number.parseInt(/^flags:\s*([0-7]+)/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, "utf8"))?.[1] ?? "", 8);
    } catch {
      continue; // the listing's own descriptor, gone once read
    }
    if (Number.isNaN(flags) || flags & O_CLOEXEC) continue;
    try {
      closeSync(fd);
      closed.push(fd);
    } catch {
      // closed meanwhile: nothing to do
    }
  }
  return closed;
}

/** Node's IPC channel to its parent, when it was started with one. */
function nodeChannelFd(): Set<number> {
  const fd = Number(process.env.NODE_CHANNEL_FD);
  return new Set(Number.isInteger(fd) ? [fd] : []);
}
