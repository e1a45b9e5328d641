import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { LineTransport } from "./stdioTransport.js";

/** A request's id, when `m` is a request (a notification or a response has none to answer). */
function requestId(m: JSONRPCMessage): string | number | undefined {
  return "method" in m && "id" in m ? m.id : undefined;
}

/**
 * Relays MCP between stdio (a client that starts its servers as commands) and a streamable-HTTP
 * endpoint (an agent program's attempt endpoint), sending `token` as its bearer token, until either
 * side closes. A request the endpoint cannot take (it closed: the attempt ended) is answered with an
 * error at once, so the client never waits for a reply that cannot come.
 */
export async function bridgeToHttp(url: string, token: string | undefined): Promise<void> {
  const remote = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: token ? { authorization: `Bearer ${token}` } : {} },
  });
  const local = new LineTransport({ onRefused: (why) => process.stderr.write(`pincer mcp: a message was refused: ${why}\n`) });
  const closed = new Promise<void>((resolve) => {
    local.onclose = resolve;
    remote.onclose = resolve;
  });
  remote.onmessage = (m) => void local.send(m).catch(() => undefined);
  remote.onerror = (err) => process.stderr.write(`pincer mcp: ${url}: ${err.message}\n`);
  local.onmessage = (m) => {
    remote.send(m).catch((err: unknown) => {
      const id = requestId(m);
      const message = `the attempt's endpoint ${url} did not take the message: ${(err as Error).message}`;
      process.stderr.write(`pincer mcp: ${message}\n`);
      if (id !== undefined) void local.send({ jsonrpc: "2.0", id, error: { code: -32000, message } }).catch(() => undefined);
    });
  };
  await remote.start();
  await local.start();
  await closed;
  await Promise.all([remote.close().catch(() => undefined), local.close()]);
}
