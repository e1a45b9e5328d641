import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, test } from "vitest";

// bin/pincer.js in a package layout of its own: without dist/ it says to build; with a dist/ whose
// code misses a dependency (a broken install), it reports that dependency, not "not built".

const BIN = resolve(import.meta.dirname, "../../../packages/controller/bin/pincer.js");
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function layout(main?: string): string {
  const pkg = mkdtempSync(join(tmpdir(), "pincer-bin-"));
  dirs.push(pkg);
  mkdirSync(join(pkg, "bin"));
  copyFileSync(BIN, join(pkg, "bin", "pincer.js"));
  writeFileSync(join(pkg, "package.json"), JSON.stringify({ name: "@pincer/controller", type: "module" }));
  if (main !== undefined) {
    mkdirSync(join(pkg, "dist", "cli"), { recursive: true });
    writeFileSync(join(pkg, "dist", "cli", "main.js"), main);
  }
  return pkg;
}

const run = (pkg: string) => spawnSync(process.execPath, [join(pkg, "bin", "pincer.js")], { encoding: "utf8" });

describe("bin/pincer.js", () => {
  test("without dist/ it says to build", () => {
    const r = run(layout());
    expect(r.stderr).toBe("pincer: not built yet: run npm run build in the Pincer checkout\n");
    expect(r.status).toBe(1);
  });

  test("a dependency missing from the install is reported as such", () => {
    const r = run(layout('import "no-such-package-pincer";\n'));
    expect(r.stderr).toContain("Cannot find package 'no-such-package-pincer'");
    expect(r.stderr).not.toContain("not built yet");
    expect(r.status).not.toBe(0);
  });

  test("with dist/ it runs the CLI", () => {
    const r = run(layout('process.stdout.write("cli ran\\n");\n'));
    expect(r).toMatchObject({ status: 0, stdout: "cli ran\n", stderr: "" });
  });
});
