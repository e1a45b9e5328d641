import { execFileSync } from "node:child_process";
import { constants } from "node:os";
import { describe, expect, test } from "vitest";
import { encodeControl, encodeSpawn, ReplyDecoder, chooseSpawner, type Reply } from "../../../packages/daemon/src/drivers/spawner.js";

/** One reply frame as native/spawner.c writes it. */
function frame(type: number, id: number, body: Buffer): Buffer {
  const head = Buffer.alloc(9);
  head.writeUInt32LE(5 + body.length, 0);
  head[4] = type;
  head.writeUInt32LE(id, 5);
  return Buffer.concat([head, body]);
}
const i32s = (...v: number[]) => Buffer.from(new Int32Array(v).buffer);

describe("native spawner protocol", () => {
  const stream = Buffer.concat([
    frame(1, 7, i32s(4242)),
    frame(3, 7, Buffer.from("out")),
    frame(4, 7, Buffer.from("err")),
    frame(5, 7, i32s(-1, constants.signals.SIGTERM)),
    frame(2, 8, i32s(constants.errno.ENOENT)),
    frame(5, 9, i32s(3, 0)),
  ]);
  const expected: Reply[] = [
    { op: "spawned", id: 7, pid: 4242 },
    { op: "stdout", id: 7, data: Buffer.from("out") },
    { op: "stderr", id: 7, data: Buffer.from("err") },
    { op: "exit", id: 7, code: null, signal: "SIGTERM" },
    { op: "error", id: 8, code: "ENOENT", message: "spawn failed: ENOENT" },
    { op: "exit", id: 9, code: 3, signal: null },
  ];

  test("replies decode the same however the pipe splits them", () => {
    for (const step of [1, 2, 5, 9, 13, stream.length]) {
      const got: Reply[] = [];
      const d = new ReplyDecoder();
      for (let i = 0; i < stream.length; i += step) d.push(stream.subarray(i, i + step), (r) => got.push(r));
      expect(got, `pieces of ${step} bytes`).toEqual(expected);
    }
  });

  test("a request frame carries argv, env, cwd and stdin with their lengths", () => {
    const f = encodeSpawn(5, { file: "cat", args: ["-n", "ü"], cwd: "/tmp", env: { A: "1", B: "x=y" }, stdin: Buffer.from("in"), detachedIo: false });
    expect(f.readUInt32LE(0)).toBe(f.length - 4);
    const words: string[] = [];
    let at = 16;
    const str = () => {
      const len = f.readUInt32LE(at);
      const s = f.subarray(at + 4, at + 4 + len).toString();
      at += 4 + len;
      return s;
    };
    expect([f.readUInt32LE(4), f.readUInt32LE(8), f.readUInt32LE(12)]).toEqual([1, 5, 2]);
    words.push(str(), str());
    const argc = f.readUInt32LE(at);
    at += 4;
    for (let i = 0; i < argc; i++) words.push(str());
    const envc = f.readUInt32LE(at);
    at += 4;
    for (let i = 0; i < envc; i++) words.push(str());
    words.push(str());
    expect(at).toBe(f.length);
    expect(words).toEqual(["cat", "/tmp", "cat", "-n", "ü", "A=1", "B=x=y", "in"]);
  });

  test("an environment is encoded from its contents: a frozen one's kept encoding, a changed one's anew", () => {
    // The env block of two 3-byte variables (18 bytes), before the u32 length of stdin.
    const envOf = (f: Buffer) => f.subarray(f.length - 4 - 18, f.length - 4);
    const req = (env: Record<string, string>) => ({ file: "f", args: [], cwd: "/", env, detachedIo: false });
    const frozen = Object.freeze({ A: "1", B: "2" });
    expect(encodeSpawn(1, req(frozen))).toEqual(encodeSpawn(1, req(frozen)));
    expect(encodeSpawn(1, req(frozen))).toEqual(encodeSpawn(1, req({ A: "1", B: "2" })));
    const open: Record<string, string> = { A: "1", B: "2" };
    const before = envOf(encodeSpawn(1, req(open)));
    open.B = "3";
    const after = envOf(encodeSpawn(1, req(open)));
    expect([before.toString("latin1"), after.toString("latin1")]).toEqual(["\x02\0\0\0\x03\0\0\0A=1\x03\0\0\0B=2", "\x02\0\0\0\x03\0\0\0A=1\x03\0\0\0B=3"]);
  });

  test("PAUSE and KILL frames carry the op, the command's id and the pause flag", () => {
    const words = (b: Buffer) => Array.from({ length: b.length / 4 }, (_, i) => b.readUInt32LE(i * 4));
    expect(words(encodeControl("pause", 9, true))).toEqual([12, 2, 9, 1]);
    expect(words(encodeControl("pause", 9, false))).toEqual([12, 2, 9, 0]);
    expect(words(encodeControl("kill", 0x01020304))).toEqual([8, 3, 0x01020304]);
  });

  test("PINCER_SPAWNER picks the spawner and rejects anything else with the choices", () => {
    expect(chooseSpawner({ PINCER_SPAWNER: "node" })).toBe("node");
    expect(() => chooseSpawner({ PINCER_SPAWNER: "fast" })).toThrow(/use "native" or "node"/);
  });

  test("spawner.c compiles without warnings", () => {
    const out = execFileSync("cc", ["-O2", "-Wall", "-Wextra", "-Werror", "-fsyntax-only", "packages/daemon/native/spawner.c"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
    expect(out).toBe("");
  });
});
