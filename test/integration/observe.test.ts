import { afterAll, beforeAll, expect, test } from "vitest";
import { type AccessibleNode, createBenchmark, createEnvironment, createTask, evaluator, screenObservation, type ScreenObservation } from "@pincer/controller";
import { startLocalMachine, type LocalMachine } from "@pincer/controller/machines";
import { eventually } from "../fixtures/poll.js";

// One observation path: what a library script's bench.observe() returns is what `pincer run`
// shows its agents — a screenshot taken once the screen settled, scaled to fit 1280 × 800 with the
// scale that maps it back, and the accessibility tree as text.

let machine: LocalMachine;

beforeAll(async () => {
  machine = await startLocalMachine({ width: 1920, height: 1080, accessibilityBus: true });
}, 60_000);
afterAll(async () => {
  await machine?.close();
});

test("bench.observe() returns a settled, scaled screenshot with the accessibility tree as text", async () => {
  const { env } = machine;
  // A GTK dialog, which draws itself for a while after it starts and publishes its widgets.
  await env.process.launch(["zenity", "--question", "--text", "Observe me"], { waitForClass: "Zenity", waitTimeoutMs: 30_000 });
  // It publishes its widgets a moment after its window maps: wait for them, so the observation cannot come before.
  const hasYes = (nodes: AccessibleNode[]): boolean => nodes.some((n) => (n.role === "push button" && n.name === "Yes") || hasYes(n.children));
  const published = async () => hasYes((await env.accessibility.tree({ app: "zenity" })).applications);
  expect(await eventually(published, 30_000, 100)).toBe(true);
  const bench = createBenchmark({
    environments: [createEnvironment({ name: "desktop", env, observations: [screenObservation({ accessibility: "text" })] })],
    tasks: [createTask({ id: "look", description: "Look.", evaluator: evaluator({ name: "never", description: "d", run: () => false }) })],
  });
  await bench.start("look");
  const obs = await bench.observe();
  const screen = obs.environments.desktop!.screen as ScreenObservation;
  expect(screen.errors).toEqual([]);
  expect(screen.settle).toMatchObject({ settled: true });
  expect(screen.screenshot).toMatchObject({ format: "jpeg", width: 1280, height: 720, screen: { width: 1920, height: 1080 } });
  expect(screen.screenshot!.scale).toBeCloseTo(1280 / 1920, 6);
  expect(screen.screenshot!.data.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
  // OSWorld's linearised form: a header, then a line per widget; zenity's buttons are among them.
  const [header, ...rows] = screen.accessibility!.split("\n");
  expect(header).toMatch(/^tag\t/);
  expect(rows.some((r) => /^push-button\tYes\t/.test(r))).toBe(true);
  await bench.close();
}, 60_000);
