import type { Readable, Writable } from "node:stream";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, JSONRPCMessageSchema, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** Bytes one JSON-RPC line may hold before it is refused (its bytes dropped up to its newline). */
export const MCP_MAX_LINE_BYTES = 4 * 1024 * 1024;

/** Options of {@link LineTransport}. */
export interface LineTransportOptions {
  /** @default process.stdin */
  input?: Readable;
  /** @default process.stdout */
  output?: Writable;
  /** @default {@link MCP_MAX_LINE_BYTES} */
  maxLineBytes?: number;
  /** Told of each line refused (too long, not JSON, not JSON-RPC), for a log on stderr. */
  onRefused?: (why: string) => void;
}

/** The `id` of a JSON-RPC request, when `value` carries one a reply can name. */
function idOf(value: unknown): string | number | null {
  if (typeof value !== "object" || value === null) return null;
  const id = (value as { id?: unknown }).id;
  return typeof id === "string" || typeof id === "number" ? id : null;
}

/**
 * MCP over newline-delimited JSON-RPC on a pair of streams (stdio for `pincer mcp`), as the SDK's
 * `StdioServerTransport` is, but a bad line never ends the session: a line over `maxLineBytes` is
 * dropped as it arrives (never held whole) and answered with an Invalid Request error, a line that
 * is not JSON with a Parse error (-32700), JSON that is not a JSON-RPC message with Invalid Request
 * (-32600), each with the request's id where one can be read and `null` otherwise, as JSON-RPC 2.0
 * asks. The SDK's transport closes on an oversized line (the server then exits 0 without a word) and
 * answers malformed JSON with nothing.
 */
export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private readonly input: Readable;
  private readonly output: Writable;
  private readonly maxLineBytes: number;
  private chunks: Buffer[] = [];
  private held = 0;
  /** True while the rest of an oversized line is being dropped. */
  private dropping = false;
  private closed = false;

  constructor(private readonly opts: LineTransportOptions = {}) {
    this.input = opts.input ?? process.stdin;
    this.output = opts.output ?? process.stdout;
    this.maxLineBytes = opts.maxLineBytes ?? MCP_MAX_LINE_BYTES;
  }

  private readonly onData = (chunk: Buffer): void => {
    let rest = chunk;
    while (rest.length > 0) {
      const nl = rest.indexOf(10);
      const piece = nl === -1 ? rest : rest.subarray(0, nl);
      if (!this.dropping) {
        if (this.held + piece.length > this.maxLineBytes) {
          this.chunks = [];
          this.held = 0;
          this.dropping = true;
        } else {
          this.chunks.push(piece);
          this.held += piece.length;
        }
      }
      if (nl === -1) return;
      if (this.dropping) this.refuse(null, ErrorCode.InvalidRequest, `message over ${this.maxLineBytes} bytes, dropped: send smaller messages`);
      else this.line(Buffer.concat(this.chunks).toString("utf8").replace(/\r$/, ""));
      this.chunks = [];
      this.held = 0;
      this.dropping = false;
      rest = rest.subarray(nl + 1);
    }
  };

  private readonly onEnd = (): void => void this.close();
  private readonly onInputError = (err: Error): void => this.onerror?.(err);

  private line(text: string): void {
    if (text.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      this.refuse(null, ErrorCode.ParseError, `Parse error: ${(err as Error).message}`);
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) {
      this.refuse(idOf(value), ErrorCode.InvalidRequest, "Invalid Request: not a JSON-RPC 2.0 message (jsonrpc, method or result/error, id)");
      return;
    }
    this.onmessage?.(parsed.data);
  }

  private refuse(id: string | number | null, code: number, message: string): void {
    this.opts.onRefused?.(message);
    this.write(`${JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } })}\n`).catch((err: unknown) => this.onerror?.(err as Error));
  }

  private write(text: string): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.output.write(text, (err) => (err ? reject(err) : undefined))) resolve();
      else this.output.once("drain", resolve);
    });
  }

  async start(): Promise<void> {
    this.input.on("data", this.onData);
    this.input.on("end", this.onEnd);
    this.input.on("error", this.onInputError);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.write(`${JSON.stringify(message)}\n`);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off("data", this.onData);
    this.input.off("end", this.onEnd);
    this.input.off("error", this.onInputError);
    if (this.input.listenerCount("data") === 0) this.input.pause();
    this.chunks = [];
    this.onclose?.();
  }
}
