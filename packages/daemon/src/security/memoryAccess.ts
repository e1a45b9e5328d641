import { heapControl, heapControlMissing } from "../memory.js";

/**
 * Makes this process non-dumpable (`prctl(PR_SET_DUMPABLE, 0)`, through native/memory.c), so that
 * the commands the daemon runs, which run as its own user, cannot read its memory and the token in
 * it: /proc/<pid>/mem, environ, maps, smaps, fd, io and the like then open only for root with
 * CAP_SYS_PTRACE over the daemon's user namespace, and it leaves no core dump. /proc/<pid>/stat,
 * status and cmdline stay readable. The commands themselves are dumpable again from their exec.
 *
 * Call it before the token is read and before anything is started. A process of the daemon's user
 * that opened /proc/<pid>/mem before this call keeps what it opened: on a machine where such
 * processes run before the daemon, run the daemon as another user than the tasks.
 * Returns undefined when done (or off Linux, where there is no /proc to close), else why not.
 */
export function closeMemoryToOtherProcesses(): string | undefined {
  if (process.platform !== "linux") return undefined;
  const control = heapControl();
  if (!control) return heapControlMissing() ?? "the native addon did not load";
  if (typeof control.setDumpable !== "function") return "pincer_memory.node predates setDumpable: run npm run build:native";
  return control.setDumpable(false) ? undefined : "prctl(PR_SET_DUMPABLE, 0) failed";
}
