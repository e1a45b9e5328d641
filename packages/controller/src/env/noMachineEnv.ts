import { FailedPreconditionError } from "@pincer/shared";
import type { Env } from "./env.js";

/**
 * An `env` handle with no machine behind it: every call rejects with a FailedPreconditionError that
 * says why. The root environment and `local` actions get it, so a stray machine call fails loudly.
 * Built on a Proxy so that it covers every API of `Env`, present and future.
 */
export function noMachineEnv(reason: string): Env {
  const fail = (path: string) => () => Promise.reject(new FailedPreconditionError(`env.${path}: ${reason}`));
  const api = (ns: string) => new Proxy({}, { get: (_t, prop) => (typeof prop === "string" ? fail(`${ns}.${prop}`) : undefined) });
  const apis = new Map<string, unknown>();
  return new Proxy({} as Env, {
    get(_t, prop) {
      if (prop === "address") return "none";
      if (prop === "close") return () => {};
      if (prop === "then" || typeof prop !== "string") return undefined;
      if (prop === "waitUntilReady") return fail(prop);
      if (!apis.has(prop)) apis.set(prop, api(prop));
      return apis.get(prop);
    },
  });
}
