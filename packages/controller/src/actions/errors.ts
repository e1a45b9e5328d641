import { CancelledError, InternalError, InvalidArgumentError } from "@pincer/shared";
import { z } from "zod";

/** One problem with the arguments of a call: where (`path`, e.g. `["from", "x"]`) and what. */
export interface ArgumentIssue {
  path: (string | number)[];
  message: string;
}

/**
 * Arguments that do not match an action's parameters. Its message lists every problem with its
 * path, written for the agent that made the call so it can correct it.
 */
export class ActionArgumentsError extends InvalidArgumentError {
  constructor(
    readonly action: string,
    readonly issues: ArgumentIssue[],
    message: string,
  ) {
    super(`${action}: invalid arguments\n${message}`);
  }

  /** Builds the error from a failed zod parse. */
  static fromZod(action: string, error: z.ZodError): ActionArgumentsError {
    const issues = error.issues.map((i) => ({ path: i.path.map((p) => (typeof p === "symbol" ? String(p) : p)), message: i.message }));
    return new ActionArgumentsError(action, issues, z.prettifyError(error));
  }
}

/** An action, evaluator or composition was defined wrongly: a bad name, incompatible pipe, cyclic graph. */
export class ActionDefinitionError extends InvalidArgumentError {}

/** An action returned a value that does not match its `returns` schema: a bug in the action. */
export class ActionReturnError extends InternalError {}

/**
 * The serializable form of an error, as steps report it: `type` is the error class name
 * (`ActionArgumentsError`, `NotFoundError`, …), `issues` is set for invalid arguments.
 */
export interface ErrorInfo {
  type: string;
  message: string;
  issues?: ArgumentIssue[];
}

/** Turns anything thrown into an {@link ErrorInfo}. */
export function toErrorInfo(err: unknown): ErrorInfo {
  if (err instanceof ActionArgumentsError) return { type: err.name, message: err.message, issues: err.issues };
  if (err instanceof Error) return { type: err.name, message: err.message };
  return { type: "Error", message: String(err) };
}

/** Throws a CancelledError when `signal` has fired; `what` names the work that stops. */
export function throwIfAborted(signal: AbortSignal | undefined, what: string): void {
  if (signal?.aborted) throw new CancelledError(`${what}: cancelled`, { cause: signal.reason });
}
