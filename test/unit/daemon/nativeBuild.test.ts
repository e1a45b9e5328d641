import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, test } from "vitest";

// The install script of each package that has a native helper, run as npm runs it on install: from
// a copy of the package's packed native/ files, once with the system's compiler and once on a
// machine without one (PATH holds no cc, gcc or clang). What it prints is what a user reads.

const ROOT = resolve(import.meta.dirname, "../../..");
const scratch = mkdtempSync(join(tmpdir(), "pincer-native-build-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A copy of package `name`'s native/ files in a new folder `folder`; returns that folder. */
function packageCopy(name: string, folder: string, sources: readonly string[]): string {
  const dir = join(scratch, folder);
  mkdirSync(join(dir, "native"), { recursive: true });
  for (const f of ["build.mjs", ...sources]) copyFileSync(join(ROOT, "packages", name, "native", f), join(dir, "native", f));
  return dir;
}

function install(dir: string, path: string) {
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: path };
  delete env.CC;
  return spawnSync(process.execPath, ["native/build.mjs"], { cwd: dir, env, encoding: "utf8" });
}

const helpers = [
  {
    name: "daemon",
    sources: ["spawner.c", "memory.c"],
    binaries: ["pincer-spawner", "pincer_memory.node"],
    without: /refuses to start unless --allow-node-spawner.*npm rebuild @pincer\/daemon.*pincer_memory.node: not built.*uploads about a third slower/s,
  },
  {
    name: "controller",
    sources: ["sandbox.c", "hidden.c", "sandbox.h"],
    binaries: ["pincer-sandbox"],
    without: /npm rebuild @pincer\/controller.*Local machines will run unsandboxed/s,
  },
] as const;

describe.runIf(process.platform === "linux")("the native helpers' install scripts", () => {
  test.each(helpers)("$name: builds $binaries with the system's compiler", ({ name, sources, binaries }) => {
    const dir = packageCopy(name, `${name}-cc`, sources);
    const r = install(dir, process.env.PATH ?? "");
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toBe("");
    for (const binary of binaries) expect(existsSync(join(dir, "native", "build", binary)), binary).toBe(true);
  });

  test.each(helpers)(
    "$name: without a compiler succeeds, builds nothing, and says what the user then gets and how to build it",
    ({ name, sources, binaries, without }) => {
      const dir = packageCopy(name, `${name}-nocc`, sources);
      // node's own folder may hold gcc (/usr/bin): PATH is a folder with node alone.
      const bin = join(scratch, `${name}-bin`);
      mkdirSync(bin);
      symlinkSync(process.execPath, join(bin, "node"));
      const r = install(dir, bin);
      expect(r.status, r.stderr).toBe(0);
      for (const binary of binaries) expect(existsSync(join(dir, "native", "build", binary)), binary).toBe(false);
      const said = r.stdout + r.stderr;
      expect(said).toMatch(/not built/);
      expect(said).toMatch(/apt-get install gcc/);
      expect(said).toMatch(without);
    },
  );
});
