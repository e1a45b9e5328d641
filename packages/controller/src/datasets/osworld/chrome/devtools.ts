import { FailedPreconditionError, NotFoundError } from "@pincer/shared";
import type { OsworldContext } from "../context.js";
import { ServerFrames, textFrame, upgradeRequest } from "./websocket.js";

/**
 * Chrome's DevTools, reached from the machine itself: OSWorld's tasks start the browser with
 * `--remote-debugging-port=1337` and forward port 9222 to it with socat; OSWorld's host then talks
 * to `<vm>:9222` over CDP (Playwright). Pincer makes each exchange on the machine: the HTTP
 * endpoints with curl, and a WebSocket conversation through bash's `/dev/tcp`, whose bytes the
 * controller writes and reads (see websocket.ts).
 */

/** The port OSWorld's tasks expose Chrome's DevTools on (OSWorld's `chromium_port`). */
export const DEVTOOLS_PORT = 9222;

/** The machine's DevTools port for this attempt. */
export const devtoolsPort = (ctx: OsworldContext) => ctx.devtoolsPort ?? DEVTOOLS_PORT;
/** Where the machine's Chrome answers DevTools' HTTP calls. */
export const devtoolsUrl = (ctx: OsworldContext) => `http://127.0.0.1:${devtoolsPort(ctx)}`;

/** One DevTools target, as `/json/list` describes it. */
export interface Target {
  id: string;
  type: string;
  url: string;
  title: string;
}

/** A DevTools HTTP call that curl made but that failed (nothing listening yet, an HTTP error). */
export class DevtoolsCallError extends Error {}

/**
 * One DevTools HTTP call, made on the machine with curl; its JSON answer. Only a missing curl is
 * blamed on the machine's image; a machine that fails stays that machine's failure.
 */
export async function devtoolsHttp(ctx: OsworldContext, method: "GET" | "PUT", path: string): Promise<unknown> {
  let r: { exitCode: number | null; stdout: string; stderr: string };
  try {
    r = await ctx.env.process.run(["curl", "-sS", "-f", "-m", "10", "-X", method, `${devtoolsUrl(ctx)}${path}`], {
      signal: ctx.signal,
      commandTimeoutMs: 15_000,
    });
  } catch (err) {
    if (!(err instanceof NotFoundError) || ctx.signal.aborted) throw err;
    throw new FailedPreconditionError(`Pincer talks to Chrome's DevTools with curl on the machine: ${err.message}; install curl there`, { cause: err });
  }
  if (r.exitCode !== 0) throw new DevtoolsCallError(`${method} ${path}: ${r.stderr.trim() || `curl exit ${r.exitCode}`}`);
  return r.stdout.trim() ? JSON.parse(r.stdout) : null;
}

/**
 * The browser's tabs (`page` targets), oldest first as Playwright lists a context's pages
 * (`/json/list` puts the most recently active first; its reverse stands for the order of creation).
 */
export async function listPages(ctx: OsworldContext): Promise<Target[]> {
  return ((await devtoolsHttp(ctx, "GET", "/json/list")) as Target[]).filter((t) => t.type === "page").reverse();
}

/** A DevTools command. */
export interface CdpCall {
  method: string;
  params?: Record<string, unknown>;
}

/** A message from DevTools: a command's answer (`id`) or an event (`method`). */
export interface CdpMessage {
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { message: string; code?: number };
}

/** What {@link cdpExchange} gives back. */
export interface CdpOutcome {
  /** Each command's `result`, in order (undefined for one not answered before the time ran out). */
  results: Array<Record<string, unknown> | undefined>;
  events: CdpMessage[];
  /** The time ran out before every answer came (and `until` held). */
  timedOut: boolean;
}

// Connect, send the upgrade request ($2 bytes of stdin), echo the response's header, then pass the
// frames and stream everything back; the socket stays open after stdin ends (no half-close).
const BRIDGE = [
  'exec 3<>"/dev/tcp/127.0.0.1/$1" 4<&0 || exit 97',
  'dd bs="$2" count=1 iflag=fullblock status=none <&4 >&3',
  "while IFS= read -r l <&3; do printf '%s\\n' \"$l\"; [ \"$l\" = $'\\r' ] && break; done",
  "cat <&4 >&3 & cat <&3",
].join("\n");

