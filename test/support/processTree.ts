import { readdirSync, readFileSync } from "node:fs";

/** Live descendants of `pid` (zombies excluded), from /proc. */
export function descendants(pid: number): Array<{ pid: number; cmd: string }> {
  const parent = new Map<number, number>();
  const cmds = new Map<number, string>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (fields[0] === "Z") continue;
      parent.set(Number(name), Number(fields[1]));
      cmds.set(Number(name), readFileSync(`/proc/${name}/cmdline`, "utf8").replace(/\0/g, " ").trim());
    } catch {
      // gone while reading
    }
  }
  const out: Array<{ pid: number; cmd: string }> = [];
  const walk = (p: number) => {
    for (const [child, pp] of parent) {
      if (pp !== p) continue;
      out.push({ pid: child, cmd: cmds.get(child) ?? "" });
      walk(child);
    }
  };
  walk(pid);
  return out;
}

/** Whether `pid` runs (a zombie does not). */
export function alive(pid: number): boolean {
  try {
    const state = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0];
    return state !== "Z";
  } catch {
    return false;
  }
}
