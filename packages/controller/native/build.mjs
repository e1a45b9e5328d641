/**
 * Builds native/build/pincer-sandbox from sandbox.c and hidden.c with the system C compiler, on `npm ci` and
 * `npm run build:native`. Without one (or off Linux) it says so and succeeds: local machines then
 * run without a sandbox, on this computer itself, and `pincer run` says why.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, renameSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, "build", "pincer-sandbox");

function build() {
  if (process.platform !== "linux") return "the sandbox is Linux only";
  mkdirSync(dirname(out), { recursive: true });
  const tried = [];
  for (const cc of [process.env.CC, "cc", "gcc", "clang"].filter(Boolean)) {
    const tmp = `${out}.${process.pid}.tmp`;
    try {
      execFileSync(cc, ["-O2", "-Wall", "-pthread", "-o", tmp, join(here, "sandbox.c"), join(here, "hidden.c")], { stdio: ["ignore", "pipe", "pipe"] });
      renameSync(tmp, out);
      return undefined;
    } catch (err) {
      rmSync(tmp, { force: true });
      tried.push(`${cc}: ${err.code === "ENOENT" ? "not installed" : String(err.stderr ?? err.message).trim()}`);
    }
  }
  return (
    `no C compiler could build it (${tried.join("; ")}); install one (Debian: apt-get install gcc), ` +
    "then run npm run build:native in a checkout, or npm rebuild @pincer/controller in a project that installed it"
  );
}

const why = build();
console.log(why ? `pincer-sandbox: not built: ${why}. Local machines will run unsandboxed.` : `pincer-sandbox: built ${out}`);
