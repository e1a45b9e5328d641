import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";
import { startXvfb, type XServer } from "../fixtures/xvfb.js";

// The wire contract compiled for another language and built: protoc generates Python (messages,
// .pyi type stubs and grpcio service stubs, with Debian's grpc_python_plugin) from proto/, and
// Debian's python3 imports, parses and exercises all of it and calls a real daemon through it.

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, "../..");
const PROTO_DIR = join(ROOT, "proto/pincer/v1");

/** Words a field may not be named: a generated identifier or a user's code in that language breaks on them. */
const RESERVED: Record<string, string[]> = {
  // Python's keyword.kwlist comes from the python3 that runs the generated code (see below).
  Go: [
    ..."break case chan const continue default defer else fallthrough for func go goto if import interface map".split(" "),
    ..."package range return select struct switch type var".split(" "),
  ],
  Java: [
    ..."abstract assert boolean break byte case catch char class const continue default do double else enum extends final finally float for goto if".split(" "),
    ..."implements import instanceof int interface long native new package private protected public return short static strictfp super switch".split(" "),
    ..."synchronized this throw throws transient try void volatile while true false null var".split(" "),
  ],
  "C#": [
    ..."abstract as base bool break byte case catch char checked class const continue decimal default delegate do double else enum event explicit".split(" "),
    ..."extern false finally fixed float for foreach goto if implicit in int interface internal is lock long namespace new null object operator".split(" "),
    ..."out override params private protected public readonly ref return sbyte sealed short sizeof stackalloc static string struct switch this".split(" "),
    ..."throw true try typeof uint ulong unchecked unsafe ushort using virtual void volatile while".split(" "),
  ],
};

interface Built {
  files: string[];
  modules: string[];
  unparsable: string[];
  python_keywords: string[];
  fields: Record<string, string[]>;
  constructed: string[];
  construct_errors: string[];
  services: Record<string, string[]>;
  stub_gaps: string[];
  info: { protocol_version: string; display: string };
  size: [number, number];
}

const protos = readdirSync(PROTO_DIR)
  .filter((f) => f.endsWith(".proto"))
  .sort();
let xs: XServer;
let daemon: RunningDaemon;
let out: string;
let built: Built;

beforeAll(async () => {
  xs = await startXvfb({ width: 1024, height: 768 });
  out = mkdtempSync(join(tmpdir(), "pincer-codegen-"));
  const [started] = await Promise.all([
    spawnDaemon({ display: xs.display }),
    run(
      "protoc",
      [
        "-I",
        "proto",
        `--python_out=${out}`,
        `--pyi_out=${out}`,
        `--grpc_python_out=${out}`,
        "--plugin=protoc-gen-grpc_python=/usr/bin/grpc_python_plugin",
        ...protos.map((f) => `proto/pincer/v1/${f}`),
      ],
      { cwd: ROOT },
    ),
  ]);
  daemon = started;
  await daemon.env.waitUntilReady({ timeoutMs: 20_000 });
  // Debian's python3 with python3-grpcio and python3-protobuf, not a virtualenv's.
  const { stdout } = await run("/usr/bin/python3", [join(ROOT, "test/fixtures/protoCodegen.py"), out, daemon.address], { timeout: 30_000 });
  built = JSON.parse(stdout);
});

afterAll(async () => {
  await daemon?.close();
  await xs?.close();
  if (out) rmSync(out, { recursive: true, force: true });
});

/** "pincer.v1.Message.field (Python, Java)" for each field whose name some language reserves. */
function reservedFields(fields: Record<string, string[]>, reserved: Record<string, string[]>): string[] {
  return Object.entries(fields).flatMap(([message, names]) =>
    names.flatMap((name) => {
      const languages = Object.keys(reserved).filter((lang) => reserved[lang]!.includes(name));
      return languages.length ? [`${message}.${name} (${languages.join(", ")})`] : [];
    }),
  );
}

describe("code generated from proto/ for another language (Python)", () => {
  test("protoc writes messages, .pyi stubs and gRPC stubs for every .proto, and python3 imports every module", () => {
    const stems = protos.map((f) => f.replace(/\.proto$/, ""));
    expect(built.files).toEqual(expect.arrayContaining(stems.flatMap((s) => [`${s}_pb2.py`, `${s}_pb2.pyi`, `${s}_pb2_grpc.py`])));
    expect(built.modules).toEqual(stems.flatMap((s) => [`${s}_pb2`, `${s}_pb2_grpc`]).sort());
  });

  test("every message is constructed with each of its fields as a keyword argument", () => {
    const messages = Object.keys(built.fields);
    expect(messages.length).toBeGreaterThan(50);
    expect(messages).toContain("pincer.v1.ScreenshotRequest");
    // Fields Python cannot spell are the next test's failure; anything else failing is this one's.
    const keywordBlocked = new Set(built.construct_errors.filter((e) => e.includes("is not valid Python")).map((e) => e.split(":")[0]));
    expect(built.construct_errors.filter((e) => !e.includes("is not valid Python"))).toEqual([]);
    expect([...built.constructed, ...keywordBlocked].sort()).toEqual([...messages].sort());
  });

  test("no field is named with a reserved word of Python, Go, Java or C#", () => {
    const reserved = { Python: built.python_keywords, ...RESERVED };
    expect(reserved.Python).toEqual(expect.arrayContaining(["from", "class", "def", "lambda"]));
    const hits = reservedFields(built.fields, reserved);
    // What Python's generated code actually trips on: `Message(from=...)`, `msg.from`, the .pyi's __init__.
    const pythonBreaks = [...built.unparsable, ...built.construct_errors.filter((e) => e.includes("is not valid Python"))];
    expect(
      { reservedFieldNames: hits, pythonSyntaxErrors: pythonBreaks },
      `fields named with a reserved word (rename them in proto/pincer/v1/, keeping their numbers):\n${hits.join("\n")}\n${pythonBreaks.join("\n")}`,
    ).toEqual({ reservedFieldNames: [], pythonSyntaxErrors: [] });
  });

  test("each service's generated Stub and Servicer have every method of the service", () => {
    const rpcs = protos.flatMap((f) => [...readFileSync(join(PROTO_DIR, f), "utf8").matchAll(/^\s*rpc\s+(\w+)/gm)].map((m) => m[1]));
    expect(Object.keys(built.services)).toEqual(expect.arrayContaining(["pincer.v1.System", "pincer.v1.Screen", "pincer.v1.Input", "pincer.v1.Process"]));
    expect(Object.values(built.services).flat().sort()).toEqual(rpcs.sort());
    expect(built.stub_gaps).toEqual([]);
  });

  test("the generated stubs call System/GetInfo and Screen/GetScreenSize on a real daemon", () => {
    expect(built.info).toEqual({ protocol_version: "pincer.v1", display: xs.display });
    expect(built.size).toEqual([1024, 768]);
  });
});
