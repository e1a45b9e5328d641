import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createRegistries, loadDataset } from "@pincer/controller/datasets";
import type { TaskFunctionContext } from "../../packages/controller/src/datasets/taskFunctions.js";
import { spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";

// A JSON-format task names controller-side files in its `local_*` arguments (and `eval_script`).
// Each way out of the task's folder is tried against a real daemon: `..`, an absolute path, a
// symlink in the task folder that points out, a symlink as an intermediate directory. Each must
// fail with an error that names the way out, and the stand-in for the host's secret (a file in a
// temp folder this test made) must not reach the machine. Validation reports every such path with
// its JSON path.

const registries = createRegistries();
let daemon: RunningDaemon;
let base: string;
/** Stands for the host outside the task folder. */
let host: string;
let secret: string;
let secretWritten: number;
let taskDir: string;
let vm: string;
let ctx: TaskFunctionContext;
const SECRET = "stand-in for a host secret\n";

beforeAll(async () => {
  daemon = await spawnDaemon();
  base = mkdtempSync(join(tmpdir(), "pincer-task-paths-"));
  host = join(base, "host");
  mkdirSync(join(host, "private"), { recursive: true });
  secret = join(host, "private", "secret.txt");
  writeFileSync(secret, SECRET);
  secretWritten = statSync(secret).mtimeMs;
  taskDir = join(base, "dataset", "tool", "escape");
  mkdirSync(taskDir, { recursive: true });
  writeFileSync(join(taskDir, "inside.txt"), "inside\n");
  writeFileSync(join(taskDir, "script.sh"), "#!/bin/sh\necho inside-script\n", { mode: 0o755 });
  symlinkSync(secret, join(taskDir, "link-out.txt"));
  symlinkSync(join(host, "private"), join(taskDir, "dir-out"));
  symlinkSync("inside.txt", join(taskDir, "link-in.txt"));
  vm = join(base, "machine");
  mkdirSync(vm);
  ctx = { env: daemon.env, envs: { desktop: daemon.env }, taskDir, signal: new AbortController().signal };
});

afterAll(async () => {
  await daemon?.close();
  if (base) rmSync(base, { recursive: true, force: true });
});

/** The ways out of the task folder, by name: each names the stand-in secret. */
const escapes = (): Record<string, string> => ({
  dotdot: relative(taskDir, secret),
  absolute: secret,
  "symlink out": "link-out.txt",
  "symlink as a directory": "dir-out/secret.txt",
});

/** The stand-in secret is as this test wrote it. */
const unchanged = () => {
  expect(readFileSync(secret, "utf8")).toBe(SECRET);
  expect(statSync(secret).mtimeMs).toBe(secretWritten);
};

describe("config functions read only the task's folder", () => {
  for (const func of ["upload_file_to_vm", "upload_script_and_execute"]) {
    test(`${func}: every way out is refused and nothing reaches the machine`, async () => {
      const helper = registries.configs.get(func)!;
      for (const [how, local] of Object.entries(escapes())) {
        const remote = join(vm, `${func}-${how.replaceAll(" ", "-")}`);
        const run = helper.run(helper.args.parse({ local_path: local, remote_path: remote }), ctx);
        await expect(run, `${func} ${how}`).rejects.toThrow(/outside|leads out|absolute/);
        expect(await daemon.env.files.exists(remote), `${func} ${how}: the secret reached the machine`).toBe(false);
      }
      unchanged();
    });
  }

  test("paths inside the folder, through a symlink that stays inside too, still upload", async () => {
    const helper = registries.configs.get("upload_file_to_vm")!;
    for (const local of ["inside.txt", "link-in.txt", "./sub/../inside.txt"]) {
      const remote = join(vm, `ok-${local.replaceAll("/", "_")}`);
      await helper.run(helper.args.parse({ local_path: local, remote_path: remote }), ctx);
      expect(await daemon.env.files.read(remote)).toBe("inside\n");
    }
  });
});

describe("evaluation functions read only the task's folder", () => {
  test("compare_text_file and compare_script_logs: every way out is refused", async () => {
    const text = registries.evaluations.get("compare_text_file")!;
    const logs = registries.evaluations.get("compare_script_logs")!;
    await daemon.env.files.write(join(vm, "result.txt"), SECRET);
    for (const [how, local] of Object.entries(escapes())) {
      await expect(text.run(text.args.parse({ local_expected: local, vm_result: join(vm, "result.txt") }), ctx), `compare_text_file ${how}`).rejects.toThrow(
        /outside|leads out|absolute/,
      );
      await expect(logs.run(logs.args.parse({ local_script: local, include: ["x"] }), ctx), `compare_script_logs ${how}`).rejects.toThrow(
        /outside|leads out|absolute/,
      );
    }
    unchanged();
  });
});

describe("validate", () => {
  test("reports each escaping path as an error with its JSON path", async () => {
    const paths = escapes();
    const task = {
      id: "escape",
      instruction: "Nothing.",
      config: [
        { func: "upload_file_to_vm", arguments: { local_path: paths.dotdot, remote_path: "/tmp/a" } },
        { func: "upload_file_to_vm", arguments: { local_path: paths.absolute, remote_path: "/tmp/b" } },
        { func: "upload_file_to_vm", arguments: { local_path: paths["symlink out"], remote_path: "/tmp/c" } },
        { func: "upload_script_and_execute", arguments: { local_path: paths["symlink as a directory"], remote_path: "/tmp/d" } },
        { func: "upload_file_to_vm", arguments: { local_path: "inside.txt", remote_path: "/tmp/e" } },
      ],
      evaluation: {
        func: "compare_script_logs",
        arguments: { eval_script: "link-out.txt", vm_eval_logs: "/tmp/log", include: ["x"] },
      },
    };
    writeFileSync(join(taskDir, "escape.json"), JSON.stringify(task, null, 2));
    try {
      const dataset = await loadDataset(join(base, "dataset"), registries);
      const errors = dataset.problems.filter((p) => p.severity === "error" && p.file === join(taskDir, "escape.json"));
      const byPath = Object.fromEntries(errors.map((p) => [p.path, p.message]));
      expect(Object.keys(byPath).sort()).toEqual([
        "config[0].arguments.local_path",
        "config[1].arguments.local_path",
        "config[2].arguments.local_path",
        "config[3].arguments.local_path",
        "evaluation.arguments.eval_script",
      ]);
      expect(byPath["config[0].arguments.local_path"]).toMatch(/outside/);
      expect(byPath["config[1].arguments.local_path"]).toMatch(/absolute/);
      expect(byPath["config[2].arguments.local_path"]).toMatch(/symlink/);
      expect(byPath["config[3].arguments.local_path"]).toMatch(/symlink/);
      expect(dataset.tasks.map((t) => t.id)).not.toContain("escape");
    } finally {
      rmSync(join(taskDir, "escape.json"));
    }
    unchanged();
  });

  test("reports a solution's local paths that leave the folders the run confines them to", async () => {
    const task = { id: "escape", instruction: "Nothing.", evaluation: { func: "check_file_exists", arguments: { vm_file: "/tmp/x" } } };
    const steps = [
      { tool: "desktop__upload_file", args: { local_path: escapes()["symlink out"], remote_path: "/tmp/a" } },
      { tool: "desktop__upload_file", args: { local_path: escapes().absolute, remote_path: "/tmp/b" } },
      { tool: "desktop__download_file", args: { remote_path: "/tmp/c", local_path: "../../c.txt" } },
      { tool: "desktop__upload_file", args: { local_path: "inside.txt", remote_path: "/tmp/d" } },
    ];
    writeFileSync(join(taskDir, "escape.json"), JSON.stringify(task));
    writeFileSync(join(taskDir, "solution.json"), JSON.stringify(steps));
    try {
      const dataset = await loadDataset(join(base, "dataset"), registries);
      const errors = dataset.problems.filter((p) => p.severity === "error" && p.file === join(taskDir, "solution.json"));
      expect(errors.map((p) => p.path)).toEqual(["[0].args.local_path", "[1].args.local_path", "[2].args.local_path"]);
      expect(errors[0]!.message).toMatch(/symlink/);
      expect(errors[1]!.message).toMatch(/absolute/);
      expect(errors[2]!.message).toMatch(/outside/);
    } finally {
      rmSync(join(taskDir, "escape.json"));
      rmSync(join(taskDir, "solution.json"));
    }
  });
});
