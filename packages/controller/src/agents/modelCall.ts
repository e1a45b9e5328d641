import { sleep } from "@pincer/shared";
import type { TokenUsage } from "./types.js";

/** Per-request deadline of a model call, when the agent's options set none. @default 120_000 */
export const DEFAULT_MODEL_TIMEOUT_MS = 120_000;
/** Tries after the first for a failed model request, when the agent's options set none. @default 2 */
export const DEFAULT_MODEL_RETRIES = 2;
/** Longest wait between two tries, a server's `retry-after` included. */
const MAX_BACKOFF_MS = 30_000;

/** What the model requests of a turn came to: answered, failed tries, and tries after a failure. */
export interface RequestCounts {
  /** Requests the model answered with a usable reply. */
  requests: number;
  /** Tries that failed: an error status, no reply within the request timeout, a lost connection, an unusable reply. */
  failed: number;
  /** Tries made after a failed one. */
  retries: number;
}

/**
 * A model request that failed for good (its tries used up, a status that no retry mends, or the
 * attempt's own time ran out while it waited). `usage` holds the turn's requests and tries so far, so
 * that summary.json counts them.
 */
export class ModelRequestError extends Error {
  constructor(
    message: string,
    readonly usage: TokenUsage,
  ) {
    super(message);
    this.name = "ModelRequestError";
  }
}

/** How one model call is made. */
export interface ModelCallOptions {
  /** The endpoint, for messages (the SDK client's base URL). */
  url: string;
  /** Deadline of each try. */
  timeoutMs: number;
  /** Tries after the first. */
  retries: number;
  /** The attempt's signal: its time limit or the run's cancellation. Fires → no more tries. */
  signal: AbortSignal;
  /** Where tries are counted. */
  counts: RequestCounts;
  /** The usage so far, for the error that ends the call. */
  usage: () => TokenUsage;
}

/** The HTTP status of an SDK error (openai and @anthropic-ai/sdk both carry `status`). */
function statusOf(err: unknown): number | undefined {
  const status = (err as { status?: unknown } | null)?.status;
  return typeof status === "number" ? status : undefined;
}

/** The server's `retry-after` or `retry-after-ms`, in milliseconds. */
function retryAfterMs(err: unknown): number | undefined {
  const headers = (err as { headers?: unknown } | null)?.headers;
  const get = (name: string): string | null | undefined =>
    headers instanceof Headers ? headers.get(name) : (headers as Record<string, string> | undefined)?.[name];
  const ms = Number(get("retry-after-ms"));
  if (Number.isFinite(ms) && ms >= 0 && get("retry-after-ms") != null) return ms;
  const s = get("retry-after");
  if (s == null) return undefined;
  const seconds = Number(s);
  if (Number.isFinite(seconds)) return seconds * 1000;
  const at = Date.parse(s);
  return Number.isFinite(at) ? Math.max(0, at - Date.now()) : undefined;
}

/** Statuses a later try may get past: a timeout, a conflict, a rate limit, the server's own failures. */
const retryableStatus = (s: number) => s === 408 || s === 409 || s === 429 || s >= 500;

/** A short, single-line excerpt of a body or message. */
function excerpt(text: string, max = 160): string {
  const one = text.replace(/\s+/g, " ").trim();
  return one.length > max ? `${one.slice(0, max)}…` : one;
}

/** What went wrong with one try, in words, and whether another try may help. */
function describeFailure(err: unknown, timedOut: boolean, timeoutMs: number): { why: string; retry: boolean } {
  if (timedOut) return { why: `no reply within ${timeoutMs / 1000} s (--model-timeout)`, retry: true };
  const status = statusOf(err);
  const message = err instanceof Error ? err.message : String(err);
  if (status !== undefined) return { why: `HTTP ${status}: ${excerpt(message)}`, retry: retryableStatus(status) };
  if (err instanceof SyntaxError) return { why: `a reply that is not valid JSON (${excerpt(message)})`, retry: true };
  return { why: `no reply (${excerpt(message)})`, retry: true };
}

/** Ends the call: the message names the endpoint, what went wrong and the tries made. */
function fail(o: ModelCallOptions, tries: number, why: string, extra = ""): never {
  const made = `${tries} ${tries === 1 ? "try" : "tries"}`;
  throw new ModelRequestError(`the model at ${o.url} failed: ${why} (${made}${extra})`, o.usage());
}

/**
 * Makes one model request with Pincer's own retries (the SDK's are turned off, so that every try is
 * counted): each try has its own deadline, failed tries (408, 409, 429, 5xx, no reply, a lost
 * connection, a reply that is not JSON, a reply `problemOf` finds unusable) are tried again after an
 * exponential backoff with jitter, or the server's `retry-after`; any other status ends the call at
 * once. Nothing outlives `o.signal`: when it fires, the try in flight is aborted and the call ends
 * with a {@link ModelRequestError} saying so.
 */
export async function callModel<T>(o: ModelCallOptions, send: (signal: AbortSignal) => Promise<T>, problemOf: (reply: T) => string | undefined): Promise<T> {
  let tries = 0;
  for (;;) {
    if (o.signal.aborted) fail(o, tries, "the attempt's time ran out before the request was sent");
    tries += 1;
    if (tries > 1) o.counts.retries += 1;
    const deadline = AbortSignal.timeout(o.timeoutMs);
    let failure: { why: string; retry: boolean; wait?: number | undefined };
    try {
      const reply = await send(AbortSignal.any([o.signal, deadline]));
      const problem = problemOf(reply);
      if (problem === undefined) {
        o.counts.requests += 1;
        return reply;
      }
      failure = { why: `an unusable reply: ${problem}`, retry: true };
    } catch (err) {
      if (o.signal.aborted) {
        o.counts.failed += 1;
        fail(o, tries, "stopped waiting when the attempt's time ran out", `, ${o.timeoutMs / 1000} s per try`);
      }
      failure = { ...describeFailure(err, deadline.aborted, o.timeoutMs), wait: retryAfterMs(err) };
    }
    o.counts.failed += 1;
    if (!failure.retry) fail(o, tries, failure.why);
    if (tries > o.retries) fail(o, tries, failure.why, `; --model-retries ${o.retries}`);
    const backoff = Math.min(MAX_BACKOFF_MS, failure.wait ?? 500 * 2 ** (tries - 1) * (0.75 + Math.random() / 2));
    try {
      await sleep(backoff, o.signal);
    } catch {
      fail(o, tries, `${failure.why}; the attempt's time ran out before the next try`);
    }
  }
}

/** The usage fields of {@link TokenUsage} that count tries, from `counts`. */
export function triesUsage(counts: RequestCounts): Pick<TokenUsage, "requests" | "failedRequests" | "retries"> {
  return { requests: counts.requests, failedRequests: counts.failed, retries: counts.retries };
}

/**
 * Why `reply` is not `what` (an SDK returns a body that is not JSON as text, and JSON of another
 * shape as it is), or undefined when `looksRight` accepts it.
 */
export function replyShapeProblem(reply: unknown, what: string, looksRight: (value: Record<string, unknown>) => boolean): string | undefined {
  if (typeof reply === "string") return `not ${what} but text: ${JSON.stringify(excerpt(reply, 80))}`;
  if (reply === null || typeof reply !== "object") return `not ${what}: ${JSON.stringify(reply)}`;
  if (looksRight(reply as Record<string, unknown>)) return undefined;
  return `JSON that is not ${what}: ${excerpt(JSON.stringify(reply), 120)}`;
}
