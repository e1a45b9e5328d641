import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, expect, test } from "vitest";
import { loadProtocol } from "@pincer/shared";
import { spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";
import { startXvfb, type XServer } from "../fixtures/xvfb.js";

// Every method of every service, sent random and malformed messages: random bytes, valid
// encodings cut short or with bytes flipped, and well-formed messages whose fields hold hostile
// values (huge and negative numbers, empty and long strings, NUL bytes, paths out of the root).
// The daemon may refuse them with any status but INTERNAL or UNKNOWN, and must not exit.
// PINCER_FUZZ_SEED=<n> replays a run; every failure names its seed.

const SEED = Number(process.env.PINCER_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
/** Calls per method; about 40 methods. */
const PER_METHOD = Number(process.env.PINCER_FUZZ_CALLS ?? 100);
/** Calls in flight at once. */
const PARALLEL = 8;

let xs: XServer;
let daemon: RunningDaemon;
let client: grpc.Client;
let root: string;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "pincer-fuzz-"));
  mkdirSync(join(root, "dir"));
  writeFileSync(join(root, "file.txt"), "fuzz");
  xs = await startXvfb({ width: 640, height: 480 });
  // A file root keeps the Files service inside a scratch directory whatever paths come.
  daemon = await spawnDaemon({ display: xs.display, args: ["--file-root", root, "--max-processes", "16"] });
  await daemon.env.waitUntilReady({ timeoutMs: 20_000 });
  client = new grpc.Client(daemon.address, grpc.credentials.createInsecure());
});

afterAll(async () => {
  client?.close();
  await daemon?.close();
  await xs?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

/** mulberry32: a small seeded PRNG. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

interface FieldDescriptor {
  name: string;
  label: string;
  type: string;
  typeName: string;
  oneofIndex?: number;
}
interface Descriptor {
  field: FieldDescriptor[];
  nestedType?: Array<Descriptor & { name: string; options?: { mapEntry?: boolean } }>;
}

const camel = (s: string) => s.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/** Generates hostile but well-typed values for the fields of a message. */
class Values {
  constructor(
    private readonly rand: () => number,
    private readonly definition: Record<string, { type?: Descriptor & { value?: Array<{ name: string }> } }>,
    private readonly root: string,
  ) {}

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.rand() * items.length)]!;
  }

  string(): string {
    return this.pick([
      "",
      "a",
      "\0",
      "x".repeat(5000),
      "../../etc/passwd",
      "/proc/self/mem",
      "/",
      join(this.root, "file.txt"),
      join(this.root, "dir"),
      join(this.root, "new", "..", "..", "x"),
      "relative/path",
      "ü∂ƒ😀",
      "ctrl+alt+Delete",
      "SIGKILL",
      ":0",
    ]);
  }

  number(type: string): number {
    const unsigned = type.includes("UINT") || type.includes("FIXED");
    const n = this.pick([0, 1, -1, 7, 255, 65_535, 2 ** 31 - 1, -(2 ** 31), 2 ** 32 - 1, 1e9, Number.MAX_SAFE_INTEGER, 0.5, 3]);
    if (type === "TYPE_DOUBLE" || type === "TYPE_FLOAT") return this.pick([0, -1, 1e308, Number.NaN, Number.POSITIVE_INFINITY, 0.5, 1e-9]);
    const whole = Math.trunc(n);
    if (unsigned) return Math.abs(whole) % 2 ** 32;
    if (type.endsWith("32")) return whole | 0;
    return whole;
  }

  message(typeName: string, depth: number): Record<string, unknown> {
    const type = this.definition[typeName.replace(/^\./, "")]?.type;
    return type ? this.fields(type, depth) : {};
  }

  fields(type: Descriptor, depth: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const f of type.field) {
      if (this.rand() < 0.3) continue;
      const mapEntry = type.nestedType?.find((n) => f.typeName.endsWith(`.${n.name}`) && n.options?.mapEntry);
      if (mapEntry) {
        out[camel(f.name)] = this.rand() < 0.5 ? {} : { [this.string() || "K"]: this.string(), PATH: this.string() };
        continue;
      }
      const one = () => this.value(f, depth);
      out[camel(f.name)] = f.label === "LABEL_REPEATED" ? Array.from({ length: Math.floor(this.rand() * 4) }, one) : one();
    }
    return out;
  }

  value(f: FieldDescriptor, depth: number): unknown {
    switch (f.type) {
      case "TYPE_STRING":
        return this.string();
      case "TYPE_BYTES":
        return Buffer.from(this.pick(["", "x", "\0\0", "y".repeat(70_000)]));
      case "TYPE_BOOL":
        return this.rand() < 0.5;
      case "TYPE_ENUM": {
        const values = this.definition[f.typeName.replace(/^\./, "")]?.type?.value ?? [];
        return this.rand() < 0.8 && values.length > 0 ? this.pick(values).name : Math.floor(this.rand() * 100);
      }
      case "TYPE_MESSAGE":
        return depth > 2 ? {} : this.message(f.typeName, depth + 1);
      default:
        return this.number(f.type);
    }
  }
}

