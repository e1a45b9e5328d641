import { execFile } from "node:child_process";
import { resolve } from "node:path";
import { promisify } from "node:util";
import { expect, test } from "vitest";
import { osworldImage } from "../fixtures/image.js";

// OSWorld's run loop from Python (packages/python/tests/test_osworld_image.py) on containers of the
// office image: an unchanged OSWorld task file through pincer.osworld.DesktopEnv, solved with
// pyautogui-space code to evaluate() == 1, and 0 with only DONE.

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, "../..");
const PYTHON = "/usr/bin/python3";

test("an OSWorld task through pincer.osworld.DesktopEnv on the office image: solved 1, DONE alone 0", async () => {
  const image = await osworldImage();
  const env = { ...process.env, PYTHONDONTWRITEBYTECODE: "1", PINCER_TEST_OFFICE_IMAGE: image.dir };
  await run(PYTHON, ["packages/python/build_stubs.py"], { cwd: ROOT, env, timeout: 60_000 });
  const pytest = await run(PYTHON, ["-m", "pytest", "packages/python/tests/test_osworld_image.py", "-q", "-rs", "-p", "no:cacheprovider"], {
    cwd: ROOT,
    env,
    timeout: 600_000,
    maxBuffer: 16 * 1024 * 1024,
  }).then(
    (r) => ({ code: 0, out: r.stdout + r.stderr }),
    (e: { code?: number | string; stdout?: string; stderr?: string; message: string }) => ({
      code: e.code ?? -1,
      out: `${e.stdout ?? ""}${e.stderr ?? ""}\n${e.message}`,
    }),
  );
  expect(pytest.code, pytest.out).toBe(0);
  // Both ran: neither skipped.
  expect(pytest.out).toMatch(/\b2 passed\b/);
  expect(pytest.out).not.toMatch(/skipped/);
}, 900_000);
