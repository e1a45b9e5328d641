/**
 * Bounds on the request text that error messages repeat. A status message travels in a trailer,
 * and clients drop the whole connection (failing every call on it) when trailers pass their limit:
 * about 8 KiB in grpcio, a few hundred KiB in grpc-js. A path or key name of any length must
 * therefore never reach a message whole.
 */

/** Most bytes of one piece of request text (a path, a key name, a program) a message repeats. @default 256 */
export const MAX_ECHO_BYTES = 256;

/** Most bytes of a whole status message; the rest is cut (see {@link capText}). @default 1024 */
export const MAX_STATUS_MESSAGE_BYTES = 1024;

/**
 * `text` cut to at most `maxBytes` UTF-8 bytes (never inside a character), followed by
 * `… (N bytes)` naming its full size; the text itself when it fits.
 */
export function capText(text: string, maxBytes: number): string {
  // Fast path: no string of at most maxBytes/3 UTF-16 units can exceed maxBytes bytes of UTF-8.
  if (text.length * 3 <= maxBytes) return text;
  const size = Buffer.byteLength(text);
  if (size <= maxBytes) return text;
  let cut = Buffer.from(text).subarray(0, maxBytes).toString("utf8");
  // A character cut in two decodes as U+FFFD at the end: drop it.
  if (cut.endsWith("\ufffd") && !text.startsWith(cut)) cut = cut.slice(0, -1);
  return `${cut}… (${size} bytes)`;
}

/**
 * Request text as a message repeats it: whole up to {@link MAX_ECHO_BYTES}, else its start and its
 * size. Anything else is made a string first: an enum value the contract does not know arrives as
 * a number.
 */
export function echo(text: unknown): string {
  return capText(String(text), MAX_ECHO_BYTES);
}

/** {@link echo} in double quotes, with control characters escaped (JSON string syntax). */
export function quoted(text: unknown): string {
  return JSON.stringify(echo(text));
}
