import { execFile } from "node:child_process";
import { resolve } from "node:path";
import { promisify } from "node:util";
import { expect, test } from "vitest";

// The Python client (packages/python, import name `pincer`) under Debian's python3: its gRPC stubs
// built from proto/ (npm run build:python), then its own pytest suite: the unit tests against an
// in-process fake of the Episodes service, and the tests against a real `pincer serve examples
// --provider local` (pincer.make with a solution's tool calls, OSWorld's DesktopEnv).

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, "../..");
const PYTHON = "/usr/bin/python3";
const env = { ...process.env, PYTHONDONTWRITEBYTECODE: "1" };

test("the Python client's stubs build from proto/ and its pytest suite passes", async () => {
  const built = await run(PYTHON, ["packages/python/build_stubs.py"], { cwd: ROOT, env, timeout: 60_000 });
  expect(built.stdout).toMatch(/build_stubs: \d+ files in packages\/python\/pincer\/_proto/);

  const pytest = await run(PYTHON, ["-m", "pytest", "packages/python/tests", "-q", "-rs", "-p", "no:cacheprovider"], {
    cwd: ROOT,
    env,
    timeout: 300_000,
    maxBuffer: 16 * 1024 * 1024,
  }).then(
    (r) => ({ code: 0, out: r.stdout + r.stderr }),
    (e: { code?: number | string; stdout?: string; stderr?: string; message: string }) => ({
      code: e.code ?? -1,
      out: `${e.stdout ?? ""}${e.stderr ?? ""}\n${e.message}`,
    }),
  );
  // No module named pytest: install python3-pytest (scripts/install-system-deps.sh test).
  expect(pytest.code, pytest.out).toBe(0);
  expect(pytest.out).toMatch(/\d+ passed/);
  expect(pytest.out).not.toMatch(/\d+ (failed|error)/);
}, 320_000);
