import type { ChildProcess } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { readSummary } from "../../packages/controller/src/runFolder/runFiles.js";
import { runPincer } from "../fixtures/cli.js";
import { alive, descendants } from "../fixtures/processes.js";
import { type ServedEpisodes, serveEpisodes } from "../fixtures/servedEpisodes.js";

// `pincer serve examples` on local machines, driven by a grpc-js client built from the contract
// (pincer.v1.Episodes): what an agent or trainer in another language does.

const ROOT = resolve(import.meta.dirname, "../..");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Any = any;

let served: ServedEpisodes;
let child: ChildProcess;
let out: string;

const call = (method: string, req: Record<string, unknown>): Promise<Any> => served.call(method, req);
const statusOf = (method: string, req: Record<string, unknown>) => served.statusOf(method, req);
const streamed = (method: string, req: Record<string, unknown>): Promise<Any[]> => served.stream(method, req);
const tool = (name: string, args: unknown) => ({ toolCall: { name, argumentsJson: JSON.stringify(args) } });

beforeAll(async () => {
  served = await serveEpisodes("examples", ["--provider", "local", "--concurrency", "2"]);
  ({ child, out } = served);
}, 90_000);

afterAll(() => served?.close());

describe("pincer serve: episodes over gRPC", () => {
  test("a task's solution stepped as tool calls reaches reward 1; Evaluate and Close agree; the run folder has it", async () => {
    const { tasks } = await call("ListTasks", {});
    const ids = tasks.map((t: Any) => t.id);
    expect(ids).toEqual(expect.arrayContaining(["sort-inbox", "write-greeting"]));
    const sort = tasks.find((t: Any) => t.id === "sort-inbox");
    expect(sort).toMatchObject({ environments: ["desktop"], maxSteps: 7 });
    expect(sort.actionSpaces).toEqual(expect.arrayContaining(["tool_call", "special"]));

    const started = await call("StartEpisode", { taskId: "sort-inbox", observation: { screenshot: true, accessibility: "ACCESSIBILITY_FORM_TEXT" } });
    expect(started).toMatchObject({ taskId: "sort-inbox", maxSteps: 7, leaseSeconds: 300, done: false });
    expect(started.tools).toEqual(expect.arrayContaining(["desktop__run_command", "root__complete"]));
    const screen = started.observation.environments[0];
    expect(screen).toMatchObject({ name: "desktop", mimeType: "image/png", width: 1280, height: 800, scale: 1 });
    expect(screen.screenshot.subarray(1, 4).toString()).toBe("PNG");

    const solution = JSON.parse(readFileSync(join(ROOT, "examples/files/sort-inbox/solution.json"), "utf8")) as Array<{ tool: string; args: unknown }>;
    let last: Any;
    for (const s of solution) last = await call("Step", { episodeId: started.episodeId, action: tool(s.tool, s.args) });
    expect(last).toMatchObject({ reward: 1, done: true, terminated: true, truncated: false, endReason: "success", error: "", step: 1 });
    expect(last.nodes.length).toBeGreaterThan(0);
    expect(last.nodes.every((n: Any) => n.status === "passed")).toBe(true);

    const evaluation = await call("Evaluate", { episodeId: started.episodeId });
    expect(evaluation).toMatchObject({ score: 1, success: true });
    // A step after the end is refused; the close says what the attempt recorded.
    expect((await statusOf("Step", { episodeId: started.episodeId, action: { special: "SPECIAL_DONE" } })).code).toBe("FAILED_PRECONDITION");
    const closed = await call("CloseEpisode", { episodeId: started.episodeId });
    expect(closed).toMatchObject({ state: "passed", score: 1, endReason: "success" });
    expect(await call("CloseEpisode", { episodeId: started.episodeId })).toEqual(closed);
    expect((await statusOf("Step", { episodeId: started.episodeId, action: { special: "SPECIAL_DONE" } })).code).toBe("FAILED_PRECONDITION");
    const summary = await readSummary(closed.attemptDir);
    expect(summary.results).toMatchObject({ state: "passed", score: 1, attempt: 1 });
    expect(closed.attemptDir).toBe(join(out, "served", "files", "sort-inbox", "attempt-1"));
    // The viewer lists the episode as it lists a run's attempt; its steps' screenshots are beside it.
    const viewer = readFileSync(join(out, "served", "report.html"), "utf8");
    expect(viewer).toContain("sort-inbox");
    expect(viewer).toContain('"files/sort-inbox/attempt-1"');
    expect(readdirSync(join(closed.attemptDir, "screenshots")).length).toBeGreaterThan(0);
    expect(existsSync(join(out, "served", "manifest.json"))).toBe(true);
  }, 60_000);

  test("bad inputs get their statuses", async () => {
    const unknown = await statusOf("StartEpisode", { taskId: "sort-inbx" });
    expect(unknown.code).toBe("NOT_FOUND");
    expect(unknown.details).toContain('"sort-inbox"');
    expect((await statusOf("StartEpisode", {})).code).toBe("INVALID_ARGUMENT");
    const invalid = await statusOf("StartEpisode", { osworldTaskJson: JSON.stringify({ id: "bad", instruction: "x", evaluator: { func: "exact_match" } }) });
    expect(invalid.code).toBe("INVALID_ARGUMENT");
    expect(invalid.details).toContain("result");
    expect((await statusOf("Step", { episodeId: "nope", action: { special: "SPECIAL_WAIT" } })).code).toBe("NOT_FOUND");

    const ep = await call("StartEpisode", { taskId: "write-greeting" });
    const bad = (action: unknown) => statusOf("Step", { episodeId: ep.episodeId, action });
    expect((await bad({ toolCall: { name: "desktop__run_command", argumentsJson: "{" } })).code).toBe("INVALID_ARGUMENT");
    const typo = await bad(tool("desktop__run_comand", {}));
    expect(typo).toMatchObject({ code: "INVALID_ARGUMENT" });
    expect(typo.details).toContain("desktop__run_command");
    expect((await bad({})).code).toBe("INVALID_ARGUMENT");
    // A tool's own error is the step's error, and the episode goes on; its result comes back as JSON.
    const failed = await call("Step", { episodeId: ep.episodeId, action: tool("desktop__run_command", { command: "echo out; exit 3" }) });
    expect(failed).toMatchObject({ done: false, step: 1 });
    expect(JSON.parse(failed.resultJson)).toMatchObject({ exit_code: 3, stdout: "out\n" });
    // pyautogui code that cannot be read is the step's error, as in OSWorld: nothing of it runs, the episode goes on.
    const unreadable = await call("Step", { episodeId: ep.episodeId, action: { pyautogui: "pyautogui.moveTo(10, 20)\npyautogui.clik(1, 2)" } });
    expect(unreadable).toMatchObject({ done: false, step: 2, resultJson: "null" });
    expect(unreadable.error).toContain("clik");
    // pyautogui code runs as the pyautogui action, read by the controller.
    const moved = await call("Step", { episodeId: ep.episodeId, action: { pyautogui: "pyautogui.moveTo(10, 20)" } });
    expect(moved).toMatchObject({ done: false, error: "", step: 3 });
    // Past the step limit: the episode is truncated.
    let r: Any = moved;
    while (!r.done) r = await call("Step", { episodeId: ep.episodeId, action: tool("desktop__wait", { seconds: 0 }) });
    expect(r).toMatchObject({ done: true, truncated: true, terminated: false, endReason: "step_limit" });
    expect(await call("CloseEpisode", { episodeId: ep.episodeId })).toMatchObject({ state: "failed", endReason: "step_limit" });
  }, 60_000);

  test("an OSWorld task sent whole; FAIL declares it infeasible", async () => {
    const json = JSON.stringify({ id: "served-infeasible", instruction: "Do what cannot be done", config: [], evaluator: { func: "infeasible" } });
    const ep = await call("StartEpisode", { osworldTaskJson: json });
    expect(ep.tools).toContain("root__fail");
    const r = await call("Step", { episodeId: ep.episodeId, action: { special: "SPECIAL_FAIL" } });
    expect(r).toMatchObject({ done: true, reward: 1 });
    expect(await call("CloseEpisode", { episodeId: ep.episodeId })).toMatchObject({ state: "passed", score: 1 });
  }, 60_000);

  test("a group of 4 on 2 slots: two start at once, each later one when a slot frees, every one on a clean machine of its own", async () => {
    const stream = served.client.StartGroup!({
      episode: { taskId: "write-greeting" },
      size: 4,
    });
    const events: string[] = [];
    const arrived: Any[] = [];
    let wake: (() => void) | undefined;
    stream.on("data", (m: Any) => {
      events.push(`start ${m.index}`);
      arrived.push(m);
      wake?.();
    });
    const ended = new Promise<void>((res, rej) => {
      stream.on("end", () => res());
      stream.on("error", rej);
    });
    const next = async (): Promise<Any> => {
      while (arrived.length === 0) await new Promise<void>((r) => (wake = r));
      return arrived.shift();
    };
    const cmd = "printf 'Hello from Pincer\\n' > /tmp/pincer-demo/write-greeting/greeting.txt";
    const mark = "cat /tmp/pincer-group-mark 2>/dev/null || echo clean";
    // Holds the first two open together, then takes each later one as it comes.
    const held = [await next(), await next()];
    const closed: Any[] = [];
    const finish = async (m: Any) => {
      const id = m.episode.episodeId;
      const probe = await call("Step", { episodeId: id, action: tool("desktop__run_command", { command: `${mark}; echo ${id} > /tmp/pincer-group-mark` }) });
      expect(JSON.parse(probe.resultJson).stdout.trim(), `episode ${m.index} saw what an earlier one left`).toBe("clean");
      expect(await call("Step", { episodeId: id, action: tool("desktop__run_command", { command: cmd }) })).toMatchObject({ done: true, reward: 1 });
      closed.push(await call("CloseEpisode", { episodeId: id }));
      events.push(`close ${m.index}`);
    };
    for (const m of held) await finish(m);
    for (let i = 2; i < 4; i++) await finish(await next());
    await ended;
    expect(held.map((m) => m.remaining).sort()).toEqual([2, 3]);
    // The third and fourth started only after a slot was freed by a close.
    const starts = events.flatMap((e, i) => (e.startsWith("start") ? [i] : []));
    expect(starts.slice(0, 2)).toEqual([0, 1]);
    expect(starts[2]).toBeGreaterThan(events.indexOf(`close ${held[0].index}`));
    expect(new Set(events.filter((e) => e.startsWith("start"))).size).toBe(4);
    expect(closed.map((c) => c.state)).toEqual(["passed", "passed", "passed", "passed"]);
    expect(new Set(closed.map((c) => c.attemptDir)).size).toBe(4);
    // Each on a machine new for it: fresh from the provider, or a new sandbox.
    for (const c of closed) {
      const summary = await readSummary(c.attemptDir);
      expect(["fresh", "new sandbox"]).toContain(summary.results.machine_reset.desktop?.method);
    }
  }, 120_000);

  test("a group of 2 takes both slots; a fail-fast start is refused; a lapsed lease frees its slot", async () => {
    const episodes = (await streamed("StartGroup", { episode: { taskId: "write-greeting", leaseSeconds: 3 }, size: 2, together: true })).map((m) => m.episode);
    expect(episodes).toHaveLength(2);
    expect(new Set(episodes.map((e: Any) => e.episodeId)).size).toBe(2);
    expect((await statusOf("StartEpisode", { taskId: "sort-inbox", failFast: true })).code).toBe("RESOURCE_EXHAUSTED");
    expect((await streamed("StartGroup", { episode: { taskId: "sort-inbox" }, size: 3, together: true }).catch((e) => e)).code).toBe(
      grpc.status.INVALID_ARGUMENT,
    );
    // The first is kept alive; the second is left to lapse.
    for (let i = 0; i < 4; i++) {
      await sleep(1_000);
      expect(await call("RenewLease", { episodeId: episodes[0].episodeId })).toEqual({ leaseSeconds: 3 });
    }
    const lost = await statusOf("Step", { episodeId: episodes[1].episodeId, action: { special: "SPECIAL_WAIT" } });
    expect(lost.code).toBe("FAILED_PRECONDITION");
    expect(lost.details).toContain("lease");
    // Its slot is free again.
    const next = await call("StartEpisode", { taskId: "sort-inbox", failFast: true });
    const cmd = "printf 'Hello from Pincer\\n' > /tmp/pincer-demo/write-greeting/greeting.txt";
    expect(await call("Step", { episodeId: episodes[0].episodeId, action: { special: "SPECIAL_WAIT" } })).toMatchObject({ done: false, reward: 0 });
    const solved = await call("Step", { episodeId: episodes[0].episodeId, action: tool("desktop__run_command", { command: cmd }) });
    expect(solved).toMatchObject({ done: true, reward: 1, endReason: "success" });
    expect(await call("CloseEpisode", { episodeId: episodes[0].episodeId })).toMatchObject({ state: "passed" });
    // `next` is left open: the shutdown closes it.
    expect(next.episodeId).toBeTruthy();
  }, 60_000);

  test("SIGTERM closes every episode and leaves no process of the server", async () => {
    const everything = descendants(child.pid!);
    expect(everything.length).toBeGreaterThan(0);
    child.kill("SIGTERM");
    const code = await new Promise<number | null>((r) => (child.exitCode !== null ? r(child.exitCode) : child.once("exit", r)));
    expect(code, served.stderr()).toBe(0);
    for (const until = Date.now() + 15_000; everything.some((p) => alive(p.pid)) && Date.now() < until; ) await sleep(100);
    expect(everything.filter((p) => alive(p.pid)).map((p) => p.cmd)).toEqual([]);
    // The open episode was closed into its attempt folder; the manifest says the run finished.
    const manifest = JSON.parse(readFileSync(join(out, "served", "manifest.json"), "utf8"));
    expect(manifest.finished_at).toBeTruthy();
    expect(existsSync(join(out, "served", "files", "sort-inbox", "attempt-2", "summary.json"))).toBe(true);
    // `pincer report` reads the served run as it reads a run.
    const report = await runPincer(["report", join(out, "served")]);
    expect(report.code, report.stderr).toBe(0);
    // Each task as its last attempt left it: the OSWorld task passed, sort-inbox was left undone; of the
    // group's two write-greeting episodes (one solved, one lost with its lease) the one numbered last
    // counts, and which one that is depends on which started first.
    expect(report.stdout).toMatch(/3 task\(s\): (passed 1, failed 2|passed 2, failed 1), errors 0/);
  }, 60_000);
});
