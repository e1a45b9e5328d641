import { describe, expect, test } from "vitest";
import { jsonModeInstructions, JsonReplyError, parseJsonReply } from "../../../packages/controller/src/agents/jsonReply.js";

const tools = new Set(["desktop__click", "root__complete"]);

describe("parseJsonReply (models without tool calling)", () => {
  test("one fenced JSON object after reasoning is a call", () => {
    const reply = 'The button is at the top.\n```json\n{"tool": "desktop__click", "args": {"x": 10, "y": 20}}\n```';
    expect(parseJsonReply(reply, tools)).toEqual({ kind: "call", tool: "desktop__click", args: { x: 10, y: 20 } });
  });

  test("done, with or without an answer; a bare JSON reply is accepted", () => {
    expect(parseJsonReply('```\n{"done": true}\n```', tools)).toEqual({ kind: "done" });
    expect(parseJsonReply('{"done": true, "answer": "42"}', tools)).toEqual({ kind: "done", answer: "42" });
  });

  test.each([
    ["no block", "I will click the button.", /no fenced/],
    ["two blocks", '```json\n{"done": true}\n```\n```json\n{"done": true}\n```', /2 fenced JSON blocks/],
    ["bad JSON", '```json\n{"tool": "desktop__click", "args": {x: 1}}\n```', /does not parse/],
    ["unknown tool", '```json\n{"tool": "desktop__fly", "args": {}}\n```', /no tool named "desktop__fly"; the tools are: desktop__click, root__complete/],
    ["args not an object", '```json\n{"tool": "desktop__click", "args": [1, 2]}\n```', /"args" must be an object/],
    ["neither call nor done", '```json\n{"action": "click"}\n```', /needs "tool"/],
  ])("%s: a JsonReplyError written for the model", (_name, reply, message) => {
    expect(() => parseJsonReply(reply, tools)).toThrow(JsonReplyError);
    expect(() => parseJsonReply(reply, tools)).toThrow(message);
  });

  test("the instructions list each tool with its schema and the reply format", () => {
    const text = jsonModeInstructions([
      { name: "desktop__click", description: "Left-click.", parameters: { type: "object", properties: { x: { type: "integer" } } } },
    ]);
    expect(text).toContain('- desktop__click: Left-click.\n  parameters (JSON Schema): {"type":"object","properties":{"x":{"type":"integer"}}}');
    expect(text).toContain('{"tool": "<tool name>", "args": {');
    expect(text).toContain('{"done": true}');
  });
});
