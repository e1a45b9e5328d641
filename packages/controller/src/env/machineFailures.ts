import { UnauthenticatedError, UnavailableError } from "@pincer/shared";
import type { Env } from "./env.js";

/**
 * The errors that mean the machine failed rather than the task, the agent or a check: it is
 * unreachable or went away (UnavailableError), or it refused the credentials (UnauthenticatedError).
 *
 * A TimeoutError is not among them: a deadline also passes when an action is merely slow, and the
 * client cannot tell that from a channel that is down, so a deadline stays the action's own error.
 */
export const ENVIRONMENT_FAILURES = [UnavailableError, UnauthenticatedError] as const;

function isErrorInfo(value: unknown): value is { type: string } {
  return typeof value === "object" && value !== null && typeof (value as { type?: unknown }).type === "string";
}

/**
 * Whether `err` means the machine failed (see {@link ENVIRONMENT_FAILURES}): it, or an error it was
 * caused by (`cause`: code that adds context to a machine's failure keeps it there). Takes a thrown
 * error (checked with `instanceof`) or an error recorded as `{ type, message }` (the form an
 * evaluator's error is kept in), which keeps only the class name (so a subclass recorded that way
 * is not recognised).
 */
export function isEnvironmentFailure(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 10; e = e.cause, depth++) {
    if (ENVIRONMENT_FAILURES.some((type) => e instanceof type)) return true;
  }
  return isErrorInfo(err) && ENVIRONMENT_FAILURES.some((type) => type.name === err.type);
}

/** An env handle that notes the machine failures of its calls, and the first one it noted. */
export interface WatchedEnv {
  env: Env;
  /** The first machine failure a call of `env` ended with, caught or not by its caller. */
  failure(): Error | undefined;
}

/**
 * Wraps `env` so that a machine failure ({@link isEnvironmentFailure}) of any of its calls is noted,
 * even when the code that made the call catches it: a check that turns "the machine did not
 * answer" into "the file is not there" must not give the agent a score, nor a setup step that
 * shrugs it off a broken machine. The benchmark watches setup actions and evaluators so.
 */
export function watchEnv(env: Env): WatchedEnv {
  let failure: Error | undefined;
  const note = (err: unknown) => {
    if (failure === undefined && isEnvironmentFailure(err)) failure = err as Error;
  };
  const wrap =
    (fn: (...args: unknown[]) => unknown, self: object) =>
    (...args: unknown[]) => {
      let result: unknown;
      try {
        result = fn.apply(self, args);
      } catch (err) {
        note(err);
        throw err;
      }
      if (result instanceof Promise) result.catch(note);
      return result;
    };
  const api = (ns: object) =>
    new Proxy(ns, {
      get(target, prop) {
        const value = Reflect.get(target, prop, target);
        return typeof value === "function" ? wrap(value as (...args: unknown[]) => unknown, target) : value;
      },
    });
  const watched = new Proxy(env, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value === "function") return wrap(value as (...args: unknown[]) => unknown, target);
      return value && typeof value === "object" ? api(value) : value;
    },
  });
  return { env: watched, failure: () => failure };
}
