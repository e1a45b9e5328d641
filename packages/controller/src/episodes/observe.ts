import { imageFormatOfWire, InvalidArgumentError, type RequestOutputOf, type ResponseOf } from "@pincer/shared";
import { buildAccessibilityXml, OSWORLD_TREE_OPTIONS } from "../datasets/osworld/accessibilityTree.js";
import type { Env } from "../env/index.js";

/** ObservationOptions as a handler receives them. */
export type ObservationOptions = NonNullable<RequestOutputOf<"Episodes", "Observe">["observation"]>;
/** An Observation as a handler answers it. */
export type WireObservation = NonNullable<ResponseOf<"Episodes", "Observe">["observation"]>;

/**
 * What the episode's machines show now, as the options ask: a screenshot per environment in the
 * format and size asked (PNG at full size by default), and the accessibility tree as Pincer's
 * text (the linearised tree) or OSWorld's XML. A part that cannot be read is left empty.
 */
export async function observeEnvs(
  envs: Readonly<Record<string, Env>>,
  step: number,
  opts: ObservationOptions | null,
  signal: AbortSignal,
): Promise<WireObservation> {
  const o = opts ?? { screenshot: false, format: "IMAGE_FORMAT_UNSPECIFIED", maxWidth: 0, maxHeight: 0, accessibility: "ACCESSIBILITY_FORM_UNSPECIFIED" };
  const format = imageFormatOfWire(String(o.format));
  if (!format) throw InvalidArgumentError.forField("observation.format", `unknown image format ${String(o.format)}`);
  const environments = await Promise.all(
    Object.entries(envs).map(async ([name, env]) => {
      const out: NonNullable<WireObservation["environments"]>[number] = { name };
      if (o.screenshot) {
        const shot = await env.screen.screenshot({
          format,
          ...(o.maxWidth ? { maxWidth: o.maxWidth } : {}),
          ...(o.maxHeight ? { maxHeight: o.maxHeight } : {}),
          signal,
          timeoutMs: 20_000,
        });
        Object.assign(out, { screenshot: shot.data, mimeType: shot.mimeType, width: shot.width, height: shot.height, source: shot.source, scale: shot.scale });
      }
      out.accessibilityTree = await accessibilityOf(env, String(o.accessibility), signal);
      return out;
    }),
  );
  return { step, environments };
}

/** The tree in the form asked for; empty when none is, or (with why) when it cannot be read. */
async function accessibilityOf(env: Env, form: string, signal: AbortSignal): Promise<string> {
  try {
    if (form === "ACCESSIBILITY_FORM_TEXT") return (await env.accessibility.tree({ linearized: true, signal })).linearized ?? "";
    if (form === "ACCESSIBILITY_FORM_OSWORLD_XML")
      return buildAccessibilityXml((await env.accessibility.tree({ ...OSWORLD_TREE_OPTIONS, signal })).applications);
    return "";
  } catch (err) {
    signal.throwIfAborted();
    return `(accessibility tree unavailable: ${(err as Error).message})`;
  }
}
