import type { PromiseClient } from "./rpc.js";
import type { CallOptions } from "./types.js";

/** The clipboard (the X CLIPBOARD selection), as UTF-8 text. */
export interface ClipboardApi {
  /** The clipboard's text; empty when nobody owns it. */
  get(opts?: CallOptions): Promise<string>;
  /** Puts `text` on the clipboard (CLIPBOARD and PRIMARY); the daemon owns it until someone else copies. */
  set(text: string, opts?: CallOptions): Promise<void>;
}

/** `env.clipboard` over the System service. */
export function createClipboardApi(system: PromiseClient<"System">): ClipboardApi {
  return {
    get: async (o = {}) => (await system.GetClipboard({}, o)).text,
    set: async (text, o = {}) => {
      await system.SetClipboard({ text }, o);
    },
  };
}
