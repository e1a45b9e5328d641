import { describe, expect, test } from "vitest";
import { agentFactory, portableAgentChoice } from "../../../packages/controller/src/agents/factory.js";
import type { AgentObservation } from "../../../packages/controller/src/agents/types.js";

const solution = [{ tool: "desktop__run_command", args: { command: "true" } }];
const observation = {} as AgentObservation;

describe("the agents that need no model", () => {
  test("none travels as its kind alone and takes no action, even for a task with a solution", async () => {
    expect(portableAgentChoice({ kind: "none", model: "ignored" })).toEqual({ kind: "none" });
    const agent = agentFactory({ kind: "none" })({ solution });
    await agent.start({} as never);
    expect(await agent.act(observation)).toEqual({ calls: [], done: true });
  });

  test("scripted replays the task's solution, then says done", async () => {
    const agent = agentFactory({ kind: "scripted" })({ solution });
    await agent.start({} as never);
    expect(await agent.act(observation)).toEqual({ calls: solution });
    expect(await agent.act(observation)).toEqual({ calls: [], done: true });
  });

  test("an unknown kind is refused with the kinds there are", () => {
    expect(() => portableAgentChoice({ kind: "idle" })).toThrow(/--agent idle: use scripted, openai, .*, or none \(takes no action\)/);
  });
});
