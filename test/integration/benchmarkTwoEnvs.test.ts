import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { z } from "zod";
import {
  createBenchmark,
  createEnvironment,
  createGraphEvaluator,
  createSystemActions,
  createTask,
  desktopActions,
  evaluator,
  type Screenshot,
} from "@pincer/controller";
import { clickBoth } from "../../examples/readme-benchmark.js";
import { spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";
import { eventually } from "../fixtures/poll.js";
import { openWitnessWindow, type WitnessWindow } from "../fixtures/xwitness.js";
import { startXvfb, type XServer } from "../fixtures/xvfb.js";

const W = 800;
const H = 600;
// Where each machine's witness window sits (the box its evaluator checks); neither covers the
// screen's centre, where a fresh Xvfb puts the pointer, so no node passes by itself.
const RED = { x: 100, y: 100, width: 200, height: 150, color: 0xff0000 };
const BLUE = { x: 500, y: 50, width: 200, height: 150, color: 0x0000ff };
const center = (r: { x: number; y: number; width: number; height: number }) => ({ x: r.x + r.width / 2, y: r.y + r.height / 2 });

const displays: XServer[] = [];
const daemons: RunningDaemon[] = [];
const witnesses: WitnessWindow[] = [];
let localDir: string;

beforeAll(async () => {
  for (let i = 0; i < 2; i++) displays.push(await startXvfb({ width: W, height: H }));
  for (const x of displays) daemons.push(await spawnDaemon({ display: x.display }));
  await Promise.all(daemons.map((d) => d.env.waitUntilReady({ timeoutMs: 20_000 })));
  witnesses.push(await openWitnessWindow(displays[0]!.display, RED), await openWitnessWindow(displays[1]!.display, BLUE));
  localDir = mkdtempSync(join(tmpdir(), "pincer-bench-"));
});

afterAll(async () => {
  for (const w of witnesses) w.close();
  await Promise.all(daemons.map((d) => d.close()));
  await Promise.all(displays.map((x) => x.close()));
  if (localDir) rmSync(localDir, { recursive: true, force: true });
});

/** True when the machine's pointer is inside the rectangle. */
const pointerIn = evaluator({
  name: "pointer_in",
  description: "Is the pointer inside the rectangle?",
  params: z.object({ x: z.number(), y: z.number(), width: z.number(), height: z.number() }),
  run: async (r, { env, signal }) => {
    const p = await env.mouse.position({ signal });
    return p.x >= r.x && p.x < r.x + r.width && p.y >= r.y && p.y < r.y + r.height;
  },
});

/** True when a file on the machine contains the text (false when it does not exist yet). */
const fileContains = evaluator({
  name: "file_contains",
  description: "Does the file on the machine contain the text?",
  params: z.object({ path: z.string(), text: z.string() }),
  run: async ({ path, text }, { env, signal }) => (await env.files.exists(path, { signal })) && (await env.files.read(path, { signal })).includes(text),
});

describe("one benchmark, two real machines", () => {
  test("a task whose graph needs a step on each machine reaches success through scripted tool calls", async () => {
    const [vm1, vm2] = daemons.map((d) => d.env);
    const remoteDir = `/tmp/pincer-bench-${process.pid}-${Date.now()}`;
    const system = createSystemActions({ localRoot: localDir });
    const graph = createGraphEvaluator({
      nodes: {
        clicked_red_on_vm1: { evaluator: pointerIn, env: "vm1", args: RED },
        note_on_vm2: { evaluator: fileContains, env: "vm2", args: { path: `${remoteDir}/note.txt`, text: "hello" } },
        clicked_blue_on_vm2: { evaluator: pointerIn, env: "vm2", args: BLUE },
      },
      edges: [
        ["clicked_red_on_vm1", "clicked_blue_on_vm2"],
        ["note_on_vm2", "clicked_blue_on_vm2"],
      ],
      passPolicy: "sticky",
    });
    const task = createTask({
      id: "red-note-blue",
      description: "Click the red window on vm1, write hello into a note on vm2, then click the blue window on vm2.",
      evaluator: graph,
      setup: [{ action: system.run_command, args: { command: `mkdir -p ${remoteDir}` }, env: "vm2" }],
      teardown: [{ action: system.run_command, args: { command: `rm -rf ${remoteDir}` }, env: "vm2" }],
      maxSteps: 10,
    });
    const actions = [...Object.values(desktopActions), ...Object.values(system)];
    const observations = [desktopActions.screenshot.bind({ format: "jpeg", max_width: 400 })];
    const bench = createBenchmark({
      environments: [
        createEnvironment({ name: "vm1", env: vm1!, actions, observations }),
        createEnvironment({ name: "vm2", env: vm2!, actions, observations }),
      ],
      tasks: [task],
    });
    try {
      const started = await bench.start("red-note-blue");
      expect(started).toMatchObject({ ok: true, reason: null });
      expect(await vm2!.files.exists(remoteDir)).toBe(true);

      const obs = await bench.observe();
      for (const name of ["vm1", "vm2"]) {
        const shot = obs.environments[name]!.screenshot as Screenshot;
        expect(shot).toMatchObject({ format: "jpeg", width: 400, height: 300, scale: 0.5, screen: { width: W, height: H } });
      }

      // The scripted agent: one step on vm1, a malformed call, a command on vm2, a click on vm2.
      const s1 = await bench.step({ tool: "vm1__click", args: center(RED), tokens: 10 });
      expect(s1).toMatchObject({ ok: true, reason: null });
      expect(s1.evaluation.nodes).toEqual({ clicked_red_on_vm1: "passed", note_on_vm2: "failed", clicked_blue_on_vm2: "pending" });
      await witnesses[0]!.waitFor((ev) => ev.some((e) => e.name === "ButtonPress" && e.x === 100 && e.y === 75));

      const s2 = await bench.step({ tool: "vm2__run_command", args: { cmd: "echo hello" }, tokens: 10 });
      expect(s2).toMatchObject({ ok: false, reason: null, error: { type: "ActionArgumentsError" } });

      const s3 = await bench.step({ tool: "vm2__run_command", args: { command: `printf hello > ${remoteDir}/note.txt` }, tokens: 10 });
      expect(s3).toMatchObject({ ok: true, result: { exit_code: 0, timed_out: false }, reason: null });
      expect(s3.evaluation.completionRatio).toBeCloseTo(2 / 3);

      const s4 = await bench.step({ tool: "vm2__click", args: center(BLUE), tokens: 10 });
      expect(s4).toMatchObject({ ok: true, terminated: true, truncated: false, reason: "success" });
      await witnesses[1]!.waitFor((ev) => ev.some((e) => e.name === "ButtonPress" && e.x === 100 && e.y === 75));
      // The click on vm1 did not reach vm2's display, nor the other way round.
      expect(witnesses[0]!.events.filter((e) => e.name === "ButtonPress")).toHaveLength(1);

      expect(bench.metrics()).toEqual({
        completionRatio: 1,
        score: 1,
        reason: "3 of 3 checks passed",
        success: true,
        actions: 4,
        tokens: 40,
        executionEfficiency: 0.25,
        costEfficiency: 1 / 40,
        stepsToComplete: 4,
        longestUnfinishedPath: 0,
        passedNodes: ["clicked_red_on_vm1", "note_on_vm2", "clicked_blue_on_vm2"],
      });
    } finally {
      await bench.close();
    }
    expect(await vm2!.files.exists(remoteDir)).toBe(false);
  });

  test("upload_file, download_file and launch through the benchmark's tools", async () => {
    const [vm1] = daemons.map((d) => d.env);
    const system = createSystemActions({ localRoot: localDir });
    const title = `pincer-bench-${process.pid}`;
    const done = evaluator({
      name: "window_open",
      description: "d",
      run: async (_p, { env, signal }) => (await env.windows.list({ signal })).some((w) => w.title === title),
    });
    const bench = createBenchmark({
      environments: [createEnvironment({ name: "vm1", env: vm1!, actions: Object.values(system) })],
      tasks: [createTask({ id: "files", description: "Move a file there and back, then open a terminal.", evaluator: done })],
    });
    writeFileSync(join(localDir, "in.txt"), "payload ✓\n");
    const remote = `/tmp/pincer-bench-upload-${process.pid}.txt`;
    try {
      await bench.start("files");
      const up = await bench.step({ tool: "vm1__upload_file", args: { local_path: "in.txt", remote_path: remote } });
      expect(up).toMatchObject({ ok: true, result: { path: remote, size: 12 } });
      const down = await bench.step({ tool: "vm1__download_file", args: { remote_path: remote, local_path: "out.txt" } });
      expect(down).toMatchObject({
        ok: true,
        result: { path: join(localDir, "out.txt"), size: 12, sha256: (up.ok && (up.result as { sha256: string }).sha256) || "?" },
      });
      expect(readFileSync(join(localDir, "out.txt"), "utf8")).toBe("payload ✓\n");
      const outside = await bench.step({ tool: "vm1__download_file", args: { remote_path: remote, local_path: "../escape.txt" } });
      expect(outside).toMatchObject({ ok: false, error: { type: "PermissionDeniedError" }, reason: null });
      const launched = await bench.step({ tool: "vm1__launch", args: { command: `xterm -T ${title}`, wait_for_title: title } });
      expect(launched).toMatchObject({ ok: true, result: { window_title: title }, reason: "success" });
      if (launched.ok) await vm1!.process.signal((launched.result as { pid: number }).pid);
    } finally {
      await bench.close();
      await vm1!.files.remove(remote, { missingOk: true });
    }
  });

  test("the README example runs against two real daemons", async () => {
    // The example checks the box (100, 100, 200, 150): where the red window is on vm1.
    const metrics = await clickBoth(daemons[0]!.env, daemons[1]!.env, () => {});
    expect(metrics).toMatchObject({ completionRatio: 1, success: true, actions: 3, stepsToComplete: 3 });
    // Each click went to its own machine (both points are inside the box, so the metrics alone would not tell).
    expect(await daemons[0]!.env.mouse.position()).toEqual({ x: 150, y: 120 });
    expect(await daemons[1]!.env.mouse.position()).toEqual({ x: 180, y: 200 });
  });
});

describe("examples/readme-benchmark.ts as a user runs it", () => {
  test("with no arguments it starts two local machines, prints success with completion ratio 1, stops them and exits 0", async () => {
    const root = resolve(import.meta.dirname, "../..");
    // Its own process group, so whatever it started and left running would still be found in it.
    const child = spawn(process.execPath, ["--conditions=@pincer/source", "--import", "tsx", "examples/readme-benchmark.ts"], {
      cwd: root,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    // Exiting on its own also means it closed its machines: their processes and connections keep Node alive.
    const code = await new Promise<number | null>((res) => child.once("exit", (c) => res(c)));
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    const lines = stdout.split("\n");
    expect(lines.slice(0, 3)).toEqual(["a__click ok completion 0.5 ", "b__press ok completion 0.5 ", "b__click ok completion 1 success"]);
    expect(lines[3]).toMatch(/^success completion ratio 1 \{$/);
    expect(stdout).toContain("passedNodes: [ 'on_a', 'on_b' ]");
    // No Xvfb or daemon of its own outlives it (the daemon's spawner may take a moment to follow).
    const alive = () => {
      try {
        process.kill(-child.pid!, 0);
        return true;
      } catch {
        return false;
      }
    };
    await eventually(() => !alive(), 15_000, 100);
    expect(alive()).toBe(false);
  });
});
