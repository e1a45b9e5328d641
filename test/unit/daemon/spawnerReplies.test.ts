import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { encodeSpawn, NATIVE_SPAWNER_PATH, ReplyDecoder, type Reply } from "../../../packages/daemon/src/drivers/spawner.js";

/** The replies of the real native spawner to one SPAWN, in the chunks the pipe delivered them in. */
async function chunksOf(argv: string[], latePid: boolean): Promise<Reply[][]> {
  const child = spawn(NATIVE_SPAWNER_PATH, [], { stdio: ["pipe", "pipe", "inherit"] });
  const decoder = new ReplyDecoder();
  const chunks: Reply[][] = [];
  const done = new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => {
      const replies: Reply[] = [];
      decoder.push(chunk, (r) => replies.push(r));
      chunks.push(replies);
      if (replies.some((r) => r.op === "exit" || r.op === "error")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`the spawner exited (${code}) before the command's end`)));
  });
  child.stdin.write(encodeSpawn(1, { file: argv[0]!, args: argv.slice(1), cwd: "/", env: { PATH: "/usr/bin:/bin" }, detachedIo: false, latePid }));
  try {
    await done;
  } finally {
    child.stdin.end();
  }
  return chunks;
}

const ops = (chunks: Reply[][]) => chunks.map((c) => c.map((r) => r.op));

describe.runIf(existsSync(NATIVE_SPAWNER_PATH))("native spawner replies", () => {
  test("output and exit arrive in order and in whole replies, however the turns of its loop batch them", async () => {
    for (let i = 0; i < 5; i++) {
      const chunks = await chunksOf(["sh", "-c", "echo out; echo err >&2; sleep 0.05; echo more"], false);
      // A chunk that ended inside a reply would leave a part for the next one: no reply in some chunk.
      for (const c of chunks) expect(c.length, JSON.stringify(ops(chunks))).toBeGreaterThan(0);
      expect(chunks.flat().map((r) => r.op)).toEqual(["spawned", "stdout", "stderr", "stdout", "exit"]);
    }
  });

  test("with a late pid, a short command's pid and exit arrive together, in one chunk", async () => {
    for (let i = 0; i < 5; i++) {
      const chunks = await chunksOf(["true"], true);
      expect(ops(chunks)).toEqual([["spawned", "exit"]]);
      const [spawned, exit] = chunks[0]!;
      expect(spawned).toMatchObject({ op: "spawned", id: 1 });
      expect((spawned as { pid: number }).pid).toBeGreaterThan(0);
      expect(exit).toEqual({ op: "exit", id: 1, code: 0, signal: null });
    }
  });

  test("with a late pid, the pid still comes first: before the output, and on its own while the command is quiet", async () => {
    const talking = await chunksOf(["sh", "-c", "echo hi; sleep 0.05"], true);
    expect(talking.flat().map((r) => r.op)).toEqual(["spawned", "stdout", "exit"]);
    // Quiet for 300 ms: the pid goes out at its deadline (10 ms), not with the output.
    const quiet = await chunksOf(["sh", "-c", "sleep 0.3; echo late"], true);
    expect(ops(quiet)[0]).toEqual(["spawned"]);
    expect(quiet.flat().map((r) => r.op)).toEqual(["spawned", "stdout", "exit"]);
  });

  test("without a late pid, the pid comes as soon as the command runs", async () => {
    const chunks = await chunksOf(["sh", "-c", "sleep 0.2"], false);
    expect(ops(chunks)).toEqual([["spawned"], ["exit"]]);
  });
});
