import type { z } from "zod";
import type { OsworldContext } from "./context.js";

/**
 * One of OSWorld's config types (`config` and `evaluator.postconfig` entries, `{type, parameters}`),
 * with the semantics of its setup controller (`desktop_env/controllers/setup.py`) and server: which
 * failures end the setup (download, open) and which it only logs (launch, execute, window steps).
 */
export interface OsworldConfigType<P extends z.ZodType = z.ZodType> {
  name: string;
  parameters: P;
  /** Why these parameters cannot be run (a pyautogui statement Pincer does not perform), if so. */
  unsupported?(parameters: z.infer<P>): string[];
  run(parameters: z.infer<P>, ctx: OsworldContext): Promise<void>;
}

/** Defines a config type; helps TypeScript infer its parameters' type from the schema. */
export const defineConfigType = <P extends z.ZodType>(c: OsworldConfigType<P>): OsworldConfigType => c as unknown as OsworldConfigType;
