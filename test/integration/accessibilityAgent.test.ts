import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { AccessibleNode } from "@pincer/controller";
import { type AccessibilityBuses, startAccessibilityBuses } from "../fixtures/accessibility.js";
import { runPincer } from "../fixtures/cli.js";
import { spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";
import { openaiToolCalls, startFakeProvider } from "../fixtures/fakeProviders.js";
import { startXvfb, stopProcess, type XServer } from "../fixtures/xvfb.js";

// The accessibility tree through the daemon's Accessibility service and into a model's prompt
// (`pincer run --a11y`), on a real GTK dialog (zenity) under Xvfb with the accessibility bus.

let xs: XServer;
let buses: AccessibilityBuses;
let zenity: ChildProcess;
let daemon: RunningDaemon;
let work: string;

const flatten = (nodes: readonly AccessibleNode[]): AccessibleNode[] => nodes.flatMap((n) => [n, ...flatten(n.children)]);

beforeAll(async () => {
  xs = await startXvfb({ width: 1280, height: 800 });
  buses = await startAccessibilityBuses({ display: xs.display });
  // The daemon finds the accessibility bus through the session bus in its environment.
  daemon = await spawnDaemon({ display: xs.display, env: buses.env });
  await daemon.env.waitUntilReady({ timeoutMs: 20_000 });
  zenity = spawn("zenity", ["--question", "--text", "Save the file?"], { env: buses.env, stdio: "ignore" });
  work = mkdtempSync(join(tmpdir(), "pincer-a11y-agent-"));
});

afterAll(async () => {
  if (zenity) await stopProcess(zenity);
  await daemon?.close();
  await buses?.stop();
  await xs?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** Asks the daemon until zenity's dialog shows its two buttons (GTK registers it shortly after starting). */
async function zenityButtons(): Promise<AccessibleNode[]> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const tree = await daemon.env.accessibility.tree();
    const buttons = flatten(tree.applications.filter((a) => a.app === "zenity")).filter((n) => n.role === "push button");
    if (buttons.length >= 2) return buttons;
    if (Date.now() > deadline) throw new Error(`zenity's buttons never appeared: ${JSON.stringify(tree).slice(0, 2000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("the accessibility tree over gRPC and in a model's observation", () => {
  test("Accessibility/GetTree names the dialog's push buttons, with bounds on the screen, and linearises them", async () => {
    const buttons = await zenityButtons();
    expect(buttons.map((b) => b.name).sort()).toEqual(["No", "Yes"]);
    for (const b of buttons) {
      expect(b.bounds!.x).toBeGreaterThanOrEqual(0);
      expect(b.bounds!.x + b.bounds!.width).toBeLessThanOrEqual(1280);
      expect(b.bounds!.y + b.bounds!.height).toBeLessThanOrEqual(800);
      expect(b.states).toContain("showing");
    }
    const tree = await daemon.env.accessibility.tree({ linearized: true, app: "zenity" });
    expect(tree.applications.map((a) => a.app)).toEqual(["zenity"]);
    expect(tree.linearized).toMatch(/^tag\tname\ttext\tclass\tdescription\tposition \(top-left x&y\)\tsize \(w&h\)\n/);
    expect(tree.linearized).toMatch(/\npush-button\tYes\t/);
    expect(tree.linearized).toMatch(/\npush-button\tNo\t/);
    await expect(daemon.env.accessibility.tree({ maxDepth: 5000 })).rejects.toThrow(/max_depth/);
  });

  test("pincer run --a11y marks sends the numbered tree and a screenshot with the boxes drawn to the model", async () => {
    const [yes] = (await zenityButtons()).filter((b) => b.name === "Yes");
    const root = join(work, "dataset");
    const target = join(work, "out.txt");
    const dir = join(root, "a11y", "answer");
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, "answer.json"),
      JSON.stringify({
        id: "answer",
        instruction: `Write ok into ${target}.`,
        config: [],
        evaluation: { func: "compare_text_file", arguments: { local_expected: "expected.txt", vm_result: target } },
      }),
    );
    writeFileSync(join(dir, "expected.txt"), "ok");
    const fake = await startFakeProvider([openaiToolCalls([{ name: "desktop__run_command", args: { command: `printf ok > ${target}` } }])]);
    const out = join(work, "results");
    try {
      const args = ["run", root, "--env", `desktop=${daemon.address}`, "--agent", "openai", "--model", "m", "--base-url", fake.url];
      const r = await runPincer([...args, "--a11y", "marks", "--settle", "off", "--strict", "--out", out], {
        env: { ...process.env, OPENAI_API_KEY: "sk-test" },
      });
      expect(r.code, r.stderr + r.stdout).toBe(0);
      // The first request's observation: the tree as text, numbered, naming the buttons, then the screenshot.
      const parts = (fake.requests[0]!.body.messages as Array<{ role: string; content: unknown }>).filter((m) => m.role === "user").at(-1)!.content as Array<{
        type: string;
        text?: string;
        image_url?: { url: string };
      }>;
      const tree = parts.find((p) => p.text?.startsWith("Accessibility tree of desktop"))!.text!;
      expect(tree).toContain("mark\ttag\tname\ttext");
      const yesLine = tree.split("\n").find((l) => /^\d+\tpush-button\tYes\t/.test(l));
      expect(yesLine, tree).toBeDefined();
      expect(yesLine).toContain(`(${yes!.bounds!.x}, ${yes!.bounds!.y})\t(${yes!.bounds!.width}, ${yes!.bounds!.height})`);
      // The box of the Yes button is drawn on the model's screenshot: its top edge is the marks' colour.
      const image = parts.find((p) => p.type === "image_url")!.image_url!.url;
      const jpeg = Buffer.from(image.slice(image.indexOf(",") + 1), "base64");
      const { data, info } = await sharp(jpeg).raw().toBuffer({ resolveWithObject: true });
      const px = (x: number, y: number) => [...data.subarray((y * info.width + x) * info.channels, (y * info.width + x) * info.channels + 3)];
      const [r0, g0, b0] = px(yes!.bounds!.x + Math.floor(yes!.bounds!.width / 2), yes!.bounds!.y);
      expect(r0).toBeGreaterThan(170);
      expect(g0).toBeLessThan(90);
      expect(b0).toBeGreaterThan(60);
      // The run keeps what the model saw: the tree file named in the trajectory.
      const [runId] = readdirSync(out);
      const attempt = join(out, runId!, "a11y", "answer", "attempt-1");
      const first = JSON.parse(readFileSync(join(attempt, "trajectory.jsonl"), "utf8").split("\n")[0]!);
      expect(readFileSync(join(attempt, first.accessibility.desktop), "utf8")).toBe(tree.slice(tree.indexOf("\n") + 1));
    } finally {
      await fake.close();
    }
  });
});
