import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { readSummary } from "../../packages/controller/src/runFolder/runFiles.js";
import { type ServedEpisodes, serveEpisodes } from "../fixtures/servedEpisodes.js";

// `pincer serve --live`: a served episode shows on the live page, and a person who takes its slot
// over acts between the client's steps: the client's next observation waits for the hand-back and
// shows what the person did; the attempt's summary says a person took part.

type Any = any;
let served: ServedEpisodes;
let page: string;

beforeAll(async () => {
  served = await serveEpisodes("examples/terminal/type-in-terminal", ["--provider", "local", "--live"]);
  for (let i = 0; i < 100 && !/live: (http:\S+)/.test(served.stderr()); i++) await new Promise((r) => setTimeout(r, 100));
  page = /live: (http:\S+)/.exec(served.stderr())![1]!;
}, 90_000);

afterAll(() => served?.close());

const api = async (path: string, body?: unknown): Promise<{ status: number; json: Any }> => {
  const res = await fetch(`${page}api/${path}`, body === undefined ? {} : { method: "POST", body: JSON.stringify(body) });
  return { status: res.status, json: await res.json() };
};

describe("pincer serve --live", () => {
  test("a person takes a served episode over between the client's steps; the client sees what they did", async () => {
    const started = await served.call("StartEpisode", { taskId: "type-in-terminal" });
    expect((await api("slots")).json[0]).toMatchObject({ mode: "agent", task: { id: "type-in-terminal" } });
    expect((await api("slots/0/takeover", {})).json.mode).toBe("requested");
    // The client's step runs its action; its next observation waits for the person.
    let stepped = false;
    const step = served.call("Step", { episodeId: started.episodeId, action: { special: "SPECIAL_WAIT" } }).then((r: Any) => {
      stepped = true;
      return r;
    });
    for (let i = 0; i < 100 && (await api("slots")).json[0].mode !== "human"; i++) await new Promise((r) => setTimeout(r, 100));
    expect((await api("slots")).json[0].mode).toBe("human");
    expect((await api("slots/0/input", { env: "desktop", action: "click", args: { x: 300, y: 200 } })).status).toBe(200);
    const typed = await api("slots/0/input", {
      env: "desktop",
      action: "type",
      args: { text: "echo typed-by-agent > /tmp/pincer-demo/type-in-terminal/typed.txt\n" },
    });
    expect(typed.status).toBe(200);
    expect(typed.json).toMatchObject({ tool: "desktop__type", ok: true });
    await new Promise((r) => setTimeout(r, 300));
    expect(stepped).toBe(false);
    expect((await api("slots/0/handback", {})).json.mode).toBe("agent");
    const afterHandBack = await step;
    expect(afterHandBack.done).toBe(false);
    const done = await served.call("Step", { episodeId: started.episodeId, action: { special: "SPECIAL_DONE" } });
    expect(done).toMatchObject({ done: true, reward: 1 });
    const closed = await served.call("CloseEpisode", { episodeId: started.episodeId });
    expect(closed).toMatchObject({ state: "passed" });
    const summary = await readSummary(closed.attemptDir);
    expect(summary.results.human).toEqual({ steps: 2, takeovers: 1 });
    expect((await api("slots")).json[0]).toMatchObject({ mode: "idle", last: { task: "type-in-terminal", state: "passed", human: true } });
  }, 90_000);
});
