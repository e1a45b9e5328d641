import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, test } from "vitest";
import { evaluator } from "@pincer/controller";
import { ScriptedAgent } from "@pincer/controller/agents";
import { createRegistries, defineTask } from "@pincer/controller/datasets";
import { startLocalPool } from "@pincer/controller/machines";
import { runTasks, type Summary } from "@pincer/controller/runner";
import { moduleTask } from "../fixtures/tasks.js";

// The embedded default gives every task a clean machine: a task that writes into /home/user, /tmp
// and /etc, sets the clipboard and leaves a window open is followed, on the same slot, by a task
// that sees none of it; and nothing of it reaches this computer.

const work = mkdtempSync(join(tmpdir(), "pincer-isolation-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const mark = `pincer-isolation-${process.pid}`;
const FILES = [`/home/user/${mark}.txt`, `/tmp/${mark}.txt`, `/etc/${mark}.txt`];
const rc = (command: string) => ({ tool: "desktop__run_command", args: { command } });

test("a task leaves nothing for the next task on its slot, nor on this computer", async () => {
  const dirty = evaluator({
    name: "everything_left",
    description: "The files, the clipboard text and the window are there.",
    run: async (_p, { env, signal }) => {
      for (const f of FILES) if (!(await env.files.exists(f, { signal }))) return false;
      const windows = await env.windows.list({ signal });
      return (await env.clipboard.get({ signal })) === mark && windows.some((w) => w.title.includes(mark));
    },
  });
  const clean = evaluator({
    name: "nothing_left",
    description: "None of the files, no clipboard text, no window.",
    run: async (_p, { env, signal }) => {
      for (const f of FILES) if (await env.files.exists(f, { signal })) return false;
      const windows = await env.windows.list({ signal });
      return (await env.clipboard.get({ signal })) !== mark && !windows.some((w) => w.title.includes(mark));
    },
  });
  const first = moduleTask(defineTask({ id: "a-leave-traces", instruction: "Leave traces.", build: () => ({ evaluator: dirty }) }), work, "t");
  const second = moduleTask(defineTask({ id: "b-find-none", instruction: "Do nothing.", build: () => ({ evaluator: clean }) }), work, "t");
  const solution = [
    rc(FILES.map((f) => `echo left > ${f}`).join(" && ")),
    rc(`printf ${mark} | xclip -selection clipboard`),
    { tool: "desktop__launch", args: { command: `xterm -T ${mark}`, wait_for_title: mark } },
  ];
  const pool = await startLocalPool(["desktop"], 1);
  try {
    const { runDir } = await runTasks({
      tasks: [first, second],
      registries: createRegistries(),
      pool,
      agentFor: (t) => new ScriptedAgent(t.id === first.id ? solution : []),
      outDir: join(work, "out"),
      runId: "r",
      screenshots: false,
    });
    const summary = (id: string): Summary => JSON.parse(readFileSync(join(runDir, "t", id, "attempt-1", "summary.json"), "utf8"));
    // The first task really left its traces (its check passed), the second found none of them.
    expect(summary(first.id).results, JSON.stringify(summary(first.id).results.messages)).toMatchObject({ state: "passed" });
    expect(summary(second.id).results).toMatchObject({ state: "passed" });
    expect(summary(first.id).results.machine_reset).toEqual({ desktop: { provider: "local", method: "fresh", ms: 0 } });
    const reset = summary(second.id).results.machine_reset.desktop!;
    expect(reset).toMatchObject({ provider: "local", method: "new sandbox" });
    console.log(`isolation: the second task's machine was reset in ${reset.ms.toFixed(0)} ms`);
  } finally {
    await pool.close();
  }
  for (const f of FILES) expect(existsSync(f), f).toBe(false);
}, 120_000);
