import { describe, expect, test } from "vitest";
import { sdkBodyErrors } from "../../fixtures/sdkTypes.js";

// The check the wire tests run on recorded request bodies: it must pass good bodies and fail bad ones.
// Each check compiles against the SDKs' declarations: seconds, not milliseconds, on a busy machine.
describe("request bodies checked against the SDKs' TypeScript types", { timeout: 30_000 }, () => {
  const chat = { model: "m", messages: [{ role: "user", content: "hi" }], max_completion_tokens: 10 };
  const responses = {
    model: "computer-use-preview",
    input: [{ type: "computer_call_output", call_id: "c1", output: { type: "computer_screenshot", image_url: `data:image/png;base64,${"A".repeat(500)}` } }],
    tools: [{ type: "computer_use_preview", display_width: 1280, display_height: 720, environment: "linux" }],
    truncation: "auto",
    previous_response_id: "resp_1",
  };
  const anthropic = { model: "claude", max_tokens: 10, messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }] };
  const beta = { ...anthropic, tools: [{ type: "computer_20250124", name: "computer", display_width_px: 1280, display_height_px: 720 }] };

  test("well-formed bodies of each kind pass", () => {
    expect(
      sdkBodyErrors([
        { kind: "openai-chat", body: chat },
        { kind: "openai-responses", body: responses },
        { kind: "anthropic", body: anthropic },
        { kind: "anthropic-beta", body: beta },
      ]),
    ).toEqual([]);
  });

  test("a wrong type, an unknown field, a missing field or a wrong tool shape is reported, for the body it is in", () => {
    const errors = sdkBodyErrors([
      { kind: "openai-chat", body: chat },
      { kind: "openai-chat", body: { ...chat, max_tokens: "x" } },
      { kind: "openai-responses", body: { ...responses, truncate: "auto" } },
      { kind: "openai-responses", body: { ...responses, tools: [{ type: "computer_use_preview", display_width: 1280, environment: "linux" }] } },
      { kind: "anthropic", body: { model: "claude", messages: [] } },
      { kind: "anthropic-beta", body: { ...beta, tools: [{ type: "computer_20250124", name: "computer", display_width: 1280, display_height_px: 720 }] } },
    ]);
    expect(errors.some((e) => e.startsWith("b0"))).toBe(false);
    expect(errors.find((e) => e.startsWith("b1"))).toMatch(/Type 'string' is not assignable to type 'number'/);
    expect(errors.find((e) => e.startsWith("b2"))).toMatch(/known properties, and '"truncate"' does not exist/);
    expect(errors.find((e) => e.startsWith("b3"))).toMatch(/display_height/);
    expect(errors.find((e) => e.startsWith("b4"))).toMatch(/max_tokens/);
    expect(errors.find((e) => e.startsWith("b5"))).toMatch(/display_width/);
  });
});
