import { expect, test } from "vitest";
import { buildPythonStubs, pytest } from "../fixtures/pytest.js";

// The Python client (packages/python, import name `pincer`) under Debian's python3: its gRPC stubs
// built from proto/ (npm run build:python), then its own pytest suite: the unit tests against an
// in-process fake of the Episodes service, and the tests against a real `pincer serve` on local
// machines (pincer.make with a solution's tool calls, OSWorld's DesktopEnv and run loop, groups,
// machine grants, a JSON graph task's rewards) and a real daemon (pincer.daemon).

test("the Python client's stubs build from proto/ and its pytest suite passes", async () => {
  expect(await buildPythonStubs()).toMatch(/build_stubs: \d+ files in packages\/python\/pincer\/_proto/);
  // No module named pytest: install python3-pytest (scripts/install-system-deps.sh test).
  const r = await pytest(["packages/python/tests"], { timeoutMs: 300_000 });
  expect(r.code, r.out).toBe(0);
  expect(r.out).toMatch(/\d+ passed/);
  expect(r.out).not.toMatch(/\d+ (failed|error)/);
}, 320_000);
