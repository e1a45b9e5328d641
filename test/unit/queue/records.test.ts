import { describe, expect, test } from "vitest";
import { issuesOf, queuedSettingsSchema, taskJobSchema } from "../../../packages/controller/src/queue/records.js";

// What a job may carry: names, numbers and the task's files. Every field that would reach a network
// address, a credential, a file on the worker or a process to start is refused by name.

const settings = {
  agent: { kind: "openai", model: "gpt-x" },
  maxSteps: 5,
  taskTimeoutMs: 60_000,
  screenshots: true,
  settle: "auto",
  record: false,
  attempts: 2,
};
const job = {
  runId: "r1",
  taskKey: "t/a",
  taskId: "a",
  environments: ["desktop"],
  format: "json",
  bundle: "pincer:run:r1:bundle:t/a",
  bundleSha256: "0".repeat(64),
  moduleType: "commonjs",
  settings,
  issuedAt: 1,
  sig: "x",
};

describe("what a job may carry", () => {
  test("a job of names, numbers and switches is accepted", () => {
    expect(taskJobSchema.safeParse(job).success).toBe(true);
    expect(queuedSettingsSchema.safeParse({ ...settings, agent: { kind: "anthropic", model: "m", price: { "*": { input: 3, output: 15 } } } }).success).toBe(
      true,
    );
  });

  test.each([
    ["the model's endpoint", { agent: { ...settings.agent, baseUrl: "http://attacker:8080/v1" } }, /agent.*baseUrl/],
    ["a model key", { agent: { ...settings.agent, apiKey: "sk-…" } }, /agent.*apiKey/],
    ["a price file (read on the worker)", { agent: { ...settings.agent, price: "/etc/shadow" } }, /agent\.price/],
    ["machines or credentials", { machines: "/root/machines.json" }, /machines/],
    ["an agent the worker does not know", { agent: { kind: "shell", model: "sh -c id" } }, /agent\.kind/],
    [
      "a variable's value for an agent program (names only: values are the worker's)",
      { agent: { kind: "command", command: ["a"], agentEnv: ["K=v"] } },
      /agent\.agentEnv/,
    ],
    ["a settle option that is not a number", { settle: { quietMs: "300" } }, /settle/],
  ])("%s is refused", (_, change, issue) => {
    const r = queuedSettingsSchema.safeParse({ ...settings, ...change });
    expect(r.success).toBe(false);
    expect(issuesOf(r.error!)).toMatch(issue);
  });

  test("an unknown field of the job itself is refused", () => {
    expect(taskJobSchema.safeParse({ ...job, command: "id" }).success).toBe(false);
    expect(taskJobSchema.safeParse({ ...job, moduleType: "wasm" }).success).toBe(false);
  });
});
