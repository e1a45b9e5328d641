import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { OpenAIResponsesAgent, type OpenAIResponsesAgentOptions } from "@pincer/controller/agents";
import { defineTask, type DatasetTask, type TaskModule } from "@pincer/controller/datasets";
import { evaluator } from "@pincer/controller";
import { spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";
import { moduleTask } from "../fixtures/tasks.js";
import { openaiError, openaiResponse, type Reply } from "../fixtures/fakeProviders.js";
import { sdkBodyErrors } from "../fixtures/sdkTypes.js";
import { openWitnessWindow, type WitnessWindow } from "../fixtures/xwitness.js";
import { WireRuns } from "../fixtures/wireRuns.js";
import { startXvfb, type XServer } from "../fixtures/xvfb.js";

// 1920×1080 seen through the runner's 1280×720 screenshots: the computer tool's display is
// 1280×720, and model pixel (428, 240) is screen (642, 360).
let xs: XServer;
let daemon: RunningDaemon;
let w: WitnessWindow;
let work: string;

beforeAll(async () => {
  xs = await startXvfb({ width: 1920, height: 1080 });
  daemon = await spawnDaemon({ display: xs.display });
  await daemon.env.waitUntilReady({ timeoutMs: 20_000 });
  w = await openWitnessWindow(xs.display, { x: 480, y: 270, width: 960, height: 540, color: 0x00ff00 });
  work = mkdtempSync(join(tmpdir(), "pincer-agents-openai-cu-"));
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

const run = (task: DatasetTask, script: Reply[], opts: Partial<OpenAIResponsesAgentOptions> = {}) =>
  runs.run(task, script, (fake) => new OpenAIResponsesAgent({ model: "computer-use-preview", baseURL: fake.url, apiKey: "test-key", ...opts }));

const since = (from: number) => w.events.slice(from);
const pressesAt = (from: number) =>
  since(from)
    .filter((e) => e.name === "ButtonPress")
    .map((e) => [e.detail, e.rootX, e.rootY]);

async function imageSize(url: string): Promise<[number | undefined, number | undefined]> {
  const m = /^data:image\/\w+;base64,(.+)$/.exec(url);
  expect(m, url.slice(0, 40)).not.toBeNull();
  const meta = await sharp(Buffer.from(m![1]!, "base64")).metadata();
  return [meta.width, meta.height];
}

const SAFETY = { id: "cu_sc_1", code: "malicious_instructions", message: "The screen may contain instructions that were not from the user." };

describe("openai-cu: the Responses API with the computer-use tool, against a local server, acting on a real daemon", () => {
  test("a computer_call click lands on the screen, run_command runs as a function, outputs go back chained by previous_response_id", async () => {
    const file = join(work, "cu.txt");
    const task = memoryTask(defineTask({ id: "cu", instruction: `Click the square and write ok into ${file}.`, build: () => ({ evaluator: never }) }));
    const from = w.events.length;
    const click = openaiResponse(
      [{ reasoning: "The square is in the middle." }, { computer: { type: "click", button: "left", x: 428, y: 240 }, safetyChecks: [SAFETY] }],
      { input: 2000, output: 40 },
    );
    const command = openaiResponse([{ function: "desktop__run_command", args: { command: `printf ok > ${file}` } }], { input: 3000, output: 30 });
    const done = openaiResponse([{ text: "Done: clicked and wrote the file." }], { input: 4000, output: 10 });
    const { summary, requests } = await run(task, [openaiError(500, { "retry-after-ms": "10" }), click, command, done]);
    // The click really happened on the X server, scaled from the 1280×720 display to the screen.
    expect(pressesAt(from)).toEqual([[1, 642, 360]]);
    expect(readFileSync(file, "utf8")).toBe("ok");
    expect(summary.results).toMatchObject({
      state: "failed",
      agent_state: "agent_done",
      end_reason: "agent_complete",
      agent: "openai-cu",
      model: "computer-use-preview",
      steps: 2,
      input_tokens: 9000,
      output_tokens: 80,
      model_requests: 3,
    });
    // The acknowledged safety check is in the trajectory, with the turn that had it.
    const said = summary.results.messages.filter((m) => (m as { role: string }).role === "assistant").map((m) => (m as { content: string }).content);
    expect(said[0]).toContain("safety check acknowledged: malicious_instructions: The screen may contain instructions");
    expect(said.at(-1)).toBe("Done: clicked and wrote the file.");

    expect(requests).toHaveLength(4);
    for (const r of requests) {
      expect(r.method).toBe("POST");
      expect(r.url).toBe("/v1/responses");
      expect(r.headers.authorization).toBe("Bearer test-key");
    }
    // Pincer's retry of the 500 resends the same request and is counted in summary.json.
    expect(requests[1]!.body).toEqual(requests[0]!.body);
    expect(summary.results).toMatchObject({ model_failed_requests: 1, model_retries: 1 });

    const first = requests[0]!.body;
    expect(first).toMatchObject({ model: "computer-use-preview", truncation: "auto", max_output_tokens: 4096 });
    expect(first.instructions).toContain("The computer tool drives desktop");
    expect(first.previous_response_id).toBeUndefined();
    expect(first.tools[0]).toEqual({ type: "computer_use_preview", display_width: 1280, display_height: 720, environment: "linux" });
    const functions = first.tools.slice(1);
    expect(functions.every((t: any) => t.type === "function" && t.strict === false)).toBe(true);
    const names = functions.map((t: any) => t.name);
    expect(names).toEqual(expect.arrayContaining(["desktop__run_command", "root__complete"]));
    for (const replaced of ["desktop__click", "desktop__type", "desktop__openai_computer", "desktop__computer"]) expect(names).not.toContain(replaced);
    expect(first.input).toHaveLength(1);
    expect(first.input[0].role).toBe("user");
    expect(first.input[0].content[0]).toEqual({ type: "input_text", text: `Task: ${task.instruction}` });
    const image = first.input[0].content.find((c: any) => c.type === "input_image");
    expect(await imageSize(image.image_url)).toEqual([1280, 720]);

    // Turn 2: chained to the reply with the computer call; its output is the new screenshot, the safety check acknowledged.
    const second = requests[2]!.body;
    expect(second.previous_response_id).toBe(click.body.id);
    expect(second.input).toHaveLength(1);
    const out = second.input[0];
    expect(out).toMatchObject({ type: "computer_call_output", call_id: click.body.output[1]!.call_id, output: { type: "computer_screenshot" } });
    expect(out.acknowledged_safety_checks).toEqual([SAFETY]);
    expect(await imageSize(out.output.image_url)).toEqual([1280, 720]);

    // Turn 3: the function call's output, chained to the next reply.
    const third = requests[3]!.body;
    expect(third.previous_response_id).toBe(command.body.id);
    expect(third.input[0]).toEqual({
      type: "function_call_output",
      call_id: command.body.output[0]!.call_id,
      output: expect.stringMatching(/^ok: \{"exit_code":0/),
    });
    // No computer call answered: the screenshot comes in a user message.
    expect(third.input[1].role).toBe("user");
    expect(third.input[1].content.some((c: any) => c.type === "input_image")).toBe(true);
  });

  test("double_click with keys: null, an unknown action answered with an error, a click with SHIFT held", async () => {
    const task = memoryTask(defineTask({ id: "cu-more", instruction: "Use the computer.", build: () => ({ evaluator: never }) }));
    const from = w.events.length;
    const bogus = openaiResponse([{ computer: { type: "fly", x: 1, y: 1 } }]);
    const { summary, requests } = await run(task, [
      openaiResponse([{ computer: { type: "double_click", x: 428, y: 240, keys: null } }]),
      bogus,
      openaiResponse([{ computer: { type: "click", button: "left", x: 500, y: 300, keys: ["SHIFT"] } }]),
      openaiResponse([{ text: "Done." }]),
    ]);
    expect(summary.results).toMatchObject({ agent: "openai-cu", agent_state: "agent_done", steps: 2 });
    expect(pressesAt(from)).toEqual([
      [1, 642, 360],
      [1, 642, 360],
      [1, 750, 450],
    ]);
    const shiftClick = since(from).filter((e) => e.name === "ButtonPress")[2]!;
    expect(shiftClick.state & 1).toBe(1);
    // The unknown action ran nothing; the call is still answered with a screenshot, and the error told.
    const answer = requests[2]!.body;
    expect(answer.previous_response_id).toBe(bogus.body.id);
    expect(answer.input[0]).toMatchObject({ type: "computer_call_output", call_id: bogus.body.output[0]!.call_id });
    expect(answer.input[1]).toMatchObject({
      role: "user",
      content: [{ type: "input_text", text: expect.stringMatching(/failed: error: invalid computer action/) }],
    });
  });

  test("with --base-url no key is needed; without either the agent says what to set", async () => {
    const saved = process.env.OPENAI_API_KEY;
    delete process.env.OPENAI_API_KEY;
    try {
      const task = memoryTask(defineTask({ id: "cu-no-key", instruction: "Say you are done.", build: () => ({ evaluator: never }) }));
      const { requests } = await run(task, [openaiResponse([{ text: "Done." }])], { apiKey: undefined });
      expect(requests[0]!.headers.authorization).toBe("Bearer no-key");
      expect(() => new OpenAIResponsesAgent({ model: "m" })).toThrow("the openai-cu agent needs OPENAI_API_KEY, or --base-url for a server that needs no key");
    } finally {
      if (saved !== undefined) process.env.OPENAI_API_KEY = saved;
    }
  });

  test("every request body of this file matches the SDK's ResponseCreateParamsNonStreaming", () => {
    expect(runs.recorded.length).toBeGreaterThanOrEqual(8);
    expect(sdkBodyErrors(runs.recorded.map((r) => ({ kind: "openai-responses", body: r.body })))).toEqual([]);
  });
});
