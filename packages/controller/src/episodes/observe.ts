import { type ImageFormat, imageFormatOfWire, InvalidArgumentError, type RequestOutputOf, type ResponseOf } from "@pincer/shared";
import { drawMarks, type Mark, marksOf } from "../benchmark/marks.js";
import { buildAccessibilityXml, OSWORLD_TREE_OPTIONS } from "../datasets/osworld/accessibilityTree.js";
import type { Env, Screenshot } from "../env/index.js";

/** ObservationOptions as a handler receives them. */
export type ObservationOptions = NonNullable<RequestOutputOf<"Episodes", "Observe">["observation"]>;
/** An Observation as a handler answers it. */
export type WireObservation = NonNullable<ResponseOf<"Episodes", "Observe">["observation"]>;
type WireEnvironment = NonNullable<WireObservation["environments"]>[number];

const NO_OPTIONS: ObservationOptions = {
  screenshot: false,
  format: "IMAGE_FORMAT_UNSPECIFIED",
  maxWidth: 0,
  maxHeight: 0,
  accessibility: "ACCESSIBILITY_FORM_UNSPECIFIED",
  setOfMarks: false,
};

/**
 * What the episode's machines show now, as the options ask: a screenshot per environment in the
 * format and size asked (PNG at full size by default), the accessibility tree as Pincer's text
 * (the linearised tree) or OSWorld's XML, and set-of-marks (the tree's widgets numbered, listed,
 * and drawn on the screenshot, as model agents get them with `--a11y marks`). A tree that cannot
 * be read is left empty, with why in `accessibilityError`.
 */
export async function observeEnvs(
  envs: Readonly<Record<string, Env>>,
  step: number,
  opts: ObservationOptions | null,
  signal: AbortSignal,
  recorded: Readonly<Record<string, Screenshot>> = {},
): Promise<WireObservation> {
  const o = opts ?? NO_OPTIONS;
  const format = imageFormatOfWire(String(o.format));
  if (!format) throw InvalidArgumentError.forField("observation.format", `unknown image format ${String(o.format)}`);
  const environments = await Promise.all(
    Object.entries(envs).map(async ([name, env]) => {
      const out: WireEnvironment = { name };
      const tree = await accessibilityOf(env, String(o.accessibility), o.setOfMarks, signal);
      if (o.screenshot) {
        const same = recorded[name];
        let shot =
          same && isTheImageAsked(same, format, o.maxWidth, o.maxHeight)
            ? same
            : await env.screen.screenshot({
                format,
                ...(o.maxWidth ? { maxWidth: o.maxWidth } : {}),
                ...(o.maxHeight ? { maxHeight: o.maxHeight } : {}),
                signal,
                timeoutMs: 20_000,
              });
        if (tree.marks.length) shot = await drawMarks(shot, tree.marks);
        Object.assign(out, { screenshot: shot.data, mimeType: shot.mimeType, width: shot.width, height: shot.height, source: shot.source, scale: shot.scale });
      }
      out.accessibilityTree = tree.text;
      out.accessibilityError = tree.error;
      out.marks = tree.marks.map((m) => ({ id: m.n, bounds: { x: m.x, y: m.y, width: m.width, height: m.height }, role: m.role ?? "", name: m.name ?? "" }));
      return out;
    }),
  );
  return { step, environments };
}

/**
 * Whether `shot` (taken a moment ago, the screen unchanged since) is the image the options ask for:
 * the same encoding, and the size the bounds give its screen region (scaled down to fit, never up).
 */
export function isTheImageAsked(shot: Screenshot, format: ImageFormat, maxWidth: number, maxHeight: number): boolean {
  if (shot.format !== format) return false;
  const { width, height } = shot.source;
  const fit = Math.min(1, maxWidth ? maxWidth / width : 1, maxHeight ? maxHeight / height : 1);
  return Math.max(1, Math.round(width * fit)) === shot.width && Math.max(1, Math.round(height * fit)) === shot.height;
}

/**
 * The tree in the form asked for (with set-of-marks, Pincer's text numbered as the marks are) and
 * the marks; empty when neither is asked for, and with why (`error`) when the tree cannot be read.
 */
async function accessibilityOf(env: Env, form: string, setOfMarks: boolean, signal: AbortSignal): Promise<{ text: string; marks: Mark[]; error: string }> {
  const text = form === "ACCESSIBILITY_FORM_TEXT";
  const xml = form === "ACCESSIBILITY_FORM_OSWORLD_XML";
  const out = { text: "", marks: [] as Mark[], error: "" };
  if (!text && !xml && !setOfMarks) return out;
  try {
    if (xml) out.text = buildAccessibilityXml((await env.accessibility.tree({ ...OSWORLD_TREE_OPTIONS, signal })).applications);
    if (text || setOfMarks) {
      const linearized = (await env.accessibility.tree({ linearized: true, signal })).linearized ?? "";
      const numbered = setOfMarks ? marksOf(linearized) : undefined;
      if (text) out.text = numbered?.numbered ?? linearized;
      if (numbered) out.marks = numbered.marks;
    }
    return out;
  } catch (err) {
    signal.throwIfAborted();
    return { text: "", marks: [], error: (err as Error).message };
  }
}
