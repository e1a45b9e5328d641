/**
 * Builds, with the system C compiler (cc, gcc or clang), the daemon's native parts:
 * - native/build/pincer-spawner from spawner.c. Without it the daemon refuses to start unless
 *   --allow-node-spawner, and says why.
 * - native/build/pincer_memory.node from memory.c, a Node-API addon against the running Node's
 *   headers (glibc's malloc_trim and mallopt). Without it the daemon keeps its large buffers off
 *   the heap and uploads run slower; it says so in its log.
 * Runs when the package is installed (`npm ci`, `npm i` of its tarball) and on `npm run build:native`.
 * Whatever cannot be built is said and skipped, so that the rest of an install goes on.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

if (process.platform !== "linux") {
  console.log("pincer-spawner: not built (Linux only); pincer-daemon starts commands here only with --allow-node-spawner");
  process.exit(0);
}
mkdirSync(join(here, "build"), { recursive: true });
const compilers = [process.env.CC, "cc", "gcc", "clang"].filter(Boolean);

/** Compiles `source` to build/`name` with the first compiler that works; returns the errors if none did. */
function build(name, source, flags) {
  const out = join(here, "build", name);
  const tmp = `${out}.${process.pid}.tmp`;
  const errors = [];
  for (const cc of compilers) {
    try {
      execFileSync(cc, ["-O2", "-Wall", "-Wextra", ...flags, "-o", tmp, join(here, source)], { stdio: ["ignore", "pipe", "pipe"] });
      renameSync(tmp, out);
      console.log(`${name}: built ${out} with ${cc}`);
      return [];
    } catch (err) {
      rmSync(tmp, { force: true });
      errors.push(`${cc}: ${err.code === "ENOENT" ? "not installed" : String(err.stderr ?? err.message).trim()}`);
    }
  }
  return errors;
}

// PINCER_STATIC_SPAWNER=1 links the spawner statically (glibc's libc.a, Debian's libc6-dev), so that a
// daemon bundle built here runs on systems with an older glibc (`pincer image bundle`).
const spawnerErrors = build("pincer-spawner", "spawner.c", process.env.PINCER_STATIC_SPAWNER === "1" ? ["-static", "-s"] : []);
if (spawnerErrors.length > 0) {
  console.warn(
    `pincer-spawner: not built (${spawnerErrors.join("; ")}).\n` +
      "Without it pincer-daemon refuses to start unless --allow-node-spawner (the Node spawner cannot stop processes that leave " +
      "their command's process group). Install a C compiler (Debian: apt-get install gcc), then run `npm run build:native` in a " +
      "checkout, or `npm rebuild @pincer/daemon` in a project that installed it.",
  );
}

// Node's headers sit beside its binary in every distribution of it (include/node), Debian's too.
const headers = [join(dirname(process.execPath), "..", "include", "node"), "/usr/include/node", "/usr/local/include/node"].find((d) =>
  existsSync(join(d, "node_api.h")),
);
const memoryErrors = headers
  ? build("pincer_memory.node", "memory.c", ["-shared", "-fPIC", `-I${headers}`])
  : [`no node_api.h beside ${process.execPath} (include/node) or in /usr/include/node`];
if (memoryErrors.length > 0) {
  console.warn(
    `pincer_memory.node: not built (${memoryErrors.join("; ")}).\n` +
      "pincer-daemon works without it, but keeps transfer buffers off the heap, which makes uploads about a third slower. " +
      "Install a C compiler and Node.js's headers, then run `npm run build:native` (or `npm rebuild @pincer/daemon`).",
  );
}
