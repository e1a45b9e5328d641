import { afterAll, beforeAll, expect, test } from "vitest";
import type { HelperContext } from "../../packages/controller/src/datasets/helpers.js";
import { createEvaluationRegistry } from "../../packages/controller/src/datasets/evaluationHelpers/index.js";
import { spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";
import { startXvfb, type XServer } from "../fixtures/xvfb.js";

// check_window_exists with `wait`: a window that a task's last step started appears a moment after
// the step; a check without a wait looked once and failed the task (the demo's open-clock, on a
// loaded machine).

const helper = createEvaluationRegistry().get("check_window_exists")!;
let xs: XServer;
let daemon: RunningDaemon;
let ctx: HelperContext;

beforeAll(async () => {
  xs = await startXvfb({ width: 800, height: 600 });
  daemon = await spawnDaemon({ display: xs.display });
  ctx = { env: daemon.env, envs: { main: daemon.env }, taskDir: "/", signal: new AbortController().signal };
});

afterAll(async () => {
  await daemon?.close();
  await xs?.close();
});

test("with wait, a window that appears late is found; without, the check looks once and says what is open", async () => {
  const title = `late-window-${process.pid}`;
  // 3 s: the check without a wait has long looked by then, even on a loaded machine.
  const late = () => daemon.env.process.start(["sh", "-c", `sleep 3; exec xterm -T ${title}`]);
  const first = late();
  first.wait().catch(() => undefined);
  const once = await helper.run(helper.args.parse({ title }), ctx);
  expect(once.score).toBe(0);
  expect(once.reason).toMatch(new RegExp(`^no window titled like "${title}"; open windows: `));
  const waited = await helper.run(helper.args.parse({ title, wait: 20 }), ctx);
  expect(waited).toMatchObject({ score: 1, reason: `window "${title}" (XTerm) is open` });
  first.kill();
  // A window that never comes: the wait ends at its deadline, and the reason says so.
  const never = await helper.run(helper.args.parse({ class: "NoSuchClass", wait: 0.5 }), ctx);
  expect(never).toMatchObject({ score: 0 });
  expect(never.reason).toMatch(/^no window of class NoSuchClass within 0.5 s; open windows: /);
  expect(() => helper.args.parse({ title, wait: 61 })).toThrow();
}, 60_000);