/** A command's error answer. */
export class CdpError extends Error {}

/**
 * One conversation with a DevTools WebSocket (`/devtools/page/<id>` or the browser's): sends every
 * command at once (ids 1…n), and reads until each is answered and `until(events, results)` holds, or
 * `timeoutMs` passes. A command answered with an error throws {@link CdpError}.
 */
export async function cdpExchange(
  ctx: OsworldContext,
  wsPath: string,
  calls: readonly CdpCall[],
  opts: { timeoutMs: number; until?: (events: readonly CdpMessage[], results: CdpOutcome["results"]) => boolean },
): Promise<CdpOutcome> {
  const request = upgradeRequest(wsPath, devtoolsPort(ctx));
  const frames = calls.map((c, i) => textFrame(JSON.stringify({ id: i + 1, method: c.method, params: c.params ?? {} })));
  const handle = ctx.env.process.start(["bash", "-c", BRIDGE, "bash", String(devtoolsPort(ctx)), String(request.length)], {
    signal: ctx.signal,
    stdin: Buffer.concat([request, ...frames]),
    commandTimeoutMs: opts.timeoutMs + 5_000,
  });
  const reader = new ServerFrames();
  const results: CdpOutcome["results"] = calls.map(() => undefined);
  const events: CdpMessage[] = [];
  let answered = 0;
  let stderr = "";
  let exit: number | null | undefined;
  const done = () => answered === calls.length && (opts.until?.(events, results) ?? true);
  let late = false;
  const timer = setTimeout(() => {
    late = true;
    handle.kill();
  }, opts.timeoutMs);
  let finished = false;
  try {
    // Read to the end even after kill(): the stream ends then, and the call lets go of the signal.
    for await (const ev of handle) {
      if (finished) continue;
      if (ev.type === "stderr") stderr += ev.data.toString("utf8");
      if (ev.type === "exited") exit = ev.exitCode;
      if (ev.type !== "stdout") continue;
      for (const text of reader.push(ev.data)) {
        const msg = JSON.parse(text) as CdpMessage;
        if (msg.id === undefined) {
          events.push(msg);
          continue;
        }
        if (msg.error) throw new CdpError(`${calls[msg.id - 1]?.method ?? `command ${msg.id}`}: ${msg.error.message}`);
        if (msg.id >= 1 && msg.id <= calls.length && results[msg.id - 1] === undefined) {
          results[msg.id - 1] = msg.result ?? {};
          answered++;
        }
      }
      if (done() || reader.closed) {
        finished = true;
        handle.kill();
      }
    }
  } finally {
    clearTimeout(timer);
    handle.kill();
  }
  if (done()) return { results, events, timedOut: false };
  if (exit === 97 || /connect|refused/i.test(stderr)) {
    throw new FailedPreconditionError(`Chrome's DevTools at ${devtoolsUrl(ctx)} cannot be reached from the machine (${stderr.trim().slice(-200)})`);
  }
  if (reader.closed || !late) throw new Error(`DevTools closed the connection to ${wsPath} before answering (the browser or its tab went away)`);
  return { results, events, timedOut: true };
}

/** `Runtime.evaluate` of an expression in a page (promises awaited); its JSON value. */
export async function evaluateInPage(ctx: OsworldContext, targetId: string, expression: string, timeoutMs = 30_000): Promise<unknown> {
  const out = await cdpExchange(
    ctx,
    `/devtools/page/${targetId}`,
    [{ method: "Runtime.evaluate", params: { expression, returnByValue: true, awaitPromise: true } }],
    {
      timeoutMs,
    },
  );
  const r = out.results[0];
  if (!r) throw new Error(`evaluating in page ${targetId} took more than ${timeoutMs} ms`);
  const details = r.exceptionDetails as { exception?: { description?: string }; text?: string } | undefined;
  if (details) throw new CdpError(`the page threw: ${details.exception?.description ?? details.text ?? "an exception"}`);
  return (r.result as { value?: unknown } | undefined)?.value;
}
