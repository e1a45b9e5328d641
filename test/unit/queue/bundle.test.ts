import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { pack } from "msgpackr";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { packFiles, unpackFiles } from "../../../packages/controller/src/queue/bundle.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "pincer-bundle-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const opts = { maxBytes: 1024 * 1024, what: "the task's files", limitFlag: "--limit" };

describe("task and attempt bundles", () => {
  test("pack and unpack keep files, folders and modes; node_modules and .git stay behind; exclude leaves a file out", async () => {
    mkdirSync(join(dir, "src/task/sub"), { recursive: true });
    mkdirSync(join(dir, "src/node_modules/x"), { recursive: true });
    mkdirSync(join(dir, "src/.git"), { recursive: true });
    writeFileSync(join(dir, "src/task/a.json"), '{"a":1}');
    writeFileSync(join(dir, "src/task/sub/run.sh"), "#!/bin/sh\necho hi\n", { mode: 0o755 });
    writeFileSync(join(dir, "src/task/summary.json"), "{}");
    writeFileSync(join(dir, "src/node_modules/x/index.js"), "");
    writeFileSync(join(dir, "src/.git/HEAD"), "");
    const blob = await packFiles(join(dir, "src"), { ...opts, exclude: ["task/summary.json"] });
    const written = await unpackFiles(blob, join(dir, "out"));
    expect(written.sort()).toEqual(["task/a.json", "task/sub/run.sh"]);
    expect(readFileSync(join(dir, "out/task/a.json"), "utf8")).toBe('{"a":1}');
    expect(statSync(join(dir, "out/task/sub/run.sh")).mode & 0o777).toBe(0o755);
    expect(existsSync(join(dir, "out/task/summary.json"))).toBe(false);
  });

  test("files past the limit are refused with the flag that raises it", async () => {
    writeFileSync(join(dir, "big.bin"), Buffer.alloc(2048));
    await expect(packFiles(dir, { ...opts, maxBytes: 1000 })).rejects.toThrow(/more than 1000 bytes \(at big\.bin\); raise --limit/);
  });

  test.each(["../escape.txt", "/etc/escape.txt", "a/../../escape.txt"])(
    "a path that leaves the folder (%s) is refused and nothing is written",
    async (path) => {
      const blob = gzipSync(pack([{ path, mode: 0o644, data: Buffer.from("x") }]));
      await expect(unpackFiles(blob, join(dir, "out"))).rejects.toThrow(/would leave its folder/);
      expect(existsSync(join(dir, "escape.txt"))).toBe(false);
    },
  );

  test("a blob that is not a bundle says so", async () => {
    await expect(unpackFiles(Buffer.from("not gzip"), join(dir, "out"))).rejects.toThrow(/not a bundle of files/);
    await expect(unpackFiles(gzipSync(pack({ a: 1 })), join(dir, "out"))).rejects.toThrow(/not a bundle of files/);
  });
});
