import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { eventually } from "../fixtures/poll.js";
import { type ServedEpisodes, serveEpisodes } from "../fixtures/servedEpisodes.js";

// `pincer serve` stepped in Anthropic's and OpenAI's computer-use vocabularies on a real machine,
// and observed with set-of-marks (where the machine has an accessibility bus) and without a tree
// (where it has none: the error says why, the tree stays empty).

type Any = any;
const ROOT = resolve(import.meta.dirname, "../..");
const DIR = "/tmp/pincer-demo/type-in-terminal";
const anthropic = (input: unknown) => ({ anthropicComputerJson: JSON.stringify(input) });
const openai = (action: unknown) => ({ openaiComputerJson: JSON.stringify(action) });
const runCommand = (command: string) => ({ toolCall: { name: "desktop__run_command", argumentsJson: JSON.stringify({ command }) } });
/** Waits (on the machine) until every file is written, then prints them. */
const catWhenWritten = (files: string[]) =>
  runCommand(`for i in $(seq 300); do ${files.map((f) => `[ -s ${f} ]`).join(" && ")} && break; sleep 0.1; done; cat ${files.join(" ")}`);

/** Runs `fn` on an episode started with `req`, and closes it whatever happens: the next test needs the slot. */
async function withEpisode<T>(served: ServedEpisodes, req: Record<string, unknown>, fn: (ep: Any) => Promise<T>): Promise<T> {
  const ep = await served.call("StartEpisode", req);
  try {
    return await fn(ep);
  } finally {
    await served.call("CloseEpisode", { episodeId: ep.episodeId }).catch(() => undefined);
  }
}

let local: ServedEpisodes | undefined;
beforeAll(async () => {
  local = await serveEpisodes("examples", ["--provider", "local"]);
}, 120_000);
afterAll(async () => {
  await local?.close();
});

describe("pincer serve --provider local: the computer-use action spaces", () => {
  test("Anthropic and OpenAI actions type into the task's terminal; screenshots are steps that do nothing; bad input is INVALID_ARGUMENT", async () => {
    const { call, statusOf } = local!;
    const { tasks } = await call("ListTasks", { filter: "type-in-terminal" });
    expect(tasks[0].actionSpaces).toEqual(expect.arrayContaining(["anthropic_computer", "openai_computer"]));
    await withEpisode(local!, { taskId: "type-in-terminal" }, async (ep) => {
      expect(ep.done, ep.endReason).toBe(false);
      expect(ep.tools).toEqual(expect.arrayContaining(["desktop__computer", "desktop__openai_computer"]));
      const step = (action: unknown) => call("Step", { episodeId: ep.episodeId, action });

      // The terminal fills the top left of the screen; coordinates are the screen's pixels.
      expect(await step(anthropic({ action: "left_click", coordinate: [300, 200] }))).toMatchObject({ error: "", done: false, step: 1 });
      expect(await step(anthropic({ action: "type", text: `echo anthropic-typed > ${DIR}/anthropic.txt\n` }))).toMatchObject({ error: "", step: 2 });
      expect(await step(openai({ type: "type", text: `echo openai-typed > ${DIR}/openai.txt` }))).toMatchObject({ error: "", step: 3 });
      expect(await step(openai({ type: "keypress", keys: ["ENTER"] }))).toMatchObject({ error: "", step: 4 });
      const typed = await step(catWhenWritten([`${DIR}/anthropic.txt`, `${DIR}/openai.txt`]));
      expect(JSON.parse(typed.resultJson)).toMatchObject({ exit_code: 0, stdout: "anthropic-typed\nopenai-typed\n" });

      // A screenshot action is a step that does nothing: the step's observation is the screenshot.
      const shot = await call("Step", { episodeId: ep.episodeId, action: anthropic({ action: "screenshot" }), observation: { screenshot: true } });
      expect(shot).toMatchObject({ error: "", done: false, step: 6 });
      expect(shot.observation.environments[0]).toMatchObject({ name: "desktop", width: 1280, height: 800 });
      expect(await step(openai({ type: "screenshot" }))).toMatchObject({ error: "", step: 7 });

      // Input that is not JSON, or not an action of the vocabulary, is refused before it is a step.
      const notJson = await statusOf("Step", { episodeId: ep.episodeId, action: { anthropicComputerJson: "{action" } });
      expect(notJson.code).toBe("INVALID_ARGUMENT");
      expect(notJson.details).toContain("action.anthropic_computer_json");
      const unknown = await statusOf("Step", { episodeId: ep.episodeId, action: openai({ type: "hover", x: 1, y: 1 }) });
      expect(unknown.code).toBe("INVALID_ARGUMENT");
      expect(unknown.details).toContain("action.openai_computer_json");

      // The task itself, typed the Anthropic way: its evaluator passes.
      // (The shell may write the file before the typing step's own evaluation.)
      let solved = await step(anthropic({ action: "type", text: `echo typed-by-agent > ${DIR}/typed.txt\n` }));
      if (!solved.done) solved = await step(catWhenWritten([`${DIR}/typed.txt`]));
      expect(solved).toMatchObject({ done: true, reward: 1, endReason: "success", error: "" });
      expect(await call("CloseEpisode", { episodeId: ep.episodeId })).toMatchObject({ state: "passed" });
    });
  }, 120_000);

  test("a machine without an accessibility bus: the tree and the marks are empty, accessibility_error says why", async () => {
    const { call } = local!;
    await withEpisode(local!, { taskId: "write-greeting" }, async (ep) => {
      for (const observation of [{ accessibility: "ACCESSIBILITY_FORM_TEXT" }, { accessibility: "ACCESSIBILITY_FORM_OSWORLD_XML", setOfMarks: true }]) {
        const { observation: obs } = await call("Observe", { episodeId: ep.episodeId, observation });
        const desktop = obs.environments[0];
        expect(desktop.accessibilityTree).toBe("");
        expect(desktop.marks).toEqual([]);
        expect(desktop.accessibilityError).toMatch(/accessibility bus/);
      }
      // Not asked for: no error.
      const { observation: plain } = await call("Observe", { episodeId: ep.episodeId, observation: { screenshot: true } });
      expect(plain.environments[0].accessibilityError).toBe("");
    });
  }, 60_000);
});

