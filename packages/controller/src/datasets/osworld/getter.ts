import type { z } from "zod";
import type { OsworldContext } from "./context.js";

/**
 * One of OSWorld's getters (`evaluator.result` / `evaluator.expected`: `{type, ...}`), with what
 * OSWorld's returns (`desktop_env/evaluators/getters/`): a file is fetched into the attempt's cache
 * folder under `dest` and its local path returned, or `null` when the machine does not have it.
 */
export interface OsworldGetter<C extends z.ZodType = z.ZodType> {
  name: string;
  /** The getter's fields besides `type`. */
  config: C;
  get(config: z.infer<C>, ctx: OsworldContext): Promise<unknown>;
}

/** Defines a getter; helps TypeScript infer its config's type from the schema. */
export const defineGetter = <C extends z.ZodType>(g: OsworldGetter<C>): OsworldGetter => g as unknown as OsworldGetter;
