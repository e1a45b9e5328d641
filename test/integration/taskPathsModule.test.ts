import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createRegistries, loadDataset, type ModuleDatasetTask, moduleTaskFormat, resolveLocal } from "@pincer/controller/datasets";
import { spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";

// A task module is code and runs as its user chose; the helpers it names files with are not a way
// out: `ctx.taskFiles` (and `resolveLocal`) confine a path that comes from data — here a field of
// the module's own JSON — to the task's folder. A real module file is loaded by the module format
// and its setup runs against a real daemon; each way out (`..`, an absolute path, a symlink in
// the folder that points out, a symlink as an intermediate directory) fails with a clear error, and
// the stand-in for a host secret (in a temp folder this test made) never reaches the machine.

const CONTROLLER = pathToFileURL(resolve(import.meta.dirname, "../../packages/controller/src/index.ts")).href;
const SECRET = "stand-in for a host secret\n";
let daemon: RunningDaemon;
let base: string;
let host: string;
let secret: string;
let secretWritten: number;
let taskDir: string;
let vm: string;

/** The module: one setup step per path its data.json names, each uploading that file through ctx.taskFiles. */
const MODULE = `
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { action, evaluator } from ${JSON.stringify(CONTROLLER)};
export default {
  id: "escape",
  instruction: "Nothing.",
  build: ({ taskDir, taskFiles }) => {
    const data = JSON.parse(readFileSync(join(taskDir, "data.json"), "utf8"));
    const upload = action({
      name: "upload_named",
      description: "Uploads a file of the task folder that data.json names.",
      run: async (_p, { env, signal }) => {
        for (const [i, path] of data.paths.entries()) {
          await taskFiles.withFile(path, (at) => env.files.upload(at, data.remote + "/" + i, { signal }), "data.json paths[" + i + "]");
        }
      },
    });
    const copy = action({
      name: "write_expected",
      description: "Writes the text of the file data.json names as expected onto the machine.",
      run: async (_p, { env, signal }) => {
        await env.files.write(data.remote + "/expected", (await taskFiles.read(data.expected, "data.json expected")).toString(), { signal });
      },
    });
    const done = evaluator({ name: "done", description: "Always passes.", run: async () => true });
    return { setup: [{ action: upload, args: {} }, { action: copy, args: {} }], evaluator: done };
  },
};
`;

beforeAll(async () => {
  daemon = await spawnDaemon();
  base = mkdtempSync(join(tmpdir(), "pincer-module-paths-"));
  host = join(base, "host");
  mkdirSync(join(host, "private"), { recursive: true });
  secret = join(host, "private", "secret.txt");
  writeFileSync(secret, SECRET);
  secretWritten = statSync(secret).mtimeMs;
  taskDir = join(base, "dataset", "modules");
  mkdirSync(taskDir, { recursive: true });
  writeFileSync(join(taskDir, "inside.txt"), "inside\n");
  symlinkSync(secret, join(taskDir, "link-out.txt"));
  symlinkSync(join(host, "private"), join(taskDir, "dir-out"));
  writeFileSync(join(taskDir, "escape.task.mjs"), MODULE);
  vm = join(base, "machine");
  mkdirSync(vm);
});

afterAll(async () => {
  await daemon?.close();
  if (base) rmSync(base, { recursive: true, force: true });
});

const escapes = (): Record<string, string> => ({
  dotdot: relative(taskDir, secret),
  absolute: secret,
  "symlink out": "link-out.txt",
  "symlink as a directory": "dir-out/secret.txt",
});

/** The module task, loaded by the module format from data.json as written now, built for the daemon. */
async function build(data: { paths: string[]; expected: string; remote: string }) {
  writeFileSync(join(taskDir, "data.json"), JSON.stringify(data));
  const dataset = await loadDataset(join(base, "dataset"), createRegistries());
  expect(dataset.problems.filter((p) => p.severity === "error")).toEqual([]);
  const task = dataset.tasks.find((t) => t.id === "escape") as ModuleDatasetTask;
  return moduleTaskFormat.build(task, {
    envs: { desktop: daemon.env },
    registries: createRegistries(),
    agent: {},
    maxSteps: 1,
    timeLimitMs: 10_000,
    dir: join(base, "attempt"),
  });
}

describe("a task module's helpers confine paths that come from data", () => {
  test("ctx.taskFiles.withFile: every way out is refused and nothing reaches the machine", async () => {
    for (const [how, path] of Object.entries(escapes())) {
      const remote = join(vm, how.replaceAll(" ", "-"));
      const task = await build({ paths: [path], expected: "inside.txt", remote });
      const step = task.setup[0]!;
      const r = await step.action.safeCall(step.args, { env: daemon.env });
      expect(r.ok, how).toBe(false);
      expect(!r.ok && r.error.message, how).toMatch(/outside|absolute|symlink/);
      expect(await daemon.env.files.exists(`${remote}/0`), `${how}: the secret reached the machine`).toBe(false);
    }
    expect(readFileSync(secret, "utf8")).toBe(SECRET);
    expect(statSync(secret).mtimeMs).toBe(secretWritten);
  });

  test("ctx.taskFiles.read: every way out is refused and nothing reaches the machine", async () => {
    for (const [how, path] of Object.entries(escapes())) {
      const remote = join(vm, `read-${how.replaceAll(" ", "-")}`);
      const task = await build({ paths: [], expected: path, remote });
      const step = task.setup[1]!;
      const r = await step.action.safeCall(step.args, { env: daemon.env });
      expect(r.ok, how).toBe(false);
      expect(!r.ok && r.error.message, how).toMatch(/outside|absolute|symlink/);
      expect(await daemon.env.files.exists(`${remote}/expected`), `${how}: the secret reached the machine`).toBe(false);
    }
  });

  test("inside the folder they work", async () => {
    const remote = join(vm, "inside");
    const task = await build({ paths: ["inside.txt", "./inside.txt"], expected: "inside.txt", remote });
    for (const step of task.setup) expect((await step.action.safeCall(step.args, { env: daemon.env })).ok).toBe(true);
    expect(await daemon.env.files.read(`${remote}/1`)).toBe("inside\n");
    expect(await daemon.env.files.read(`${remote}/expected`)).toBe("inside\n");
  });

  test("resolveLocal refuses every way out", () => {
    for (const [how, path] of Object.entries(escapes())) {
      expect(() => resolveLocal({ taskDir }, path), how).toThrow(/outside|absolute|symlink/);
    }
    expect(resolveLocal({ taskDir }, "inside.txt")).toBe(join(taskDir, "inside.txt"));
  });
});