describe("pincer serve --a11y-bus: local machines with an accessibility bus, and set-of-marks", () => {
  let served: ServedEpisodes | undefined;
  afterAll(async () => {
    await served?.close();
  });

  test("a dialog's buttons come back as marks with their boxes on the screen, drawn on the screenshot", async () => {
    served = await serveEpisodes(resolve(ROOT, "examples/terminal/write-greeting/write-greeting.json"), ["--provider", "local", "--a11y-bus"]);
    const task = {
      id: "marks",
      instruction: "Answer the dialog",
      config: [{ type: "launch", parameters: { command: ["zenity", "--question", "--text=Marks?"] } }],
    };
    const ep = await served.call("StartEpisode", { osworldTaskJson: JSON.stringify({ ...task, evaluator: { func: "infeasible" } }) });
    expect(ep.done, ep.endReason).toBe(false);
    const options = { screenshot: true, setOfMarks: true, accessibility: "ACCESSIBILITY_FORM_TEXT" };
    let desktop: Any;
    const buttons = () => (desktop?.marks ?? []).filter((m: Any) => m.role === "push-button");
    await eventually(async () => {
      desktop = (await served!.call("Observe", { episodeId: ep.episodeId, observation: options })).observation.environments[0];
      return buttons().length >= 2;
    }, 30_000);
    expect(desktop.accessibilityError).toBe("");
    expect(buttons().map((m: Any) => m.name)).toEqual(expect.arrayContaining(["Yes", "No"]));
    expect(desktop.marks.map((m: Any) => m.id)).toEqual(desktop.marks.map((_: Any, i: number) => i + 1));
    for (const m of desktop.marks) {
      const b = m.bounds;
      expect(b.width).toBeGreaterThan(0);
      expect(b.height).toBeGreaterThan(0);
      expect(b.x >= 0 && b.y >= 0 && b.x + b.width <= 1280 && b.y + b.height <= 800, JSON.stringify(m)).toBe(true);
    }
    // The text form is numbered as the marks are; the screenshot is the screen's, with them drawn.
    expect(desktop.accessibilityTree).toMatch(/^mark\ttag\t/);
    expect(desktop).toMatchObject({ mimeType: "image/png", width: 1280, height: 800 });
    const { observation: plain } = await served.call("Observe", { episodeId: ep.episodeId, observation: { screenshot: true } });
    expect(plain.environments[0].marks).toEqual([]);
    expect(Buffer.compare(plain.environments[0].screenshot, desktop.screenshot)).not.toBe(0);
    await served.call("CloseEpisode", { episodeId: ep.episodeId });
  }, 120_000);
});
