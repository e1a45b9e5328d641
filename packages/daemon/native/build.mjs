/**
 * Builds native/build/pincer-spawner from spawner.c with the system C compiler (cc, gcc or clang).
 * Runs when the package is installed (`npm ci`, `npm i` of its tarball) and on `npm run build:native`.
 * Without a compiler it says so and succeeds, so that the rest of an install goes on: the daemon
 * then refuses to start unless --allow-node-spawner, and says why.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, renameSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, "build", "pincer-spawner");
const tmp = `${out}.${process.pid}.tmp`;

if (process.platform !== "linux") {
  console.log("pincer-spawner: not built (Linux only); pincer-daemon starts commands here only with --allow-node-spawner");
  process.exit(0);
}
mkdirSync(join(here, "build"), { recursive: true });
const compilers = [process.env.CC, "cc", "gcc", "clang"].filter(Boolean);
const errors = [];
for (const cc of compilers) {
  try {
    execFileSync(cc, ["-O2", "-Wall", "-Wextra", "-o", tmp, join(here, "spawner.c")], { stdio: ["ignore", "pipe", "pipe"] });
    renameSync(tmp, out);
    console.log(`pincer-spawner: built ${out} with ${cc}`);
    process.exit(0);
  } catch (err) {
    rmSync(tmp, { force: true });
    errors.push(`${cc}: ${err.code === "ENOENT" ? "not installed" : String(err.stderr ?? err.message).trim()}`);
  }
}
console.warn(
  `pincer-spawner: not built (${errors.join("; ")}).\n` +
    "Without it pincer-daemon refuses to start unless --allow-node-spawner (the Node spawner cannot stop processes that leave " +
    "their command's process group). Install a C compiler (Debian: apt-get install gcc), then run `npm run build:native` in a " +
    "checkout, or `npm rebuild @pincer/daemon` in a project that installed it.",
);
