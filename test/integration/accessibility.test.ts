import { type ChildProcess, execFile, spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { promisify } from "node:util";
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from "vitest";
import { FailedPreconditionError } from "@pincer/shared";
import { type A11yNode, type A11yTree, getAccessibilityTree, LINEARIZED_HEADER, linearize } from "../../packages/daemon/src/drivers/accessibility.js";
import { type AccessibilityBuses, groupMembers, startAccessibilityBuses } from "../fixtures/accessibility.js";
import { startXvfb, stopProcess, type XServer } from "../fixtures/xvfb.js";

const run = promisify(execFile);
const WIDTH = 1024;
const HEIGHT = 768;
let xs: XServer;
let buses: AccessibilityBuses;
let zenity: ChildProcess;
let zenityErr = "";

/** Every node of the tree, depth first. */
function flatten(nodes: readonly A11yNode[]): A11yNode[] {
  return nodes.flatMap((n) => [n, ...flatten(n.children)]);
}

/** Reads the tree until zenity's dialog shows its buttons (GTK registers and maps it shortly after starting). */
async function zenityTree(opts: Parameters<typeof getAccessibilityTree>[0]): Promise<{ tree: A11yTree; ms: number }> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const t0 = performance.now();
    const tree = await getAccessibilityTree(opts);
    const ms = performance.now() - t0;
    const app = tree.nodes.find((n) => n.app === "zenity");
    if (app && flatten([app]).filter((n) => n.role === "push button").length >= 2) return { tree, ms };
    if (Date.now() > deadline || zenity.exitCode !== null) {
      throw new Error(`zenity's buttons never appeared (zenity ${zenity.exitCode === null ? "runs" : "exited"}: ${zenityErr}): ${JSON.stringify(tree)}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  try {
    accessSync("/usr/bin/zenity", constants.X_OK);
  } catch {
    throw new Error("zenity is missing: install the Debian package zenity (bash scripts/install-system-deps.sh installs it)");
  }
  xs = await startXvfb({ width: WIDTH, height: HEIGHT });
  buses = await startAccessibilityBuses({ display: xs.display });
  zenity = spawn("zenity", ["--question", "--text", "Save the file?"], { env: buses.env, stdio: ["ignore", "ignore", "pipe"] });
  zenity.stderr!.on("data", (d: Buffer) => (zenityErr = (zenityErr + d.toString()).slice(-2_000)));
});

afterEach(() => {
  vi.unstubAllEnvs();
});

afterAll(async () => {
  if (zenity) await stopProcess(zenity);
  await buses?.stop();
  await xs?.close();
  // Nothing the fixture started outlives it: the session bus, the launcher, its bus and the registry.
  for (const group of buses?.processGroups ?? []) expect(groupMembers(group)).toEqual([]);
});

describe("accessibility tree over AT-SPI", () => {
  test("names the push buttons of a real GTK window, with on-screen bounds, and linearises them", async () => {
    // Found the way libatspi finds it: no AT_SPI_BUS_ADDRESS, so org.a11y.Bus on the session bus.
    vi.stubEnv("AT_SPI_BUS_ADDRESS", undefined);
    const opts = { sessionBusAddress: buses.sessionBusAddress, display: xs.display };
    const { tree, ms } = await zenityTree(opts);
    const again: number[] = [];
    for (let i = 0; i < 5; i++) again.push((await zenityTree(opts)).ms);
    console.log(`GetTree of the zenity dialog: ${tree.nodeCount} nodes, first ${ms.toFixed(0)} ms, then ${again.map((t) => t.toFixed(0)).join(", ")} ms`);
    expect(tree.truncated).toBe(false);
    const app = tree.nodes.find((n) => n.app === "zenity")!;
    expect(app).toMatchObject({ role: "application", name: "zenity" });
    const nodes = flatten([app]);
    expect(tree.nodeCount).toBe(flatten(tree.nodes).length);
    const buttons = nodes.filter((n) => n.role === "push button");
    expect(buttons.map((b) => b.name).sort()).toEqual(["No", "Yes"]);
    for (const b of buttons) {
      expect(b.states).toEqual(expect.arrayContaining(["showing", "visible", "enabled", "focusable"]));
      const { x, y, width, height } = b.bounds!;
      expect(width).toBeGreaterThan(10);
      expect(height).toBeGreaterThan(10);
      expect(x).toBeGreaterThanOrEqual(0);
      expect(y).toBeGreaterThanOrEqual(0);
      expect(x + width).toBeLessThanOrEqual(WIDTH);
      expect(y + height).toBeLessThanOrEqual(HEIGHT);
    }
    expect(nodes.find((n) => n.role === "label" && n.name === "Save the file?")?.text).toBe("Save the file?");

    // The dialog's bounds are its X window's geometry as xdotool, independently, reports it.
    const dialog = app.children.find((n) => n.role === "dialog")!;
    const { stdout } = await run("xdotool", ["search", "--name", "^Question$", "getwindowgeometry", "--shell"], { env: buses.env });
    const geometry = Object.fromEntries(
      stdout
        .trim()
        .split("\n")
        .map((l) => l.split("=") as [string, string]),
    );
    expect(dialog.bounds).toEqual({ x: Number(geometry.X), y: Number(geometry.Y), width: Number(geometry.WIDTH), height: Number(geometry.HEIGHT) });

    const lines = linearize(tree).split("\n");
    expect(lines[0]).toBe(LINEARIZED_HEADER);
    for (const b of buttons) {
      const { x, y, width, height } = b.bounds!;
      expect(lines).toContain(`push-button\t${b.name}\t""\t\t\t(${x}, ${y})\t(${width}, ${height})`);
    }
    expect(lines.some((l) => l.startsWith("label\tSave the file?\tSave the file?\t"))).toBe(true);
  });

  test("the app filter, the depth and node limits, and the unfiltered tree", async () => {
    const opts = { busAddress: buses.a11yBusAddress };
    await zenityTree(opts);
    expect((await getAccessibilityTree({ ...opts, app: "no-such-application" })).nodes).toEqual([]);
    const filtered = await getAccessibilityTree({ ...opts, app: "ZENITY" });
    expect(filtered.nodes.map((n) => n.name)).toEqual(["zenity"]);

    const shallow = await getAccessibilityTree({ ...opts, app: "zenity", maxDepth: 1 });
    expect(shallow.truncated).toBe(true);
    expect(flatten(shallow.nodes).map((n) => n.role)).toEqual(["application", "dialog"]);
    const small = await getAccessibilityTree({ ...opts, app: "zenity", maxNodes: 3 });
    expect(small.truncated).toBe(true);
    expect(small.nodeCount).toBeLessThanOrEqual(3);

    // Unfiltered, the containers the visible tree folds away (zero-size or not) are there too.
    const all = await getAccessibilityTree({ ...opts, app: "zenity", visibleOnly: false });
    expect(all.nodeCount).toBeGreaterThanOrEqual(filtered.nodeCount);
    expect(flatten(all.nodes).filter((n) => n.role === "push button")).toHaveLength(2);

    // Past the deadline, what was read is returned, marked truncated.
    expect(await getAccessibilityTree({ ...opts, timeoutMs: 1 })).toMatchObject({ truncated: true });
  });

  test("finds the bus from the X root window's AT_SPI_BUS property", async () => {
    vi.stubEnv("AT_SPI_BUS_ADDRESS", undefined);
    await run("xprop", ["-root", "-f", "AT_SPI_BUS", "8s", "-set", "AT_SPI_BUS", buses.a11yBusAddress], { env: buses.env });
    try {
      const { tree } = await zenityTree({ display: xs.display, sessionBusAddress: "unix:path=/nonexistent/pincer-bus" });
      expect(tree.nodes.map((n) => n.app)).toContain("zenity");
    } finally {
      await run("xprop", ["-root", "-remove", "AT_SPI_BUS"], { env: buses.env });
    }
  });

  test("with no accessibility bus it fails with FAILED_PRECONDITION saying what to start", async () => {
    vi.stubEnv("AT_SPI_BUS_ADDRESS", undefined);
    const err = await getAccessibilityTree({ display: xs.display, sessionBusAddress: "unix:path=/nonexistent/pincer-bus" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FailedPreconditionError);
    expect((err as Error).message).toMatch(/^no accessibility bus: /);
    expect((err as Error).message).toContain("at-spi-bus-launcher --launch-immediately");
    expect((err as Error).message).toContain("AT_SPI_BUS_ADDRESS");

    const dead = await getAccessibilityTree({ busAddress: "unix:path=/nonexistent/pincer-a11y-bus" }).catch((e: unknown) => e);
    expect(dead).toBeInstanceOf(FailedPreconditionError);
    expect((dead as Error).message).toContain("cannot read the AT-SPI registry on the accessibility bus unix:path=/nonexistent/pincer-a11y-bus");
  });
});
