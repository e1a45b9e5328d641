import { describe, expect, test } from "vitest";
import { agentFactory, portableAgentChoice } from "../../../packages/controller/src/agents/factory.js";
import { checkProgramCommand, passedEnvironment, stepToolResult } from "../../../packages/controller/src/agents/program.js";

describe("an agent program's command, checked before machines start", () => {
  test("a program that is not on the agent's PATH, or not there at all, is named with the fix", () => {
    expect(() => checkProgramCommand(["no-such-agent-cli"])).toThrow(
      "--agent command: no program no-such-agent-cli on the agent's PATH (/usr/local/bin:/usr/bin:/bin); give its full path or pass PATH with --agent-env PATH",
    );
    expect(() => checkProgramCommand(["./nowhere/agent.py"])).toThrow("--agent command: no program ./nowhere/agent.py exists");
    expect(() => checkProgramCommand(["sh", "-c", "true"])).not.toThrow();
    expect(() => portableAgentChoice({ kind: "command" })).toThrow(/give the agent program after --/);
  });

  test("--agent-env passes only variables that are set, by valid names", () => {
    process.env.PINCER_PROGRAM_TEST = "x";
    expect(passedEnvironment(["PINCER_PROGRAM_TEST"])).toEqual({ PINCER_PROGRAM_TEST: "x" });
    expect(() => passedEnvironment(["PINCER_NOT_SET_ANYWHERE"])).toThrow("--agent-env PINCER_NOT_SET_ANYWHERE: PINCER_NOT_SET_ANYWHERE is not set");
    expect(() => passedEnvironment(["A=B"])).toThrow("--agent-env A=B: not a variable name");
    expect(() => agentFactory({ kind: "command", command: ["sh"], agentEnv: ["PINCER_NOT_SET_ANYWHERE"] })).toThrow(/is not set/);
  });
});

describe("a step's result as the program's tool result", () => {
  const base = {
    step: 1,
    tool: "desktop__click",
    env: "desktop",
    action: "click",
    evaluation: {} as never,
    terminated: false,
    truncated: false,
    reason: null,
    durationMs: 1,
  };
  test("an error is isError with its type; the end of the attempt is said", () => {
    expect(stepToolResult({ ...base, ok: false, error: { type: "InvalidArgumentError", message: "x: expected a number" } })).toEqual({
      isError: true,
      content: [{ type: "text", text: "InvalidArgumentError: x: expected a number" }],
    });
    expect(stepToolResult({ ...base, ok: true, result: undefined, reason: "step_limit" }).content).toEqual([
      { type: "text", text: "ok" },
      { type: "text", text: "The attempt has ended (step_limit): no more calls are taken." },
    ]);
  });

  test("a screenshot is image content with the MIME type of its bytes; other bytes become their size", () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0]);
    const r = stepToolResult({ ...base, ok: true, result: { data: png, mimeType: "image/jpeg", width: 2, height: 1 } });
    expect(r.content[0]).toEqual({ type: "image", data: png.toString("base64"), mimeType: "image/png" });
    expect(stepToolResult({ ...base, ok: true, result: { bytes: Buffer.alloc(5) } }).content).toEqual([{ type: "text", text: '{"bytes":"<5 bytes>"}' }]);
  });
});
