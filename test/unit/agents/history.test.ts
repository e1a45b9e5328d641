import { describe, expect, test } from "vitest";
import { DROPPED_SCREENSHOT_NOTE, History } from "../../../packages/controller/src/agents/history.js";

type M = { role: string; text: string; image?: string };
const strip = (m: M): M => (m.image ? { role: m.role, text: `${m.text} ${DROPPED_SCREENSHOT_NOTE}` } : m);

/** A conversation of `turns` turns: instruction + screenshot 0, then per turn a reply and its results with screenshot t+1. */
function conversation(opts: { maxTurns?: number; keepScreenshots?: number }, turns: number): History<M> {
  const h = new History<M>(opts, strip);
  h.pin({ role: "system", text: "sys" });
  h.pin({ role: "user", text: "task", image: "shot0" }, 0);
  for (let t = 0; t < turns; t++) {
    h.beginTurn();
    h.add({ role: "assistant", text: `reply${t}` });
    h.add({ role: "tool", text: `result${t}` });
    h.add({ role: "user", text: `obs${t + 1}`, image: `shot${t + 1}` }, t + 1);
  }
  return h;
}

describe("History", () => {
  test("screenshots older than keepScreenshots observations become a note; the text stays", () => {
    const msgs = conversation({ keepScreenshots: 2 }, 4).messages();
    const images = msgs.filter((m) => m.image).map((m) => m.image);
    expect(images).toEqual(["shot3", "shot4"]);
    expect(msgs.find((m) => m.text.startsWith("task"))!.text).toContain(DROPPED_SCREENSHOT_NOTE);
    expect(msgs.map((m) => m.text.split(" ")[0])).toEqual([
      "sys",
      "task",
      "reply0",
      "result0",
      "obs1",
      "reply1",
      "result1",
      "obs2",
      "reply2",
      "result2",
      "obs3",
      "reply3",
      "result3",
      "obs4",
    ]);
  });

  test("keepScreenshots 0 sends no screenshot at all", () => {
    expect(
      conversation({ keepScreenshots: 0 }, 2)
        .messages()
        .some((m) => m.image),
    ).toBe(false);
  });

  test("maxTurns drops whole old turns (a reply never loses its results) and keeps the pinned messages", () => {
    const h = conversation({ maxTurns: 2, keepScreenshots: 10 }, 5);
    const texts = h.messages().map((m) => m.text.split(" ")[0]);
    expect(texts).toEqual(["sys", "task", "reply3", "result3", "obs4", "reply4", "result4", "obs5"]);
    expect(h.droppedTurns).toBe(3);
    // Everything is still there for the trajectory.
    expect(h.all().filter((m) => m.image)).toHaveLength(6);
  });
});
