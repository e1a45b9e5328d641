import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { AnthropicAgent, createComputerAction, type AnthropicAgentOptions } from "@pincer/controller/agents";
import { defineTask, type DatasetTask, type TaskModule } from "@pincer/controller/datasets";
import { evaluator } from "@pincer/controller";
import { sdkBodyErrors } from "../fixtures/sdkTypes.js";
import { spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";
import { moduleTask } from "../fixtures/tasks.js";
import { anthropicError, anthropicMessage, type Reply } from "../fixtures/fakeProviders.js";
import { openWitnessWindow, type WitnessWindow } from "../fixtures/xwitness.js";
import { WireRuns } from "../fixtures/wireRuns.js";
import { startXvfb, type XServer } from "../fixtures/xvfb.js";

// 1920×1080 seen through the runner's 1280×720 screenshots: model pixel (428, 240) is screen (642, 360).
let xs: XServer;
let daemon: RunningDaemon;
let w: WitnessWindow;
let work: string;

beforeAll(async () => {
  xs = await startXvfb({ width: 1920, height: 1080 });
  daemon = await spawnDaemon({ display: xs.display });
  await daemon.env.waitUntilReady({ timeoutMs: 20_000 });
  w = await openWitnessWindow(xs.display, { x: 480, y: 270, width: 960, height: 540, color: 0x00ff00 });
  work = mkdtempSync(join(tmpdir(), "pincer-agents-anthropic-"));
});

afterAll(async () => {
  await runs.close();
  w?.close();
  await daemon?.close();
  await xs?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

const memoryTask = (module: TaskModule): DatasetTask => moduleTask(module, work);

const never = evaluator({ name: "never", description: "Never passes by itself.", run: () => false });

const runs = new WireRuns(() => ({ daemonAddress: daemon.address, outDir: join(work, "results"), maxSteps: 20 }));

const run = (task: DatasetTask, script: Reply[], opts: Partial<AnthropicAgentOptions> = {}) =>
  runs.run(task, script, (fake) => new AnthropicAgent({ model: "claude-fake", baseURL: fake.origin, apiKey: "sk-ant-test", ...opts }));

const since = (from: number) => w.events.slice(from);
const pressesAt = (from: number) =>
  since(from)
    .filter((e) => e.name === "ButtonPress")
    .map((e) => [e.detail, e.rootX, e.rootY]);
const imageSize = async (block: any) => {
  expect(block).toMatchObject({ type: "image", source: { type: "base64", media_type: "image/jpeg" } });
  const m = await sharp(Buffer.from(block.source.data, "base64")).metadata();
  return [m.width, m.height];
};

describe("Anthropic agent against a local Messages API server, acting on a real daemon", () => {
  test("tool use with Pincer's schemas: images and tools sent, 529 retried, parallel tool_use run, tool_result fed back, end_turn is done", async () => {
    const file = join(work, "note.txt");
    const task = memoryTask(defineTask({ id: "tools", instruction: `Click the square and write ok into ${file}.`, build: () => ({ evaluator: never }) }));
    const from = w.events.length;
    const { summary, requests } = await run(task, [
      anthropicError(529, { "retry-after-ms": "10" }),
      anthropicMessage([
        { text: "Clicking, then writing the file." },
        { tool: "desktop__click", input: { x: 428, y: 240 } },
        { tool: "desktop__run_command", input: { command: `printf ok > ${file}` } },
      ]),
      anthropicMessage([{ text: "Done: the file says ok." }], { input: 3000, output: 20 }),
    ]);
    expect(pressesAt(from)).toEqual([[1, 642, 360]]);
    expect(readFileSync(file, "utf8")).toBe("ok");
    expect(summary.results).toMatchObject({
      state: "failed",
      agent_state: "agent_done",
      end_reason: "agent_complete",
      agent: "anthropic",
      model: "claude-fake",
      steps: 2,
    });
    expect(summary.results).toMatchObject({ input_tokens: 4500, output_tokens: 80, model_requests: 2, cost_usd: null });

    expect(requests).toHaveLength(3);
    for (const r of requests) {
      expect(r.url).toBe("/v1/messages");
      // The key as the SDK sends it (x-api-key, or a bearer token in newer SDKs), and an API version.
      expect(r.headers["x-api-key"] ?? r.headers.authorization).toMatch(/^(Bearer )?sk-ant-test$/);
      expect(r.headers["anthropic-version"]).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    }
    expect(requests[1]!.body).toEqual(requests[0]!.body);
    // Pincer's own retry of the 529, counted in summary.json.
    expect(summary.results).toMatchObject({ model_failed_requests: 1, model_retries: 1 });
    const first = requests[0]!.body;
    expect(first).toMatchObject({
      model: "claude-fake",
      max_tokens: 4096,
      tool_choice: { type: "auto" },
      // Prompt caching: breakpoints after the system prompt, the tools and the conversation so far.
      system: [{ type: "text", text: expect.stringContaining("Environments: desktop"), cache_control: { type: "ephemeral" } }],
    });
    expect(first.tools.at(-1).cache_control).toEqual({ type: "ephemeral" });
    expect(first.tools.filter((t: any) => t.cache_control)).toHaveLength(1);
    expect(first.messages.at(-1).content.at(-1).cache_control).toEqual({ type: "ephemeral" });
    expect(first.tools.find((t: any) => t.name === "desktop__click")).toMatchObject({
      input_schema: { type: "object", properties: { x: { type: "integer" } }, required: ["x", "y"] },
    });
    expect(first.messages).toHaveLength(1);
    const content = first.messages[0].content;
    expect(content[0]).toEqual({ type: "text", text: `Task: ${task.instruction}` });
    expect(await imageSize(content.find((b: any) => b.type === "image"))).toEqual([1280, 720]);

    const second = requests[2]!.body.messages;
    expect(second.map((m: any) => m.role)).toEqual(["user", "assistant", "user"]);
    const uses = second[1].content.filter((b: any) => b.type === "tool_use");
    const results = second[2].content.filter((b: any) => b.type === "tool_result");
    expect(results).toEqual([
      { type: "tool_result", tool_use_id: uses[0].id, content: 'ok: {"x":428,"y":240}' },
      { type: "tool_result", tool_use_id: uses[1].id, content: expect.stringMatching(/^ok: \{"exit_code":0/) },
    ]);
    // tool_result blocks come first, then the new screenshot.
    expect(second[2].content.slice(0, 2).every((b: any) => b.type === "tool_result")).toBe(true);
    expect(second[2].content.at(-1).type).toBe("image");
    // Only the newest message carries the breakpoint: the older turns are the cached prefix.
    expect(second.map((m: any) => m.content.filter((b: any) => b.cache_control).length)).toEqual([0, 0, 1]);
  });

  test("with --base-url no key is needed: a local or proxy server that asks for none is reached", async () => {
    const saved = process.env.ANTHROPIC_API_KEY;
    delete process.env.ANTHROPIC_API_KEY;
    try {
      const task = memoryTask(defineTask({ id: "no-key", instruction: "Say you are done.", build: () => ({ evaluator: never }) }));
      const { summary, requests } = await run(task, [anthropicMessage([{ text: "Done." }])], { apiKey: undefined });
      expect(requests).toHaveLength(1);
      expect(summary.results).toMatchObject({ agent: "anthropic", state: "failed" });
      expect(() => new AnthropicAgent({ model: "m" })).toThrow("the anthropic agent needs ANTHROPIC_API_KEY, or --base-url for a server that needs no key");
    } finally {
      if (saved !== undefined) process.env.ANTHROPIC_API_KEY = saved;
    }
  });

  test("computer use: the computer tool at the screenshot's size, its actions mapped onto the desktop actions and scaled to the screen", async () => {
    const task = memoryTask(defineTask({ id: "computer", instruction: "Use the computer.", build: () => ({ evaluator: never }) }));
    const from = w.events.length;
    const { summary, requests } = await run(
      task,
      [
        anthropicMessage([{ tool: "computer", input: { action: "screenshot" } }]),
        anthropicError(429, { "retry-after": "0" }),
        anthropicMessage([
          { tool: "computer", input: { action: "left_click", coordinate: [428, 240] } },
          { tool: "computer", input: { action: "type", text: "hi" } },
          { tool: "computer", input: { action: "middle_click", coordinate: [428, 240] } },
          { tool: "computer", input: { action: "scroll", coordinate: [500, 300], scroll_direction: "down", scroll_amount: 2 } },
          { tool: "computer", input: { action: "cursor_position" } },
        ]),
        anthropicMessage([{ tool: "computer", input: { action: "left_click_drag", start_coordinate: [400, 200], coordinate: [600, 400] } }]),
        anthropicMessage([{ text: "Finished." }]),
      ],
      { mode: "computer-use" },
    );
    expect(summary.results).toMatchObject({ state: "failed", agent_state: "agent_done", agent: "anthropic-cu", steps: 7 });
    // left_click, middle_click (through the agent's own computer action), scroll ×2 and the drag,
    // where the scaled coordinates say.
    expect(pressesAt(from)).toEqual([
      [1, 642, 360],
      [2, 642, 360],
      [5, 750, 450],
      [5, 750, 450],
      [1, 600, 300],
    ]);
    expect(since(from).filter((e) => e.name === "KeyPress").length).toBeGreaterThanOrEqual(2);
    expect(since(from).find((e) => e.name === "ButtonRelease" && e.rootX === 900)).toMatchObject({ rootY: 600 });

    expect(requests).toHaveLength(5);
    for (const r of requests) {
      expect(r.url).toMatch(/^\/v1\/messages(\?beta=true)?$/);
      expect(r.headers["anthropic-beta"]).toBe("computer-use-2025-01-24");
    }
    const tools = requests[0]!.body.tools;
    expect(tools[0]).toEqual({ type: "computer_20250124", name: "computer", display_width_px: 1280, display_height_px: 720 });
    const names = tools.map((t: any) => t.name);
    expect(names).not.toContain("desktop__click");
    expect(names).toContain("desktop__run_command");

    // The screenshot action is answered with the new screenshot inside its tool_result.
    const afterShot = requests[1]!.body.messages.at(-1).content;
    expect(afterShot).toHaveLength(1);
    expect(afterShot[0].type).toBe("tool_result");
    expect(await imageSize(afterShot[0].content[0])).toEqual([1280, 720]);
    expect(requests[2]!.body).toEqual(requests[1]!.body);

    const results = requests[3]!.body.messages.at(-1).content;
    expect(results.map((b: any) => b.type)).toEqual(["tool_result", "tool_result", "tool_result", "tool_result", "tool_result"]);
    expect(results[0].content).toEqual([{ type: "text", text: "ok" }]);
    // middle_click has no desktop tool: it ran through the agent's computer action, with no error.
    expect(results[2].is_error).toBeFalsy();
    // cursor_position, read from the new observation in screenshot pixels (the pointer ended the scroll at 500,300), with the screenshot.
    expect(results[4].content[0]).toEqual({ type: "text", text: "X=500,Y=300" });
    expect(results[4].content[1].type).toBe("image");
  });

  test("computer use with a computer action in the environment: the whole vocabulary is forwarded in screen pixels, zoom returns an image", async () => {
    const task = memoryTask(
      defineTask({
        id: "computer-full",
        instruction: "Triple-click the square and zoom into it.",
        build: () => ({ evaluator: never, extraActions: { desktop: [createComputerAction({ display: "screen" })] } }),
      }),
    );
    const from = w.events.length;
    const { summary, requests } = await run(
      task,
      [
        anthropicMessage([
          { tool: "computer", input: { action: "triple_click", coordinate: [428, 240] } },
          { tool: "computer", input: { action: "zoom", region: [300, 150, 400, 250] } },
        ]),
        anthropicMessage([{ text: "Done." }]),
      ],
      { mode: "computer-use", computerTool: "computer_20251124" },
    );
    expect(summary.results).toMatchObject({ agent: "anthropic-cu", steps: 2 });
    expect(pressesAt(from)).toEqual([
      [1, 642, 360],
      [1, 642, 360],
      [1, 642, 360],
    ]);
    expect(requests[0]!.headers["anthropic-beta"]).toBe("computer-use-2025-11-24");
    expect(requests[0]!.body.tools[0]).toMatchObject({ type: "computer_20251124", enable_zoom: true, display_width_px: 1280 });
    expect(requests[0]!.body.tools.map((t: any) => t.name)).not.toContain("desktop__computer");
    const results = requests[1]!.body.messages.at(-1).content;
    // The zoom: screenshot region (300,150)-(400,250) is screen (450,225)-(600,375), sent at screen resolution.
    const zoom = results[1].content[0];
    expect(zoom.type).toBe("image");
    const meta = await sharp(Buffer.from(zoom.source.data, "base64")).metadata();
    expect([meta.width, meta.height]).toEqual([150, 150]);
  });

  test("every request body of this file matches the SDK's MessageCreateParamsNonStreaming (the beta one for computer use)", () => {
    expect(runs.recorded.length).toBeGreaterThan(5);
    expect(
      sdkBodyErrors(runs.recorded.map((r) => ({ kind: r.headers["anthropic-beta"] ? ("anthropic-beta" as const) : ("anthropic" as const), body: r.body }))),
    ).toEqual([]);
  });
});
