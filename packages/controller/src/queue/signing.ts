import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { InvalidArgumentError, PermissionDeniedError } from "@pincer/shared";

/**
 * The queue's key: the coordinator signs every job with it and its workers sign every result, so
 * that whoever can only write to Redis can neither hand a worker a task nor give the coordinator a
 * result. Redis never sees the key; it travels to each host the way other secrets do (a file of
 * mode 600, or the environment). A signature is HMAC-SHA256 over a domain ("job" or "result") and
 * the canonical JSON (keys sorted at every level) of everything the receiver acts on.
 */

/** The environment variable that holds the key itself. */
export const QUEUE_KEY_ENV = "PINCER_QUEUE_KEY";
/** The environment variable that names the key's file (what `--queue-key-file` gives). */
export const QUEUE_KEY_FILE_ENV = "PINCER_QUEUE_KEY_FILE";
/** Shortest key accepted, in characters (`openssl rand -hex 32` writes 64). */
export const MIN_QUEUE_KEY_CHARS = 32;

const HOW_TO_MAKE =
  "make one with `openssl rand -hex 32 > queue.key && chmod 600 queue.key`, copy it to the coordinator's host and every worker host, " +
  `and give it with --queue-key-file queue.key (or ${QUEUE_KEY_FILE_ENV}=queue.key, or the key itself in ${QUEUE_KEY_ENV})`;

/**
 * The queue's key, from `file` (what `--queue-key-file` names), else the file
 * PINCER_QUEUE_KEY_FILE names, else PINCER_QUEUE_KEY. Throws, saying how to make one, when there is
 * none or it is shorter than {@link MIN_QUEUE_KEY_CHARS}; refuses a key file that other users may
 * read or write (as ssh refuses such a private key).
 */
export function readQueueKey(file?: string, env: NodeJS.ProcessEnv = process.env): Buffer {
  const path = file ?? env[QUEUE_KEY_FILE_ENV];
  let text: string;
  if (path) {
    let mode: number;
    try {
      const st = statSync(path);
      if (!st.isFile()) throw new InvalidArgumentError(`the queue key ${path} is not a file: ${HOW_TO_MAKE}`);
      mode = st.mode & 0o777;
      text = readFileSync(path, "utf8");
    } catch (err) {
      if (err instanceof InvalidArgumentError) throw err;
      throw new InvalidArgumentError(`cannot read the queue key ${path} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}): ${HOW_TO_MAKE}`);
    }
    if ((mode & 0o077) !== 0) {
      throw new PermissionDeniedError(
        `the queue key ${path} can be read or written by other users (mode ${mode.toString(8).padStart(3, "0")}): run \`chmod 600 ${path}\``,
      );
    }
  } else if (env[QUEUE_KEY_ENV]) {
    text = env[QUEUE_KEY_ENV]!;
  } else {
    throw new InvalidArgumentError(`no queue key: the coordinator and its workers sign what they put on the queue with a key Redis never sees; ${HOW_TO_MAKE}`);
  }
  const key = text.trim();
  if (key.length < MIN_QUEUE_KEY_CHARS) {
    throw new InvalidArgumentError(`the queue key${path ? ` in ${path}` : ""} is shorter than ${MIN_QUEUE_KEY_CHARS} characters: ${HOW_TO_MAKE}`);
  }
  return Buffer.from(key, "utf8");
}

/** Throws, saying how to make one, unless `key` is a queue key long enough (for library callers that give their own). */
export function checkQueueKey(key: Uint8Array | undefined): Uint8Array {
  if (!key || key.length < MIN_QUEUE_KEY_CHARS)
    throw new InvalidArgumentError(`the queue key is missing or shorter than ${MIN_QUEUE_KEY_CHARS} bytes: ${HOW_TO_MAKE}`);
  return key;
}

/** JSON with the keys of every object sorted, `undefined` members left out: the same bytes for the same value on every host. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? "null" : canonicalJson(v))).join(",")}]`;
  const members = Object.keys(value)
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
  return `{${members.join(",")}}`;
}

/** What a signature covers: a job, a worker's result in a run, or a worker's live page (where it is). */
export type SignedKind = "job" | "result" | "live";

function mac(key: Uint8Array, kind: SignedKind, payload: unknown): Buffer {
  return createHmac("sha256", key).update(`pincer-queue-${kind}-v1\n`).update(canonicalJson(payload)).digest();
}

/** `payload` with its signature in `sig` (hex). */
export function sign<T extends object>(key: Uint8Array, kind: SignedKind, payload: T): T & { sig: string } {
  const { sig: _, ...rest } = payload as T & { sig?: unknown };
  return { ...(rest as T), sig: mac(key, kind, rest).toString("hex") };
}

/**
 * Checks the signature in `data.sig` over the rest of `data`; returns why it fails, or undefined
 * when it holds. (What is signed for a result includes its run: `extra` joins the payload.)
 */
export function signatureProblem(key: Uint8Array, kind: SignedKind, data: unknown, extra: Record<string, unknown> = {}): string | undefined {
  if (data === null || typeof data !== "object" || Array.isArray(data)) return `not a signed ${kind}`;
  const { sig, ...rest } = data as Record<string, unknown>;
  if (typeof sig !== "string" || sig === "") return `the ${kind} is not signed`;
  if (!/^[0-9a-f]{64}$/.test(sig)) return `the ${kind}'s signature is malformed`;
  const want = mac(key, kind, { ...rest, ...extra });
  if (!timingSafeEqual(Buffer.from(sig, "hex"), want))
    return `the ${kind}'s signature does not match the queue key (signed with another key, or changed since)`;
  return undefined;
}

/** sha256 of `data` in hex: how a job names its bundle and a result its attempt's folder. */
export function sha256Hex(data: Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/**
 * The token of worker `worker`'s live page (`pincer worker --live`): derived from the queue's key,
 * so the coordinator's page reaches it without a secret ever passing through Redis.
 */
export function liveToken(key: Uint8Array, worker: string): string {
  return createHmac("sha256", key).update("pincer-queue-live-token-v1\n").update(worker).digest("base64url");
}
