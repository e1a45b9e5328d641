import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { createRegistries, loadDataset } from "@pincer/controller/datasets";
import type { TrajectoryLine } from "@pincer/controller/runner";
import { solutionFileOf } from "../../../packages/controller/src/datasets/solutions.js";
import { writeJsonAtomic } from "../../../packages/controller/src/runFolder/runFiles.js";
import { solutionFromDemonstration } from "../../../packages/controller/src/runner/demonstration.js";

const human = (tool: string, args: Record<string, unknown>, at_ms: number, settled_ms?: number, ok = true): TrajectoryLine =>
  ({ turn: 0, human: true, tool, args, ok, duration_ms: 50, at_ms, ...(settled_ms !== undefined ? { settled_ms } : {}) }) as TrajectoryLine;

describe("a demonstration's solution", () => {
  test("the actions that worked, in order, with waits where the screen kept changing, typing joined, a wait at the end", () => {
    const lines: TrajectoryLine[] = [
      { turn: 1, step: 1, tool: "desktop__click", args: {}, ok: true } as TrajectoryLine,
      human("desktop__click", { x: 10, y: 20 }, 2_500, 40),
      human("desktop__type", { text: "ab" }, 3_000, 10),
      human("desktop__type", { text: "c" }, 3_500, 20),
      human("desktop__key", { keys: "nope" }, 3_600, undefined, false),
      human("desktop__key", { keys: "Return" }, 4_000, 1_300),
      human("desktop__double_click", { x: 1, y: 2 }, 9_000, 0),
    ];
    expect(solutionFromDemonstration(lines)).toEqual([
      // The person began 2.5 s after the setup: its programs were drawing.
      { tool: "desktop__wait", args: { seconds: 1 } },
      { tool: "desktop__click", args: { x: 10, y: 20 } },
      { tool: "desktop__type", args: { text: "abc" } },
      { tool: "desktop__key", args: { keys: "Return" } },
      // 1.3 s of change: 1.5 × 1.3 + 0.25 = 2.2 s, in half seconds up.
      { tool: "desktop__wait", args: { seconds: 2.5 } },
      { tool: "desktop__double_click", args: { x: 1, y: 2 } },
      { tool: "desktop__wait", args: { seconds: 1 } },
    ]);
    expect(solutionFromDemonstration([human("desktop__click", { x: 1, y: 1 }, 100)])).toEqual([
      { tool: "desktop__click", args: { x: 1, y: 1 } },
      { tool: "desktop__wait", args: { seconds: 1 } },
    ]);
    expect(solutionFromDemonstration([])).toEqual([]);
  });

  test("where each format keeps a solution; a module reads the file beside it when it exports none", async () => {
    expect(solutionFileOf({ kind: "json", file: "/d/terminal/x/x.json" })).toBe("/d/terminal/x/solution.json");
    expect(solutionFileOf({ kind: "osworld", file: "/o/chrome/1234.json" })).toBe("/o/chrome/1234.solution.json");
    expect(solutionFileOf({ kind: "module", file: "/m/files/pack.task.ts" })).toBe("/m/files/pack.solution.json");
    expect(solutionFileOf({ kind: "mine", file: "/x" })).toBeUndefined();
    const dir = mkdtempSync(join(tmpdir(), "pincer-demo-module-"));
    try {
      writeFileSync(join(dir, "pack.task.ts"), `export default { id: "pack", instruction: "x", build: () => ({}) };\n`);
      await writeJsonAtomic(join(dir, "pack.solution.json"), [{ tool: "desktop__click", args: { x: 1, y: 2 } }]);
      expect(readFileSync(join(dir, "pack.solution.json"), "utf8")).toContain('"desktop__click"');
      const { tasks, problems } = await loadDataset(join(dir, "pack.task.ts"), createRegistries());
      expect(problems.filter((p) => p.severity === "error")).toEqual([]);
      expect(tasks[0]?.solution).toEqual([{ tool: "desktop__click", args: { x: 1, y: 2 } }]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
