/**
 * `npm run proto:check` (part of `npm test`): the wire contract in proto/ against buf's standard
 * lint and against the released contract (proto/released/pincer-v1.binpb, a buf image):
 * 1. `buf lint` (proto/buf.yaml: STANDARD, except SERVICE_SUFFIX, which would rename v1's paths);
 * 2. `buf breaking` in the WIRE category (binary compatibility), except the rules that flag a
 *    method whose request or response message was renamed;
 * 3. for exactly those methods, the new message has the released one's fields: same numbers,
 *    types, labels and message types (names may differ), so the binary wire is unchanged.
 * `--release` writes the current contract as the released image (do it when a version ships).
 */
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dirname, "..");
const buf = join(root, "node_modules/.bin/buf");
const released = join(root, "proto/released/pincer-v1.binpb");
const run = (args: string[]) => execFileSync(buf, args, { cwd: root, stdio: ["ignore", "pipe", "pipe"], encoding: "utf8" });

interface Field {
  name: string;
  number: number;
  label: number;
  type: number;
  typeName?: string;
  oneofIndex?: number;
}
interface Message {
  name: string;
  field?: Field[];
  nestedType?: Message[];
}
interface FileSet {
  file: Array<{
    package: string;
    messageType?: Message[];
    service?: Array<{ name: string; method: Array<{ name: string; inputType: string; outputType: string }> }>;
  }>;
}

const descriptor = createRequire(import.meta.url)("protobufjs/ext/descriptor") as { FileDescriptorSet: { decode(b: Buffer): FileSet } };

/** Messages by full name (".pincer.v1.Point"), nested ones included; methods by "Service/Method". */
function index(set: FileSet) {
  const messages = new Map<string, Message>();
  const methods = new Map<string, { inputType: string; outputType: string }>();
  const add = (prefix: string, m: Message) => {
    messages.set(`${prefix}.${m.name}`, m);
    for (const n of m.nestedType ?? []) add(`${prefix}.${m.name}`, n);
  };
  for (const f of set.file) {
    for (const m of f.messageType ?? []) add(`.${f.package}`, m);
    for (const s of f.service ?? []) for (const m of s.method) methods.set(`${s.name}/${m.name}`, m);
  }
  return { messages, methods };
}

/**
 * The fields as the binary wire sees them: number, label, type, oneof and (for messages and enums)
 * the type's full name, with the message's own nested types (map entries) named relative to it and
 * compared by their own shape.
 */
function wireShape(fullName: string, m: Message): string[] {
  const nested = new Map((m.nestedType ?? []).map((n) => [`${fullName}.${n.name}`, n]));
  return (m.field ?? [])
    .map((f) => {
      const inner = f.typeName ? nested.get(f.typeName) : undefined;
      const type = inner ? `{${wireShape(f.typeName!, inner).join(",")}}` : (f.typeName ?? "");
      const oneof = Object.hasOwn(f, "oneofIndex") ? f.oneofIndex : "-";
      return `${f.number}:${f.label}:${f.type}:${type}:${oneof}`;
    })
    .sort();
}

function compareRenamed(before: FileSet, after: FileSet): string[] {
  const old = index(before);
  const now = index(after);
  const problems: string[] = [];
  for (const [path, m] of old.methods) {
    const current = now.methods.get(path);
    if (!current) continue; // buf breaking reports a removed method
    for (const side of ["inputType", "outputType"] as const) {
      if (m[side] === current[side]) continue;
      const a = old.messages.get(m[side]);
      const b = now.messages.get(current[side]);
      if (!a || !b) {
        problems.push(`${path}: ${side} ${m[side]} → ${current[side]}: message not found`);
        continue;
      }
      const [sa, sb] = [wireShape(m[side], a), wireShape(current[side], b)];
      // Fields may be added (old readers skip them), as buf breaking allows for a message that kept its name.
      const missing = sa.filter((f) => !sb.includes(f));
      if (missing.length > 0) {
        problems.push(`${path}: ${current[side]} does not have the fields of ${m[side]} (number:label:type:message:oneof): ${missing} missing from ${sb}`);
      }
    }
  }
  return problems;
}

if (process.argv.includes("--release")) {
  run(["build", "proto", "-o", released]);
  console.log(`wrote ${released}`);
  process.exit(0);
}

const failures: string[] = [];
for (const [what, args] of [
  ["buf lint", ["lint", "proto"]],
  ["buf breaking (wire)", ["breaking", "proto", "--against", released]],
] as const) {
  try {
    run([...args]);
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    failures.push(`${what}:\n${e.stdout ?? ""}${e.stderr ?? ""}`);
  }
}
const dir = mkdtempSync(join(tmpdir(), "pincer-proto-"));
try {
  run(["build", "proto", "-o", join(dir, "now.binpb")]);
  const problems = compareRenamed(
    descriptor.FileDescriptorSet.decode(readFileSync(released)),
    descriptor.FileDescriptorSet.decode(readFileSync(join(dir, "now.binpb"))),
  );
  if (problems.length) failures.push(`renamed request/response messages that change the wire:\n${problems.join("\n")}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
if (failures.length) {
  console.error(failures.join("\n\n"));
  console.error("\nfix proto/ so the contract stays compatible with the released one, or bump the package (pincer.v2) for a breaking change");
  process.exit(1);
}
console.log("proto contract: buf lint clean; wire-compatible with the released contract");
