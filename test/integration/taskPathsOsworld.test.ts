import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createRegistries, loadDataset } from "@pincer/controller/datasets";
import { osworldFormat } from "@pincer/controller/osworld";
import { OSWORLD_CONFIG_TYPES } from "../../packages/controller/src/datasets/osworld/allConfigTypes.js";
import type { OsworldContext } from "../../packages/controller/src/datasets/osworld/context.js";
import { DownloadCache } from "../../packages/controller/src/datasets/osworld/downloadCache.js";
import { OSWORLD_GETTERS } from "../../packages/controller/src/datasets/osworld/allGetters.js";
import { spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";

// An OSWorld task names controller-side files too: `execute`'s stdout and stderr (written into the
// attempt's cache folder), getters' `dest` and `cache_file`'s `path`. Each way out of the cache
// folder is tried against a real daemon: `..`, an absolute path, a symlink placed in the cache
// folder (a final name and an intermediate directory). Each fails with an error naming the way out,
// and the stand-ins for the host's files (in a temp folder this test made) are neither created,
// changed, nor read. Validation reports each such path with its JSON path.

let daemon: RunningDaemon;
let base: string;
/** Stands for the host outside the attempt's folder. */
let host: string;
let target: string;
let targetWritten: number;
let vm: string;
const UNTOUCHED = "stand-in for a host file\n";

beforeAll(async () => {
  daemon = await spawnDaemon();
  base = mkdtempSync(join(tmpdir(), "pincer-osworld-paths-"));
  host = join(base, "host");
  mkdirSync(host);
  target = join(host, "target.txt");
  writeFileSync(target, UNTOUCHED);
  targetWritten = statSync(target).mtimeMs;
  vm = join(base, "machine");
  mkdirSync(vm);
  writeFileSync(join(vm, "result.txt"), "PWNED\n");
});

afterAll(async () => {
  await daemon?.close();
  if (base) rmSync(base, { recursive: true, force: true });
});

let attempts = 0;
/** A fresh attempt folder whose cache folder has a symlink to the target and one to the host's folder planted in it. */
function context(): OsworldContext {
  const cacheDir = join(base, `attempt-${++attempts}`, "osworld-cache");
  mkdirSync(cacheDir, { recursive: true });
  symlinkSync(target, join(cacheDir, "planted.txt"));
  symlinkSync(host, join(cacheDir, "dir-out"));
  return {
    env: daemon.env,
    signal: new AbortController().signal,
    cacheDir,
    downloads: new DownloadCache(join(base, "downloads"), async () => new Response("downloaded\n")),
    password: "password",
    log: () => undefined,
  };
}

/** Neither the target nor any new file outside the attempt's folder. */
function hostUnchanged(): void {
  expect(readFileSync(target, "utf8")).toBe(UNTOUCHED);
  expect(statSync(target).mtimeMs).toBe(targetWritten);
  for (const name of ["new-dotdot.txt", "new-absolute.txt", "new-dir.txt"]) expect(existsSync(join(host, name)), name).toBe(false);
}

const REFUSED = /outside|leads out|absolute|symlink/;

describe("execute's stdout and stderr stay in the cache folder", () => {
  for (const key of ["stdout", "stderr"]) {
    test(`${key}: every way out is refused and the host is unchanged`, async () => {
      const type = OSWORLD_CONFIG_TYPES.get("execute")!;
      const ctx = context();
      const ways: Record<string, string> = {
        dotdot: relative(ctx.cacheDir, join(host, "new-dotdot.txt")),
        absolute: join(host, "new-absolute.txt"),
        "symlink placed in the cache folder": "planted.txt",
        "symlink as a directory": "dir-out/new-dir.txt",
      };
      const command = ["sh", "-c", "echo PWNED; echo PWNED >&2"];
      for (const [how, path] of Object.entries(ways)) {
        // Checked at the open, not only when the task file is read: the parameters go in as they are.
        const params = { ...(type.parameters.parse({ command }) as object), [key]: path };
        await expect(type.run(params, ctx), `${key} ${how}`).rejects.toThrow(REFUSED);
      }
      // Reading the task refuses the ones its text shows.
      expect(type.parameters.safeParse({ command, [key]: ways.dotdot }).success).toBe(false);
      expect(type.parameters.safeParse({ command, [key]: ways.absolute }).success).toBe(false);
      hostUnchanged();
      // Inside the cache folder it is written as before.
      await type.run(type.parameters.parse({ command, [key]: "out.txt" }), ctx);
      expect(readFileSync(join(ctx.cacheDir, "out.txt"), "utf8")).toBe("PWNED\n");
    });
  }
});

describe("getters", () => {
  test("cache_file reads only the cache folder", async () => {
    const getter = OSWORLD_GETTERS.get("cache_file")!;
    const ctx = context();
    const ways: Record<string, string> = {
      dotdot: relative(ctx.cacheDir, target),
      absolute: target,
      "symlink placed in the cache folder": "planted.txt",
      "symlink as a directory": "dir-out/target.txt",
    };
    for (const [how, path] of Object.entries(ways)) {
      await expect(getter.get({ path }, ctx), how).rejects.toThrow(REFUSED);
    }
    hostUnchanged();
  });

  test("vm_file does not write through a symlink placed where its dest goes", async () => {
    const getter = OSWORLD_GETTERS.get("vm_file")!;
    const ctx = context();
    const got = await getter.get(getter.config.parse({ path: join(vm, "result.txt"), dest: "planted.txt" }), ctx).catch((e: Error) => e);
    if (!(got instanceof Error)) expect(readFileSync(got as string, "utf8")).toBe("PWNED\n");
    hostUnchanged();
  });
});

describe("validate", () => {
  test("reports each escaping path as an error with its JSON path", async () => {
    const id = "0f3c2d6e-8a51-4b1e-9a77-5c2f0e1d9b10";
    const dataset = join(base, "dataset");
    mkdirSync(join(dataset, "os"), { recursive: true });
    const task = {
      id,
      snapshot: "os",
      instruction: "Nothing.",
      config: [
        { type: "execute", parameters: { command: ["true"], stdout: "ok.txt" } },
        { type: "execute", parameters: { command: ["true"], stdout: "../../../../../../tmp/x" } },
        { type: "execute", parameters: { command: ["true"], stderr: "/etc/cron.d/x" } },
      ],
      evaluator: {
        func: "exact_match",
        result: { type: "cache_file", path: "../outside.txt" },
        expected: { type: "vm_file", path: "/tmp/a", dest: ".." },
        postconfig: [{ type: "execute", parameters: { command: ["true"], stdout: "sub/../../x" } }],
      },
    };
    writeFileSync(join(dataset, "os", `${id}.json`), JSON.stringify(task, null, 2));
    const loaded = await loadDataset(dataset, createRegistries({ formats: [osworldFormat] }));
    const errors = loaded.problems.filter((p) => p.severity === "error");
    const byPath = Object.fromEntries(errors.map((p) => [p.path, p.message]));
    expect(Object.keys(byPath).sort()).toEqual([
      "config[1].parameters.stdout",
      "config[2].parameters.stderr",
      "evaluator.expected.dest",
      "evaluator.postconfig[0].parameters.stdout",
      "evaluator.result.path",
    ]);
    expect(byPath["config[1].parameters.stdout"]).toMatch(/outside/);
    expect(byPath["config[2].parameters.stderr"]).toMatch(/absolute/);
    expect(loaded.tasks).toEqual([]);
  });
});
