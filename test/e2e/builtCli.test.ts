import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";

// The `pincer` executable as `npm i -g` or `npx pincer` runs it: the compiled CLI under plain node,
// without tsx and without the @pincer/source condition, on task modules in folders outside the
// repository, which have no node_modules of their own.
const ROOT = resolve(import.meta.dirname, "../..");
const CLI = join(ROOT, "packages/controller/dist/cli/main.js");

function pincer(args: string[], cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ["--single-threaded-gc", CLI, ...args], { cwd, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  return new Promise((res) => child.once("exit", (code) => res({ code, stdout, stderr })));
}

/** A task module that needs TypeScript, @pincer/controller, its /datasets entry and zod. */
function noteTask(file: string): string {
  return `import { z } from "zod";
import { action, evaluator } from "@pincer/controller";
import { defineTask } from "@pincer/controller/datasets";

const FILE: string = ${JSON.stringify(file)};

export default defineTask({
  id: "write-note",
  instruction: \`Write the word hello into \${FILE}.\`,
  tags: ["cli"],
  action_number: 1,
  build: () => {
    const clear = action({
      name: "clear_note",
      description: "Removes the note.",
      run: async (_params, { env, signal }) => {
        await env.files.remove(FILE, { missingOk: true, signal });
      },
    });
    const holds = evaluator({
      name: "note_holds",
      description: "The note holds the text.",
      params: z.object({ text: z.string() }),
      run: async ({ text }, { env, signal }) => (await env.files.exists(FILE, { signal })) && (await env.files.read(FILE, { signal })).trim() === text,
    });
    return { setup: [clear], evaluator: holds.bind({ text: "hello" }) };
  },
  // The machine is a sandbox with its own /tmp: the folder is made there, not on this computer.
  solution: [{ tool: "desktop__run_command", args: { command: \`mkdir -p $(dirname \${FILE}) && echo hello > \${FILE}\` } }],
});
`;
}

/** A module whose extra action is named like a desktop action: it cannot be built. */
const clashTask = `import { action, evaluator } from "@pincer/controller";
import { defineTask } from "@pincer/controller/datasets";

export default defineTask({
  id: "clash",
  instruction: "Click somewhere.",
  build: () => ({
    evaluator: evaluator({ name: "never", description: "Never passes.", run: () => false }),
    extraActions: { desktop: [action({ name: "click", description: "Not the desktop's click.", run: () => "clicked" })] },
  }),
});
`;

let outside: string;

beforeAll(() => {
  // The compiled CLI must be current: build the controller (and shared) as npm ci does.
  execFileSync(process.execPath, [join(ROOT, "node_modules/typescript/bin/tsc"), "-b", "packages/controller"], { cwd: ROOT, stdio: "inherit" });
  outside = mkdtempSync(join(tmpdir(), "pincer-outside-"));
  mkdirSync(join(outside, "my-tasks"));
  mkdirSync(join(outside, "machine"));
  writeFileSync(join(outside, "my-tasks", "write-note.task.ts"), noteTask(join(outside, "machine", "note.txt")));
  mkdirSync(join(outside, "broken"));
  writeFileSync(join(outside, "broken", "clash.task.ts"), clashTask);
}, 120_000);
afterAll(() => rmSync(outside, { recursive: true, force: true }));

describe("the built pincer CLI", () => {
  test("validate examples: the JSON tasks and both TypeScript modules load", async () => {
    const r = await pincer(["validate", "examples"], ROOT);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^14 task\(s\) valid; 0 error\(s\), 0 warning\(s\)$/m);
  });

  test("a module outside the repository: validate finds it valid, and run passes it with results inside the run folder", async () => {
    expect(existsSync(join(outside, "node_modules"))).toBe(false);
    const file = join(outside, "my-tasks", "write-note.task.ts");
    const valid = await pincer(["validate", file], outside);
    expect(valid.code, valid.stdout + valid.stderr).toBe(0);
    expect(valid.stdout).toMatch(/^1 task\(s\) valid; 0 error\(s\), 0 warning\(s\)$/m);

    // One module file as the dataset: its folder's name is its tool, so results stay in results/<run-id>/.
    const run = await pincer(["run", file, "--run-id", "r1", "--strict", "--no-screenshots"], outside);
    expect(run.code, run.stderr + run.stdout).toBe(0);
    expect(run.stdout).toMatch(/tasks 1: passed 1, failed 0, errors 0; success rate 100\.0%/);
    const summary = JSON.parse(readFileSync(join(outside, "results", "r1", "my-tasks", "write-note", "attempt-1", "summary.json"), "utf8"));
    expect(summary.results).toMatchObject({ state: "passed", score: 1, metrics: { success: true } });
    expect(existsSync(join(outside, "results", "write-note"))).toBe(false);
  });

  test("validate reports a module that cannot be built as an error of that task", async () => {
    const r = await pincer(["validate", join(outside, "broken")], outside);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/clash\.task\.ts:build: error: the task cannot be built: .*extra action click clashes with an action of desktop/);
    expect(r.stdout).toMatch(/^0 task\(s\) valid; 1 error\(s\), 0 warning\(s\)$/m);
  });
});
