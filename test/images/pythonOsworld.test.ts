import { expect, test } from "vitest";
import { osworldImage } from "../fixtures/image.js";
import { buildPythonStubs, pytest } from "../fixtures/pytest.js";

// OSWorld's run loop from Python (packages/python/tests/test_osworld_image.py) on containers of the
// office image: an unchanged OSWorld task file through pincer.osworld.DesktopEnv, solved with
// pyautogui-space code to evaluate() == 1, and 0 with only DONE.

test("an OSWorld task through pincer.osworld.DesktopEnv on the office image: solved 1, DONE alone 0", async () => {
  const image = await osworldImage();
  const env = { ...process.env, PINCER_TEST_OFFICE_IMAGE: image.dir };
  await buildPythonStubs(env);
  const r = await pytest(["packages/python/tests/test_osworld_image.py"], { env, timeoutMs: 600_000 });
  expect(r.code, r.out).toBe(0);
  // Both ran: neither skipped.
  expect(r.out).toMatch(/\b2 passed\b/);
  expect(r.out).not.toMatch(/skipped/);
}, 900_000);
