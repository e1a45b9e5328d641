import { createHash, timingSafeEqual } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import type * as grpc from "@grpc/grpc-js";

/** Shortest token accepted: 16 characters (`openssl rand -hex 32` gives 64). */
export const MIN_TOKEN_LENGTH = 16;

/** Checks a token's shape; returns it trimmed. `source` names where it came from for the message. */
export function validToken(token: string, source: string): string {
  const t = token.trim();
  if (t.length < MIN_TOKEN_LENGTH) {
    throw new Error(`${source}: the token is ${t.length ? `shorter than ${MIN_TOKEN_LENGTH} characters` : "empty"}; generate one with: openssl rand -hex 32`);
  }
  if (/\s/.test(t)) throw new Error(`${source}: the token contains whitespace`);
  return t;
}

/**
 * Reads a token file. Returns the token and, when the file is readable by group or others, a
 * warning to put in the log (a refusal would break secrets mounted 0644 by container runtimes).
 */
export function readTokenFile(path: string): { token: string; warning?: string } {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new Error(`--token-file ${path}: ${(err as Error).message}`);
  }
  const token = validToken(text, `--token-file ${path}`);
  const mode = statSync(path).mode & 0o777;
  const warning = mode & 0o077 ? `token file ${path} is readable by other users (mode ${mode.toString(8)}); chmod 600 it` : undefined;
  return { token, warning };
}

const digest = (s: string) => createHash("sha256").update(s).digest();

/**
 * A constant-time token check: both sides are hashed to 32 bytes first, so neither the content
 * nor the length of the expected token leaks through timing.
 */
export function tokenChecker(token: string): (presented: string) => boolean {
  const want = digest(token);
  return (presented) => timingSafeEqual(digest(presented), want);
}

/** The token of an `Authorization: Bearer <token>` value (gRPC metadata or an HTTP header); undefined for another form. */
export function bearerOf(value: string): string | undefined {
  return /^Bearer[ \t]+(\S+)\s*$/i.exec(value)?.[1];
}

/** The token of a call's one `authorization: Bearer <token>` value; undefined when there is none, or several, or another form. */
export function bearerToken(metadata: grpc.Metadata): string | undefined {
  const values = metadata.get("authorization");
  if (values.length !== 1) return undefined;
  return bearerOf(String(values[0]));
}

/** Why the call's metadata does not authenticate it to `holder` ("this daemon", "this server"), or undefined when it does. */
export function authProblem(metadata: grpc.Metadata, check: (presented: string) => boolean, holder: string): string | undefined {
  const values = metadata.get("authorization");
  if (values.length === 0) return `${holder} requires a token and the call carried none (send it as 'authorization: Bearer <token>' metadata)`;
  if (values.length > 1) return "the call carried several authorization values; send exactly one 'Bearer <token>'";
  const token = bearerToken(metadata);
  if (token === undefined) return "the authorization metadata is not one 'Bearer <token>' value";
  if (!check(token)) return "the token is wrong";
  return undefined;
}
