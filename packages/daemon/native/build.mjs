/**
 * Builds native/build/pincer-spawner from spawner.c with the system C compiler (cc, gcc or clang).
 * Runs on `npm ci` and `npm run build:native`. Without a compiler it says so and succeeds: the
 * daemon then starts commands through its Node spawner (same behaviour, about 1 ms slower each).
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, renameSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, "build", "pincer-spawner");
const tmp = `${out}.${process.pid}.tmp`;

if (process.platform !== "linux") {
  console.log("pincer-spawner: not built (Linux only); the daemon uses its Node spawner");
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
    "The daemon will start commands through its Node spawner instead (about 1 ms slower per command). " +
    "Install a C compiler (Debian: apt-get install gcc) and run `npm run build:native` to build it.",
);
