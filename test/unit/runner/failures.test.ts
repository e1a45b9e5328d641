import { describe, expect, test } from "vitest";
import { CancelledError, InvalidArgumentError, NotFoundError, TimeoutError, UnauthenticatedError, UnavailableError } from "@pincer/controller";
import { classifyFailure, isEnvironmentFailure } from "../../../packages/controller/src/benchmark/failures.js";

describe("classifyFailure: environment, agent or evaluator failure", () => {
  test("UnavailableError: the machine is unreachable or went away", () => {
    const err = new UnavailableError("connect ECONNREFUSED 127.0.0.1:50051");
    expect(isEnvironmentFailure(err)).toBe(true);
    expect(classifyFailure(err, "agent")).toBe("env_error");
    expect(classifyFailure(err, "evaluation")).toBe("env_error");
  });

  test("UnauthenticatedError: the machine refused the token", () => {
    const err = new UnauthenticatedError("the daemon refused the token");
    expect(isEnvironmentFailure(err)).toBe(true);
    expect(classifyFailure(err, "agent")).toBe("env_error");
    expect(classifyFailure(err, "evaluation")).toBe("env_error");
  });

  test("a subclass of an environment failure is one too", () => {
    class TokenExpiredError extends UnauthenticatedError {}
    expect(classifyFailure(new TokenExpiredError("expired"), "agent")).toBe("env_error");
  });

  test("an error caused by a machine's failure is one too (code that adds context keeps the cause)", () => {
    const dropped = new UnavailableError("Process/Run: pincer-daemon at 127.0.0.1:1 is unreachable (Connection dropped)");
    const wrapped = new Error("setup[2] (chrome_open_tabs): GET /json/list failed", { cause: new Error("curl", { cause: dropped }) });
    expect(isEnvironmentFailure(wrapped)).toBe(true);
    expect(classifyFailure(wrapped, "evaluation")).toBe("env_error");
    expect(isEnvironmentFailure(new Error("bad task", { cause: new RangeError("bad regex") }))).toBe(false);
  });

  test("TimeoutError stays the stage's own failure (a slow action is not a lost machine)", () => {
    const err = new TimeoutError("deadline exceeded after 20000 ms");
    expect(isEnvironmentFailure(err)).toBe(false);
    expect(classifyFailure(err, "agent")).toBe("agent_error");
    expect(classifyFailure(err, "evaluation")).toBe("evaluator_error");
  });

  test.each([
    ["Error", new Error("model endpoint returned 500")],
    ["RangeError", new RangeError("bad regex in the task")],
    ["InvalidArgumentError", new InvalidArgumentError("bad arguments")],
    ["NotFoundError", new NotFoundError("no such file")],
    ["CancelledError", new CancelledError("cancelled")],
  ])("%s is the stage's own failure", (_name, err) => {
    expect(isEnvironmentFailure(err)).toBe(false);
    expect(classifyFailure(err, "agent")).toBe("agent_error");
    expect(classifyFailure(err, "evaluation")).toBe("evaluator_error");
  });

  test("an error recorded as {type, message} (an evaluator's) is classified by its class name", () => {
    expect(classifyFailure({ type: "UnauthenticatedError", message: "refused" }, "evaluation")).toBe("env_error");
    expect(classifyFailure({ type: "UnavailableError", message: "gone" }, "evaluation")).toBe("env_error");
    expect(classifyFailure({ type: "RangeError", message: "bad regex" }, "evaluation")).toBe("evaluator_error");
  });

  test("something thrown that is not an error is the stage's own failure", () => {
    expect(classifyFailure("a string", "agent")).toBe("agent_error");
    expect(classifyFailure(undefined, "evaluation")).toBe("evaluator_error");
  });
});
