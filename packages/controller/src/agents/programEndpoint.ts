import { randomBytes, randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { bearerOf, PINCER_VERSION, tokenChecker } from "@pincer/shared";
import type { AgentTool } from "./types.js";

/** Options of {@link startAttemptEndpoint}. */
export interface AttemptEndpointOptions {
  /** The attempt's tools (`env__action`, as a model agent gets them). */
  tools: readonly AgentTool[];
  /** Runs a call of one of `tools`; its result is the call's answer. */
  onCall(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult>;
  /** The server's instructions to the client. */
  instructions?: string;
}

/** An attempt's MCP endpoint (see {@link startAttemptEndpoint}). */
export interface AttemptEndpoint {
  /** http://127.0.0.1:<port>/mcp */
  readonly url: string;
  /** The bearer token a client must send (`Authorization: Bearer <token>`). */
  readonly token: string;
  /** Stops serving: sessions end, the port closes. */
  close(): Promise<void>;
}

/** The path the endpoint serves MCP on. */
export const ATTEMPT_MCP_PATH = "/mcp";

/** A request body larger than this is refused (a tool call's arguments are small; screenshots only flow back). */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

function refuse(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new Error(`the request body is over ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  return JSON.parse(Buffer.concat(chunks).toString("utf8"));
}

/** One MCP session's server: the attempt's tools, each call handed to `onCall`. */
function sessionServer(opts: AttemptEndpointOptions): Server {
  const server = new Server(
    { name: "pincer-attempt", title: "Pincer attempt", version: PINCER_VERSION },
    { capabilities: { tools: {} }, ...(opts.instructions ? { instructions: opts.instructions } : {}) },
  );
  const names = new Set(opts.tools.map((t) => t.name));
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: opts.tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.parameters as { type: "object" } })),
  }));
  server.setRequestHandler(CallToolRequestSchema, (req, extra) => {
    if (!names.has(req.params.name)) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${req.params.name}; tools: ${[...names].join(", ")}`);
    return opts.onCall(req.params.name, req.params.arguments ?? {}, extra.signal);
  });
  return server;
}

/** The Host header names this loopback endpoint (a page elsewhere cannot reach it by DNS rebinding). */
function loopbackHost(host: string | undefined, port: number): boolean {
  return host === `127.0.0.1:${port}` || host === `localhost:${port}`;
}

/**
 * An attempt's MCP endpoint over streamable HTTP on loopback, guarded by a token of its own: the
 * attempt's tools, every call handed to `onCall` (the agent program's calls become the attempt's
 * steps there). Each client session gets its own server over the same tools, so a program may
 * connect more than once (a CLI and its subagents). Requests without the token are refused (401),
 * as are Host headers other than the loopback address (DNS rebinding).
 */
export async function startAttemptEndpoint(opts: AttemptEndpointOptions): Promise<AttemptEndpoint> {
  const token = randomBytes(24).toString("base64url");
  const check = tokenChecker(token);
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  let port = 0;
  const http = createServer((req, res) => {
    void handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) refuse(res, 400, (err as Error).message);
      else res.end();
    });
  });
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!loopbackHost(req.headers.host, port)) return refuse(res, 403, `this endpoint answers at 127.0.0.1:${port} only`);
    if (new URL(req.url ?? "/", "http://x").pathname !== ATTEMPT_MCP_PATH) return refuse(res, 404, `MCP is served at ${ATTEMPT_MCP_PATH}`);
    const presented = bearerOf(req.headers.authorization ?? "");
    if (presented === undefined || !check(presented)) {
      return refuse(res, 401, "send the attempt's token as 'Authorization: Bearer <token>' (PINCER_MCP_TOKEN)", { "www-authenticate": "Bearer" });
    }
    const id = req.headers["mcp-session-id"];
    const known = typeof id === "string" ? sessions.get(id) : undefined;
    if (known) return known.handleRequest(req, res);
    if (req.method !== "POST") return refuse(res, 400, "no MCP session: initialize one with a POST first");
    const body = await readBody(req);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => void sessions.set(sid, transport),
      onsessionclosed: (sid) => void sessions.delete(sid),
    });
    await sessionServer(opts).connect(transport);
    await transport.handleRequest(req, res, body);
  }
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(0, "127.0.0.1", () => resolve());
  });
  port = (http.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}${ATTEMPT_MCP_PATH}`,
    token,
    async close() {
      await Promise.all([...sessions.values()].map((t) => t.close().catch(() => undefined)));
      sessions.clear();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