/** Commands the fuzzer may start: harmless whatever else the message holds. */
const HARMLESS = [["true"], ["echo", "fuzz"], ["sleep", "0.1"], ["cat"]];

interface Target {
  path: string;
  kind: "unary" | "serverStream" | "clientStream";
  service: string;
  serialize: (value: unknown) => Buffer;
  request: Descriptor;
}

function targets(): Target[] {
  const { definition } = loadProtocol();
  const out: Target[] = [];
  for (const [name, service] of Object.entries(definition)) {
    if (!name.startsWith("pincer.v1.") || "format" in service) continue;
    for (const m of Object.values(service as unknown as Record<string, Record<string, unknown>>)) {
      const kind = m.requestStream ? "clientStream" : m.responseStream ? "serverStream" : "unary";
      const requestType = (m.requestType as { type: Descriptor }).type;
      out.push({
        path: m.path as string,
        kind,
        service: name.slice("pincer.v1.".length),
        serialize: m.requestSerialize as Target["serialize"],
        request: requestType,
      });
    }
  }
  return out;
}

/** One fuzzed request body (or, for client streams, a few). */
function bodies(t: Target, values: Values, rand: () => number): Buffer[] {
  const valid = () => {
    const msg = values.fields(t.request, 0);
    if (t.service === "Process") {
      msg.argv = values.pick(HARMLESS);
      msg.shell = "";
      msg.timeoutMs = 2_000;
    }
    try {
      return t.serialize(msg);
    } catch {
      return Buffer.alloc(0); // a value the encoder itself refuses: send an empty message
    }
  };
  const mode = rand();
  const count = t.kind === "clientStream" ? 1 + Math.floor(rand() * 3) : 1;
  return Array.from({ length: count }, () => {
    // Process calls carry only harmless commands: random bytes there could decode into anything.
    if (mode < 0.25 && t.service !== "Process") return Buffer.from(Array.from({ length: Math.floor(rand() * 64) }, () => Math.floor(rand() * 256)));
    const b = valid();
    if (mode < 0.5 && t.service !== "Process" && b.length > 0) {
      const cut = Buffer.from(b.subarray(0, Math.floor(rand() * b.length)));
      if (cut.length > 0 && rand() < 0.5) {
        const at = Math.floor(rand() * cut.length);
        cut[at] = cut[at]! ^ (1 << Math.floor(rand() * 8));
      }
      return cut;
    }
    return b;
  });
}

/** Sends one fuzzed call; resolves with its status code. */
function call(t: Target, messages: Buffer[]): Promise<grpc.status> {
  const deadline = Date.now() + 5_000;
  const id = (b: Buffer) => b;
  return new Promise((resolve) => {
    const done = (err: grpc.ServiceError | null) => resolve(err ? err.code : grpc.status.OK);
    if (t.kind === "unary") {
      client.makeUnaryRequest(t.path, id, id, messages[0]!, new grpc.Metadata(), { deadline }, done);
    } else if (t.kind === "clientStream") {
      const c = client.makeClientStreamRequest(t.path, id, id, new grpc.Metadata(), { deadline }, done);
      for (const m of messages) c.write(m);
      c.end();
    } else {
      const c = client.makeServerStreamRequest(t.path, id, id, messages[0]!, new grpc.Metadata(), { deadline });
      c.on("data", () => undefined);
      c.on("error", (err: grpc.ServiceError) => resolve(err.code));
      c.on("end", () => resolve(grpc.status.OK));
    }
  });
}

test(`every method survives random and malformed messages (seed ${SEED})`, async () => {
  const rand = prng(SEED);
  const values = new Values(rand, loadProtocol().definition as never, root);
  const all = targets();
  expect(all.length).toBeGreaterThan(30);
  const jobs = all.flatMap((t) => Array.from({ length: PER_METHOD }, () => ({ t, messages: bodies(t, values, rand) })));
  // Shuffled, so one method's slow calls do not run back to back.
  for (let i = jobs.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [jobs[i], jobs[j]] = [jobs[j]!, jobs[i]!];
  }
  const counts = new Map<string, Map<string, number>>();
  const bad: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const { t, messages } = jobs[next++]!;
      const code = await call(t, messages);
      const name = grpc.status[code]!;
      const perMethod = counts.get(t.path) ?? new Map<string, number>();
      perMethod.set(name, (perMethod.get(name) ?? 0) + 1);
      counts.set(t.path, perMethod);
      if (code === grpc.status.INTERNAL || code === grpc.status.UNKNOWN) {
        bad.push(`${t.path} ${name} for ${messages.map((m) => m.toString("hex").slice(0, 200)).join(" | ")}`);
      }
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  const table = [...counts].map(([path, c]) => `${path.padEnd(40)} ${[...c].map(([k, v]) => `${k} ${v}`).join(", ")}`);
  console.log(`fuzz seed ${SEED}: ${jobs.length} calls over ${all.length} methods\n${table.join("\n")}`);
  expect(daemon.process.exitCode, `the daemon exited (seed ${SEED})`).toBeNull();
  expect(bad, `seed ${SEED}: replay with PINCER_FUZZ_SEED=${SEED}`).toEqual([]);
  // Still serving.
  expect((await daemon.env.system.info()).hostname).toBeTruthy();
}, 180_000);
