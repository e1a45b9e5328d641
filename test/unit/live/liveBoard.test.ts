import { request } from "node:http";
import { describe, expect, test } from "vitest";
import type { Env } from "@pincer/controller";
import { startLiveServer } from "../../../packages/controller/src/live/server.js";
import { type HumanCall, type HumanStep, LiveBoard } from "../../../packages/controller/src/runner/liveBoard.js";

const task = { id: "t1", instruction: "do it", attempt: 1 };
const envs = { desktop: {} as Env };
const call: HumanCall = { env: "desktop", action: "click", args: { x: 1, y: 2 } };
const ran = (c: HumanCall): Promise<HumanStep> =>
  Promise.resolve({ tool: `${c.env}__${c.action}`, args: c.args, ok: true, startedAt: Date.now(), endedAt: Date.now() });

describe("LiveBoard: takeover between turns", () => {
  test("a person's action is refused unless the slot is theirs; asked for, the slot is theirs at the agent's next turn", async () => {
    const board = new LiveBoard({ slots: 2 });
    const live = board.attempt(0, { task, envs });
    expect(board.views()[0]).toMatchObject({ mode: "agent", task: { id: "t1" }, environments: ["desktop"] });
    expect(() => board.human(0, call)).toThrow(/not taken over; take it over first/);
    // Nothing asked: the turn goes on at once.
    await live.beforeTurn(ran, new AbortController().signal);
    board.takeOver(0);
    expect(board.views()[0]!.mode).toBe("requested");
    expect(() => board.human(0, call)).toThrow(/waits for the agent's current turn to end/);
    const held = live.beforeTurn(ran, new AbortController().signal);
    let released = false;
    void held.then(() => (released = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(board.views()[0]!.mode).toBe("human");
    const step = await board.human(0, call);
    expect(step.tool).toBe("desktop__click");
    expect(board.views()[0]).toMatchObject({ humanSteps: 1, lastAction: { by: "human", tool: "desktop__click" } });
    expect(released).toBe(false);
    board.handBack(0);
    await held;
    expect(board.views()[0]!.mode).toBe("agent");
    expect(live.human()).toEqual({ steps: 1, takeovers: 1 });
    // The other slot was never touched.
    expect(board.views()[1]!.mode).toBe("idle");
  });

  test("bad input names what to send; an unknown slot is named", () => {
    const board = new LiveBoard({ slots: 1 });
    board.attempt(0, { task, envs });
    expect(() => board.human(0, { ...call, action: "explode" as HumanCall["action"] })).toThrow(/none of click, double_click/);
    expect(() => board.human(0, { ...call, env: "other" })).toThrow(/no environment "other"; it has desktop/);
    expect(() => board.takeOver(3)).toThrow(/no slot 3; the run has slots 0 to 0/);
  });

  test("the attempt's end refuses actions still waiting and lets its turn go; the next attempt of a slot still taken over starts held", async () => {
    const board = new LiveBoard({ slots: 1 });
    const first = board.attempt(0, { task, envs });
    board.takeOver(0);
    const held = first.beforeTurn(ran, new AbortController().signal);
    await new Promise((r) => setTimeout(r, 10));
    const waiting = [board.human(0, call), board.human(0, call)];
    first.ended({ state: "failed", score: 0 });
    for (const w of waiting) await expect(w).rejects.toThrow(/the attempt ended before the action ran/);
    await held;
    expect(board.views()[0]).toMatchObject({ mode: "requested", last: { task: "t1", state: "failed", human: false } });
    expect(board.envOf(0, "desktop")).toBeUndefined();
    const second = board.attempt(0, { task: { ...task, id: "t2" }, envs });
    const next = second.beforeTurn(ran, new AbortController().signal);
    await new Promise((r) => setTimeout(r, 10));
    expect(board.views()[0]!.mode).toBe("human");
    board.handBack(0);
    await next;
  });

  test("an interrupted run (the signal) ends a turn held by a person", async () => {
    const board = new LiveBoard({ slots: 1 });
    const live = board.attempt(0, { task, envs });
    board.takeOver(0);
    const abort = new AbortController();
    const held = live.beforeTurn(ran, abort.signal);
    await new Promise((r) => setTimeout(r, 10));
    abort.abort(new Error("interrupted"));
    await expect(held).rejects.toThrow(/interrupted/);
  });
});

describe("the live page's server", () => {
  test("on loopback: the page, the slots, takeover; a Host header that is not loopback is refused (DNS rebinding)", async () => {
    const board = new LiveBoard({ slots: 1 });
    board.attempt(0, { task, envs });
    const server = await startLiveServer({ board });
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      const page = await fetch(server.url);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain("pincerLive");
      expect(await (await fetch(`${server.url}api/slots`)).json()).toMatchObject([{ slot: 0, mode: "agent" }]);
      const refused = await fetch(`${server.url}api/slots/0/input`, { method: "POST", body: JSON.stringify(call) });
      expect(refused.status).toBe(409);
      expect(((await refused.json()) as { error: string }).error).toMatch(/not taken over/);
      expect((await fetch(`${server.url}api/slots/0/takeover`, { method: "POST" })).status).toBe(200);
      expect(board.views()[0]!.mode).toBe("requested");
      expect((await fetch(`${server.url}api/slots/9/takeover`, { method: "POST" })).status).toBe(404);
      // fetch cannot set Host: a plain request does, as a rebinding page's browser would.
      const rebound = await new Promise<number>((resolve, reject) =>
        request({ port: server.port, path: "/api/slots", headers: { host: `evil.example:${server.port}` } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        })
          .on("error", reject)
          .end(),
      );
      expect(rebound).toBe(403);
    } finally {
      await server.close();
    }
  });

  test("beyond loopback a token is made and every request without it is refused", async () => {
    const board = new LiveBoard({ slots: 1 });
    const server = await startLiveServer({ board, listen: "0.0.0.0:0" });
    try {
      expect(server.token).toMatch(/^[\w-]{20,}$/);
      expect(server.url).toContain(`?token=${server.token}`);
      const base = `http://127.0.0.1:${server.port}`;
      expect((await fetch(`${base}/`)).status).toBe(401);
      expect((await fetch(`${base}/api/slots`, { headers: { authorization: "Bearer wrong" } })).status).toBe(401);
      expect((await fetch(`${base}/api/slots`, { headers: { authorization: `Bearer ${server.token}` } })).status).toBe(200);
      expect((await fetch(server.url)).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
