import { describe, expect, test } from "vitest";
import { createMemoryEnv, type MemoryEnv } from "@pincer/controller";
import { InvalidArgumentError, UnimplementedError } from "@pincer/shared";
import type { AnyAction } from "../../../packages/controller/src/actions/action.js";
import { callsOfAction, OSWORLD_ACTION_SPACES } from "../../../packages/controller/src/episodes/actionSpaces.js";
import type { Req } from "../../../packages/controller/src/episodes/wire.js";

// Step actions in Anthropic's and OpenAI's computer-use vocabularies: the calls the episode makes
// of them (the ones Pincer's computer-use agents make), what those calls do on a machine, and the
// errors of input that is not an action.

const TOOLS = ["desktop__click", "desktop__type", "desktop__wait", "desktop__computer", "desktop__openai_computer", "root__complete"];
const anthropic = (input: unknown): Req<"Step">["action"] => ({
  kind: "anthropicComputerJson",
  anthropicComputerJson: typeof input === "string" ? input : JSON.stringify(input),
});
const openai = (input: unknown): Req<"Step">["action"] => ({
  kind: "openaiComputerJson",
  openaiComputerJson: typeof input === "string" ? input : JSON.stringify(input),
});
const calls = (action: Req<"Step">["action"]) => callsOfAction(action, TOOLS, "desktop", OSWORLD_ACTION_SPACES);

/** The error `fn` throws. */
function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error("expected an error");
}

/** Runs the calls' actions (the ones the action spaces add) on a memory machine of 1280 × 800. */
async function perform(stepCalls: ReturnType<typeof calls>): Promise<MemoryEnv> {
  const env = createMemoryEnv({ width: 1280, height: 800 });
  for (const c of stepCalls) {
    if (!("tool" in c)) throw new Error(`not a tool call: ${JSON.stringify(c)}`);
    const name = c.tool.replace(/^desktop__/, "");
    if (name === "wait") continue;
    const action = OSWORLD_ACTION_SPACES.actions.find((a) => a.name === name) as AnyAction | undefined;
    if (!action) throw new Error(`no action ${name}`);
    await action.call(c.args ?? {}, { env, signal: new AbortController().signal });
  }
  return env;
}

describe("Anthropic's computer tool as a step action", () => {
  test("every environment gets the computer and openai_computer actions the agents use", () => {
    expect(OSWORLD_ACTION_SPACES.actions.map((a) => a.name)).toEqual(expect.arrayContaining(["pyautogui", "computer", "openai_computer"]));
  });

  test("an action becomes a call of the computer action, coordinates taken as screen pixels", async () => {
    expect(calls(anthropic({ action: "type", text: "echo hi\n" }))).toEqual([{ tool: "desktop__computer", args: { action: "type", text: "echo hi\n" } }]);
    const click = calls(anthropic({ action: "left_click", coordinate: [100.4, 200.6], text: "shift" }));
    expect(click).toEqual([{ tool: "desktop__computer", args: { action: "left_click", coordinate: [100, 201], text: "shift" } }]);
    const env = await perform([...calls(anthropic({ action: "type", text: "ab" })), ...click]);
    expect(env.typed).toBe("ab");
    expect(env.events.at(-1)).toMatchObject({ type: "click", at: { x: 100, y: 201 }, button: "left", count: 1, modifiers: ["Shift_L"] });
  });

  test("actions the desktop tools lack run too (triple_click); key chords are pressed in turn", async () => {
    const env = await perform([
      ...calls(anthropic({ action: "triple_click", coordinate: [5, 6] })),
      ...calls(anthropic({ action: "key", text: "ctrl+a Return" })),
    ]);
    expect(env.events).toEqual([
      expect.objectContaining({ type: "click", at: { x: 5, y: 6 }, count: 3 }),
      expect.objectContaining({ type: "press", keys: ["Control_L", "a"] }),
      expect.objectContaining({ type: "press", keys: ["Return"] }),
    ]);
  });

  test("screenshot and cursor_position are a step that does nothing", () => {
    expect(calls(anthropic({ action: "screenshot" }))).toEqual([{ tool: "desktop__wait", args: { seconds: 0 } }]);
    expect(calls(anthropic({ action: "cursor_position" }))).toEqual([{ tool: "desktop__wait", args: { seconds: 0 } }]);
  });

  test("input that is not JSON or not an action is INVALID_ARGUMENT naming the field", () => {
    const notJson = thrown(() => calls(anthropic("{action")));
    expect(notJson).toBeInstanceOf(InvalidArgumentError);
    expect(notJson.message).toMatch(/^action\.anthropic_computer_json: not JSON/);
    const unknown = thrown(() => calls(anthropic({ action: "teleport" })));
    expect(unknown).toBeInstanceOf(InvalidArgumentError);
    expect(unknown.message).toMatch(/^action\.anthropic_computer_json: .*action/);
    expect(thrown(() => calls(anthropic([1, 2])))).toBeInstanceOf(InvalidArgumentError);
  });
});

describe("OpenAI's computer_call actions as step actions", () => {
  test("an action becomes a call of the openai_computer action; fields sent as null are dropped", async () => {
    const click = calls(openai({ type: "click", x: 10, y: 20, button: "right", keys: null }));
    expect(click).toEqual([{ tool: "desktop__openai_computer", args: { type: "click", x: 10, y: 20, button: "right" } }]);
    const typed = calls(openai({ type: "type", text: "echo hi" }));
    const enter = calls(openai({ type: "keypress", keys: ["ENTER"] }));
    const env = await perform([...click, ...typed, ...enter]);
    expect(env.events[0]).toMatchObject({ type: "click", at: { x: 10, y: 20 }, button: "right" });
    expect(env.typed).toBe("echo hi");
    expect(env.events.at(-1)).toMatchObject({ type: "press", keys: ["Return"] });
  });

  test("drag paths are screen pixels too; screenshot is a step that does nothing", () => {
    const drag = calls(
      openai({
        type: "drag",
        path: [
          { x: 1.2, y: 2 },
          { x: 30, y: 40.7 },
        ],
      }),
    );
    expect(drag).toEqual([
      {
        tool: "desktop__openai_computer",
        args: {
          type: "drag",
          path: [
            { x: 1, y: 2 },
            { x: 30, y: 41 },
          ],
        },
      },
    ]);
    expect(calls(openai({ type: "screenshot" }))).toEqual([{ tool: "desktop__wait", args: { seconds: 0 } }]);
  });

  test("input that is not JSON or not an action is INVALID_ARGUMENT naming the field", () => {
    expect(thrown(() => calls(openai("")))).toMatchObject({ message: expect.stringMatching(/^action\.openai_computer_json: not JSON/) });
    const unknown = thrown(() => calls(openai({ type: "hover", x: 1, y: 2 })));
    expect(unknown).toBeInstanceOf(InvalidArgumentError);
    expect(unknown.message).toMatch(/^action\.openai_computer_json: .*type/);
  });

  test("a server without the action spaces refuses both, saying what it has", () => {
    for (const action of [anthropic({ action: "screenshot" }), openai({ type: "screenshot" })]) {
      const err = thrown(() => callsOfAction(action, TOOLS, "desktop", null));
      expect(err).toBeInstanceOf(UnimplementedError);
      expect(err.message).toMatch(/computer action space is not available on this server/);
    }
  });
});
