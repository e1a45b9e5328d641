import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { NotFoundError } from "@pincer/shared";
import { downloadToCache } from "../cacheFiles.js";
import { expandUser, type OsworldContext } from "../context.js";

/**
 * Which browser plays OSWorld's Chrome on the machine, and where its profile lives. OSWorld's
 * machines run Google Chrome with its profile at `~/.config/google-chrome`; where Chrome is absent
 * (Debian, arm), Chromium stands in, with its profile at `~/.config/chromium`.
 */

const flavours = new WeakMap<object, Promise<"google-chrome" | "chromium">>();

/** `google-chrome` when the machine has it, else `chromium`; asked once per machine. */
export function browserCommand(ctx: Pick<OsworldContext, "env" | "signal">): Promise<"google-chrome" | "chromium"> {
  let f = flavours.get(ctx.env);
  if (!f) {
    f = ctx.env.process
      .run(["sh", "-c", "command -v google-chrome"], { signal: ctx.signal })
      .then((r) => (r.exitCode === 0 ? ("google-chrome" as const) : ("chromium" as const)));
    f.catch(() => flavours.delete(ctx.env));
    flavours.set(ctx.env, f);
  }
  return f;
}

/** The browser's profile folder (`~/.config/google-chrome` or `~/.config/chromium`), expanded. */
export async function profileDir(ctx: OsworldContext): Promise<string> {
  const dir = (await browserCommand(ctx)) === "google-chrome" ? "google-chrome" : "chromium";
  return expandUser(`~/.config/${dir}`, ctx);
}

/** Starts the browser detached with these arguments; a failure is logged, as OSWorld's launch does. */
export async function launchBrowser(ctx: OsworldContext, args: string[]): Promise<void> {
  const argv = [await browserCommand(ctx), ...args];
  try {
    await ctx.env.process.launch(argv, { signal: ctx.signal });
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    ctx.log(`launch ${JSON.stringify(argv)}: ${(err as Error).message}`);
  }
}

/**
 * A file of the profile (`Default/Preferences`, `Local State`, …) copied into the cache folder as
 * `dest`; null when the machine does not have it (OSWorld's `get_file` gives None then).
 */
export async function fetchProfileFile(ctx: OsworldContext, relative: string, dest: string): Promise<string | null> {
  try {
    return await downloadToCache(ctx, join(await profileDir(ctx), relative), dest);
  } catch (err) {
    if (ctx.signal.aborted || !(err instanceof NotFoundError)) throw err;
    ctx.log(`${relative} is not in the browser's profile`);
    return null;
  }
}

/**
 * A JSON file of the profile, parsed; `undefined` when it is missing or not JSON, where OSWorld's
 * getters catch the error and return their fallback value.
 */
export async function profileJson(ctx: OsworldContext, relative: string): Promise<unknown> {
  const local = await fetchProfileFile(ctx, relative, `chrome-${relative.replace(/[^\w.-]+/g, "_")}`);
  if (local === null) return undefined;
  try {
    return JSON.parse(await readFile(local, "utf8"));
  } catch (err) {
    ctx.log(`${relative}: ${(err as Error).message}`);
    return undefined;
  }
}
