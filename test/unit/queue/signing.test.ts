import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { canonicalJson, readQueueKey, sign, signatureProblem } from "../../../packages/controller/src/queue/signing.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "pincer-signing-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const KEY = Buffer.from("0123456789abcdef0123456789abcdef0123456789abcdef");

describe("the queue's key", () => {
  test("from a file of mode 600, the file PINCER_QUEUE_KEY_FILE names, or PINCER_QUEUE_KEY; trailing whitespace is not part of it", () => {
    const file = join(dir, "queue.key");
    writeFileSync(file, `${KEY}\n`, { mode: 0o600 });
    expect(readQueueKey(file, {})).toEqual(KEY);
    expect(readQueueKey(undefined, { PINCER_QUEUE_KEY_FILE: file })).toEqual(KEY);
    expect(readQueueKey(undefined, { PINCER_QUEUE_KEY: ` ${KEY} ` })).toEqual(KEY);
  });

  test("none, a short one, a missing file or one others may read is refused with what to do", () => {
    expect(() => readQueueKey(undefined, {})).toThrow(/no queue key: .*openssl rand -hex 32 > queue\.key && chmod 600 queue\.key.*--queue-key-file/);
    expect(() => readQueueKey(undefined, { PINCER_QUEUE_KEY: "short" })).toThrow(/shorter than 32 characters: make one with `openssl rand/);
    expect(() => readQueueKey(join(dir, "absent.key"), {})).toThrow(/cannot read the queue key .*absent\.key \(ENOENT\): make one/);
    for (const mode of [0o644, 0o640, 0o606]) {
      const file = join(dir, `open-${mode.toString(8)}.key`);
      writeFileSync(file, `${KEY}`);
      chmodSync(file, mode);
      expect(() => readQueueKey(file, {})).toThrow(new RegExp(`other users \\(mode ${mode.toString(8)}\\): run \`chmod 600 .*open-`));
    }
    expect(() => readQueueKey(dir, {})).toThrow(/is not a file/);
  });
});

describe("signatures", () => {
  const job = { runId: "r1", taskKey: "t/a", settings: { agent: { kind: "scripted" }, maxSteps: 5 }, issuedAt: 1 };

  test("canonical JSON sorts keys at every level and leaves out undefined members", () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { f: 2, e: undefined }], c: null } })).toBe('{"a":{"c":null,"d":[1,{"f":2}]},"b":1}');
  });

  test("a signed job holds whatever the order of its keys after a trip through JSON", () => {
    const signed = sign(KEY, "job", job);
    const reordered = JSON.parse(
      JSON.stringify({ sig: signed.sig, settings: { maxSteps: 5, agent: { kind: "scripted" } }, issuedAt: 1, taskKey: "t/a", runId: "r1" }),
    );
    expect(signatureProblem(KEY, "job", reordered)).toBeUndefined();
  });

  test("a changed field, another key, another kind, no signature: each is refused", () => {
    const signed = sign(KEY, "job", job);
    expect(signatureProblem(KEY, "job", { ...signed, runId: "r2" })).toMatch(/does not match the queue key/);
    expect(signatureProblem(KEY, "job", { ...signed, taskKey: "t/b" })).toMatch(/does not match/);
    expect(signatureProblem(KEY, "job", { ...signed, settings: { ...job.settings, agent: { kind: "openai", baseUrl: "http://x" } } })).toMatch(
      /does not match/,
    );
    expect(signatureProblem(Buffer.from("another key, another key, another key"), "job", signed)).toMatch(/does not match/);
    expect(signatureProblem(KEY, "result", signed)).toMatch(/does not match/);
    expect(signatureProblem(KEY, "job", job)).toBe("the job is not signed");
    expect(signatureProblem(KEY, "job", { ...job, sig: "zz" })).toMatch(/malformed/);
    expect(signatureProblem(KEY, "job", "a string")).toMatch(/not a signed job/);
  });
});
