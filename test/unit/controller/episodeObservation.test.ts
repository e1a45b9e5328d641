import { describe, expect, test } from "vitest";
import { createMemoryEnv, type Env } from "@pincer/controller";
import { isTheImageAsked, observeEnvs, type ObservationOptions } from "../../../packages/controller/src/episodes/observe.js";

// An episode's observation of a machine: set-of-marks from the accessibility tree, and why a tree
// could not be read, in its own field and never in the tree's.

const TREE = [
  "tag\tname\ttext\tclass\tdescription\tposition (top-left x&y)\tsize (w&h)",
  'push-button\tYes\t""\t\t\t(100, 200)\t(80, 30)',
  "entry\t\tsome text\t\t\t(10, 20)\t(300, 25)",
].join("\n");

/** A memory machine of 1280 × 800 whose accessibility tree is `tree`, or fails with `error`. */
function machine(a11y: { tree: string } | { error: string }): Env {
  const mem = createMemoryEnv({ width: 1280, height: 800 });
  const accessibility = {
    tree: async () => {
      if ("error" in a11y) throw new Error(a11y.error);
      return { applications: [], truncated: false, nodeCount: 2, linearized: a11y.tree };
    },
  };
  return new Proxy(mem, { get: (t, p, r) => (p === "accessibility" ? accessibility : Reflect.get(t, p, r)) });
}

const options = (o: Partial<ObservationOptions>): ObservationOptions => ({
  screenshot: false,
  format: "IMAGE_FORMAT_PNG",
  maxWidth: 0,
  maxHeight: 0,
  accessibility: "ACCESSIBILITY_FORM_NONE",
  setOfMarks: false,
  ...o,
});
const signal = () => new AbortController().signal;

describe("episode observations", () => {
  test("set-of-marks lists the tree's widgets with their screen boxes, numbers the text, and draws on the screenshot", async () => {
    const envs = { desktop: machine({ tree: TREE }) };
    const plain = (await observeEnvs(envs, 0, options({ screenshot: true }), signal())).environments![0]!;
    const obs = await observeEnvs(envs, 2, options({ screenshot: true, setOfMarks: true, accessibility: "ACCESSIBILITY_FORM_TEXT" }), signal());
    const desktop = obs.environments![0]!;
    expect(desktop.marks).toEqual([
      { id: 1, bounds: { x: 100, y: 200, width: 80, height: 30 }, role: "push-button", name: "Yes" },
      { id: 2, bounds: { x: 10, y: 20, width: 300, height: 25 }, role: "entry", name: "" },
    ]);
    expect(desktop.accessibilityTree!.split("\n")).toEqual([
      expect.stringMatching(/^mark\ttag\t/),
      expect.stringMatching(/^1\tpush-button\tYes/),
      expect.stringMatching(/^2\tentry/),
    ]);
    expect(desktop.accessibilityError).toBe("");
    expect(desktop).toMatchObject({ width: 1280, height: 800, mimeType: "image/png" });
    // The marks are drawn: the image differs from the one without them.
    expect(Buffer.compare(Buffer.from(desktop.screenshot as Uint8Array), Buffer.from(plain.screenshot as Uint8Array))).not.toBe(0);
    // Marks without a screenshot or a tree asked for: listed all the same.
    const only = (await observeEnvs(envs, 2, options({ setOfMarks: true }), signal())).environments![0]!;
    expect(only.marks).toHaveLength(2);
    expect(only.accessibilityTree).toBe("");
    // Not asked: no marks, and the text is the tree as it is.
    const text = (await observeEnvs(envs, 2, options({ accessibility: "ACCESSIBILITY_FORM_TEXT" }), signal())).environments![0]!;
    expect(text).toMatchObject({ marks: [], accessibilityTree: TREE, accessibilityError: "" });
  });

  test("a tree that cannot be read leaves the tree and the marks empty and says why in accessibility_error", async () => {
    const envs = { desktop: machine({ error: "no accessibility bus: AT_SPI_BUS_ADDRESS is not set" }) };
    for (const o of [
      { accessibility: "ACCESSIBILITY_FORM_TEXT" as const },
      { accessibility: "ACCESSIBILITY_FORM_OSWORLD_XML" as const },
      { setOfMarks: true },
    ]) {
      const desktop = (await observeEnvs(envs, 0, options(o), signal())).environments![0]!;
      expect(desktop).toMatchObject({ accessibilityTree: "", marks: [], accessibilityError: "no accessibility bus: AT_SPI_BUS_ADDRESS is not set" });
    }
    // Not asked for: no error either.
    expect((await observeEnvs(envs, 0, options({ screenshot: true }), signal())).environments![0]!).toMatchObject({ accessibilityError: "" });
  });
});

describe("an episode's observation reuses the screenshot its attempt just recorded", () => {
  const shot = (format: "png" | "jpeg", width: number, height: number, screen = { width: 1280, height: 800 }) =>
    ({
      data: Buffer.from("recorded"),
      format,
      mimeType: `image/${format}`,
      width,
      height,
      source: { x: 0, y: 0, ...screen },
      scale: width / screen.width,
      cursor: { x: 0, y: 0 },
      screen,
    }) as const;

  test("when it is the encoding and size asked for: full size, or bounds that give its size", () => {
    expect(isTheImageAsked(shot("png", 1280, 800), "png", 0, 0)).toBe(true);
    expect(isTheImageAsked(shot("png", 1280, 800), "png", 1920, 1080)).toBe(true);
    expect(isTheImageAsked(shot("png", 640, 400), "png", 640, 0)).toBe(true);
    expect(isTheImageAsked(shot("png", 1280, 800), "jpeg", 0, 0)).toBe(false);
    expect(isTheImageAsked(shot("png", 1280, 800), "png", 640, 400)).toBe(false);
    // A screen larger than what the attempt records: full size is another image.
    expect(isTheImageAsked(shot("png", 1280, 720, { width: 1920, height: 1080 }), "png", 0, 0)).toBe(false);
  });

  test("the recorded image is answered without asking the machine again; another size asks it", async () => {
    const env = machine({ tree: TREE });
    let asked = 0;
    const counting = new Proxy(env, {
      get: (t, p, r) =>
        p === "screen"
          ? new Proxy(t.screen, {
              get: (s, q, sr) =>
                q === "screenshot"
                  ? (...args: Parameters<Env["screen"]["screenshot"]>) => {
                      asked++;
                      return s.screenshot(...args);
                    }
                  : Reflect.get(s, q, sr),
            })
          : Reflect.get(t, p, r),
    });
    const recorded = { desktop: shot("png", 1280, 800) };
    const signal = new AbortController().signal;
    const same = await observeEnvs({ desktop: counting }, 1, options({ screenshot: true }), signal, recorded);
    expect(asked).toBe(0);
    expect(Buffer.from(same.environments![0]!.screenshot!).toString()).toBe("recorded");
    const smaller = await observeEnvs({ desktop: counting }, 1, options({ screenshot: true, maxWidth: 640 }), signal, recorded);
    expect(asked).toBe(1);
    expect(smaller.environments![0]).toMatchObject({ mimeType: "image/png", width: 640, height: 400 });
  });
});
