import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { defineTask, type DatasetTask, type TaskModule } from "@pincer/controller/datasets";
import { evaluator } from "@pincer/controller";
import { OpenAIAgent, type OpenAIAgentOptions } from "@pincer/controller/agents";
import { sdkBodyErrors } from "../fixtures/sdkTypes.js";
import { spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";
import { moduleTask } from "../fixtures/tasks.js";
import { openaiError, openaiText, openaiToolCalls, type Reply } from "../fixtures/fakeProviders.js";
import { openWitnessWindow, type WitnessWindow } from "../fixtures/xwitness.js";
import { WireRuns } from "../fixtures/wireRuns.js";
import { startXvfb, type XServer } from "../fixtures/xvfb.js";

// 1920×1080: the runner shows the model 1280×720 screenshots (scale 2/3), so a click the model puts
// at (428, 240) of the screenshot must land at (642, 360) on the screen.
let xs: XServer;
let daemon: RunningDaemon;
let w: WitnessWindow;
let work: string;

beforeAll(async () => {
  xs = await startXvfb({ width: 1920, height: 1080 });
  daemon = await spawnDaemon({ display: xs.display });
  await daemon.env.waitUntilReady({ timeoutMs: 20_000 });
  w = await openWitnessWindow(xs.display, { x: 480, y: 270, width: 960, height: 540, color: 0x00ff00 });
  work = mkdtempSync(join(tmpdir(), "pincer-agents-openai-"));
});

afterAll(async () => {
  await runs.close();
  w?.close();
  await daemon?.close();
  await xs?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

const memoryTask = (module: TaskModule): DatasetTask => moduleTask(module, work);

const runs = new WireRuns(() => ({ daemonAddress: daemon.address, outDir: join(work, "results"), maxSteps: 10 }));

const run = (task: DatasetTask, script: Reply[], opts: Partial<OpenAIAgentOptions> = {}) =>
  runs.run(
    task,
    script,
    (fake) =>
      new OpenAIAgent({
        model: "fake-model",
        baseURL: fake.url,
        apiKey: "test-key",
        prices: { "*": { input: 2, output: 8 } },
        ...opts,
      }),
  );

async function imageOf(url: string) {
  const m = /^data:(image\/\w+);base64,(.+)$/.exec(url);
  expect(m, url.slice(0, 40)).not.toBeNull();
  return { mime: m![1], meta: await sharp(Buffer.from(m![2]!, "base64")).metadata() };
}

const pressesAt = (from: number) =>
  w.events
    .slice(from)
    .filter((e) => e.name === "ButtonPress")
    .map((e) => [e.detail, e.rootX, e.rootY]);

describe("OpenAI-compatible agent against a local chat-completions server, acting on a real daemon", () => {
  test("tool calling: schemas and screenshots sent, 429 and 500 retried, parallel calls run, results fed back, a malformed call answered", async () => {
    const file = join(work, "hello.txt");
    const task = memoryTask(
      defineTask({
        id: "write-hello",
        instruction: `Click the green square, then write hello into ${file}.`,
        build: () => ({
          evaluator: evaluator({
            name: "says_hello",
            description: "The file holds hello.",
            run: async (_p, { env, signal }) => (await env.files.exists(file, { signal })) && (await env.files.read(file, { signal })) === "hello",
          }),
        }),
      }),
    );
    const from = w.events.length;
    const { summary, requests } = await run(task, [
      openaiError(429, { "retry-after-ms": "20" }),
      openaiError(500, { "retry-after-ms": "10" }),
      openaiToolCalls([
        { name: "desktop__click", args: { x: 428, y: 240 } },
        { name: "desktop__run_command", args: { command: `printf hel > ${file}` } },
      ]),
      openaiToolCalls([{ name: "desktop__type", args: { raw: '{"text": "oops' } }], { prompt: 2000, completion: 30 }),
      openaiToolCalls([{ name: "desktop__run_command", args: { command: `printf lo >> ${file}` } }], { prompt: 2100, completion: 20 }),
    ]);

    // The calls ran on the machine: the click landed scaled back to the screen, the file was written.
    expect(pressesAt(from)).toEqual([[1, 642, 360]]);
    expect(summary.results).toMatchObject({ state: "passed", score: 1, end_reason: "success", agent: "openai", model: "fake-model", steps: 3 });
    // Tokens of the three answered requests (the 429 and 500 cost nothing), and the cost at $2/$8 per Mtok.
    expect(summary.results).toMatchObject({ input_tokens: 1200 + 2000 + 2100, output_tokens: 40 + 30 + 20, total_tokens: 5390, model_requests: 3 });
    expect((summary.results as unknown as { cost_usd: number }).cost_usd).toBeCloseTo((5300 * 2 + 90 * 8) / 1e6, 10);
    const turns = summary.results.messages.filter((m) => (m as { role: string }).role === "assistant") as Array<{
      usage: { input_tokens: number; requests: number };
      model_ms: number;
    }>;
    expect(turns.map((t) => [t.usage.input_tokens, t.usage.requests])).toEqual([
      [1200, 1],
      [4100, 2],
    ]);
    expect(summary.results.total_timing.model_ms).toBeGreaterThan(0);
    expect(summary.results.total_timing.env_ms).toBeGreaterThan(0);

    expect(requests).toHaveLength(5);
    for (const r of requests) {
      expect(r.method).toBe("POST");
      expect(r.url).toBe("/v1/chat/completions");
      expect(r.headers.authorization).toBe("Bearer test-key");
    }
    // Retries resend the same request.
    expect(requests[1]!.body).toEqual(requests[0]!.body);
    expect(requests[2]!.body).toEqual(requests[0]!.body);
    // Pincer's own retries (429 after the server's retry-after-ms, then 500), counted in summary.json.
    expect(summary.results).toMatchObject({ model_failed_requests: 2, model_retries: 2 });

    const first = requests[0]!.body;
    expect(first).toMatchObject({ model: "fake-model", tool_choice: "auto", parallel_tool_calls: true, max_completion_tokens: 4096 });
    const click = first.tools.find((t: any) => t.function.name === "desktop__click");
    expect(click).toMatchObject({
      type: "function",
      function: { parameters: { type: "object", properties: { x: { type: "integer" }, y: { type: "integer" } }, required: ["x", "y"] } },
    });
    expect(first.tools.map((t: any) => t.function.name)).toEqual(expect.arrayContaining(["desktop__run_command", "desktop__type", "root__complete"]));
    expect(first.messages[0]).toMatchObject({ role: "system", content: expect.stringContaining("Environments: desktop") });
    const user = first.messages[1];
    expect(user.role).toBe("user");
    expect(user.content[0]).toEqual({ type: "text", text: `Task: ${task.instruction}` });
    const img = await imageOf(user.content.find((p: any) => p.type === "image_url").image_url.url);
    expect(img).toMatchObject({ mime: "image/jpeg", meta: { width: 1280, height: 720 } });

    // Turn 2: the assistant's two calls, then one tool message per call id, then the new screenshot.
    const second = requests[3]!.body.messages;
    const assistant = second[2];
    expect(assistant.tool_calls.map((c: any) => c.function.name)).toEqual(["desktop__click", "desktop__run_command"]);
    expect(second[3]).toEqual({ role: "tool", tool_call_id: assistant.tool_calls[0].id, content: 'ok: {"x":428,"y":240}' });
    expect(second[4]).toMatchObject({ role: "tool", tool_call_id: assistant.tool_calls[1].id, content: expect.stringMatching(/^ok: \{"exit_code":0/) });
    expect(second[5].role).toBe("user");
    expect(second[5].content.some((p: any) => p.type === "image_url")).toBe(true);

    // The malformed call did not run; the model was told why, within the same turn.
    const third = requests[4]!.body.messages;
    const bad = third.at(-2);
    expect(bad.tool_calls[0].function.arguments).toBe('{"text": "oops');
    expect(third.at(-1)).toMatchObject({
      role: "tool",
      tool_call_id: bad.tool_calls[0].id,
      content: expect.stringMatching(/arguments of desktop__type are not valid JSON.*nothing ran/),
    });
  });

  test("JSON mode for models without tool calling: tools in the prompt, one fenced object per reply, a parse error fed back", async () => {
    const task = memoryTask(
      defineTask({
        id: "json-click",
        instruction: "Click the green square, then say you are done.",
        build: () => ({
          evaluator: evaluator({
            name: "clicked",
            description: "The witness window was clicked at its centre.",
            run: () => w.events.some((e) => e.name === "ButtonPress" && e.rootX === 960 && e.rootY === 540),
          }),
        }),
      }),
    );
    const from = w.events.length;
    const { summary, requests } = await run(
      task,
      [openaiText("I will click the square now."), openaiText('Clicking the centre.\n```json\n{"tool": "desktop__click", "args": {"x": 640, "y": 360}}\n```')],
      { mode: "json" },
    );
    expect(pressesAt(from)).toEqual([[1, 960, 540]]);
    expect(summary.results).toMatchObject({ state: "passed", end_reason: "success", agent: "openai-json", steps: 1, input_tokens: 2600, model_requests: 2 });
    const [first, second] = requests.map((r) => r.body);
    expect(first.tools).toBeUndefined();
    expect(first.tool_choice).toBeUndefined();
    expect(first.messages[0].content).toContain("- desktop__click: ");
    expect(first.messages[0].content).toContain('"tool": "<tool name>"');
    expect(second.messages.at(-2)).toEqual({ role: "assistant", content: "I will click the square now." });
    expect(second.messages.at(-1)).toEqual({
      role: "user",
      content: expect.stringMatching(/^Your reply could not be used: your reply has no fenced ```json block/),
    });
  });

  test("JSON mode: results come back as text with the next screenshot; done ends the task", async () => {
    const task = memoryTask(
      defineTask({
        id: "json-done",
        instruction: "Move the pointer, then finish.",
        build: () => ({ evaluator: evaluator({ name: "never", description: "Never passes by itself.", run: () => false }) }),
      }),
    );
    const { summary, requests } = await run(
      task,
      [openaiText('```json\n{"tool": "desktop__move", "args": {"x": 100, "y": 50}}\n```'), openaiText('```json\n{"done": true}\n```')],
      { mode: "json", history: { keepScreenshots: 1 } },
    );
    expect(await daemon.env.mouse.position()).toEqual({ x: 150, y: 75 });
    expect(summary.results).toMatchObject({ state: "failed", agent_state: "agent_done", end_reason: "agent_complete", steps: 1 });
    const last = requests[1]!.body.messages.at(-1);
    expect(last.content[0]).toEqual({ type: "text", text: 'Result of desktop__move: ok: {"x":100,"y":50}' });
    expect(last.content.some((p: any) => p.type === "image_url")).toBe(true);
    // keepScreenshots 1: the first screenshot is no longer sent.
    const firstUser = requests[1]!.body.messages[1];
    expect(firstUser.content.some((p: any) => p.type === "image_url")).toBe(false);
    expect(firstUser.content.at(-1).text).toMatch(/screenshot omitted/);
  });

  test("a model that keeps sending unusable replies ends the task as agent_error, with the reason", async () => {
    const task = memoryTask(
      defineTask({
        id: "hopeless",
        instruction: "Anything.",
        build: () => ({ evaluator: evaluator({ name: "never", description: "Never.", run: () => false }) }),
      }),
    );
    const bad = () => openaiToolCalls([{ name: "desktop__click", args: { raw: "{x:1" } }]);
    const { summary } = await run(task, [bad(), bad(), bad()]);
    expect(summary.results).toMatchObject({ state: "agent_error", steps: 0, error: expect.stringMatching(/3 unusable replies in a row.*not valid JSON/) });
  });

  test("every request body of this file matches the SDK's ChatCompletionCreateParamsNonStreaming", () => {
    expect(runs.recorded.length).toBeGreaterThan(5);
    expect(sdkBodyErrors(runs.recorded.map((r) => ({ kind: "openai-chat" as const, body: r.body })))).toEqual([]);
  });
});
