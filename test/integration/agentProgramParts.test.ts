import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { request } from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, describe, expect, test } from "vitest";
import { ProcessTree } from "../../packages/controller/src/agents/processTree.js";
import { startAttemptEndpoint, type AttemptEndpoint } from "../../packages/controller/src/agents/programEndpoint.js";

const TOOLS = [{ name: "desktop__click", description: "Click", parameters: { type: "object", properties: { x: { type: "number" } } } }];

let endpoint: AttemptEndpoint | undefined;
afterEach(async () => {
  await endpoint?.close();
  endpoint = undefined;
});

const post = (url: string, headers: Record<string, string>) =>
  fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "0" } },
    }),
  });

describe("an attempt's MCP endpoint", () => {
  test("serves the attempt's tools to a client with the token; each call goes to onCall, an unknown tool is -32602", async () => {
    const calls: unknown[] = [];
    endpoint = await startAttemptEndpoint({
      tools: TOOLS,
      onCall: async (tool, args) => {
        calls.push({ tool, args });
        return { content: [{ type: "text", text: `clicked ${JSON.stringify(args)}` }] };
      },
    });
    const client = new Client({ name: "t", version: "0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(endpoint.url), { requestInit: { headers: { authorization: `Bearer ${endpoint.token}` } } }));
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["desktop__click"]);
    expect(await client.callTool({ name: "desktop__click", arguments: { x: 3 } })).toMatchObject({ content: [{ type: "text", text: 'clicked {"x":3}' }] });
    expect(calls).toEqual([{ tool: "desktop__click", args: { x: 3 } }]);
    await expect(client.callTool({ name: "desktop__nope", arguments: {} })).rejects.toThrow(/-32602.*Unknown tool: desktop__nope/);
    await client.close();
  });

  test("refuses a request without the token (401), with a wrong one (401), and one whose Host is not the loopback address (403)", async () => {
    endpoint = await startAttemptEndpoint({ tools: TOOLS, onCall: async () => ({ content: [] }) });
    expect((await post(endpoint.url, {})).status).toBe(401);
    expect((await post(endpoint.url, { authorization: "Bearer wrong" })).status).toBe(401);
    const port = new URL(endpoint.url).port;
    const rebound = await new Promise<number>((resolve, reject) => {
      // fetch does not let a caller set Host: a raw request, as a page served by a rebound name would send it.
      const req = request(
        { host: "127.0.0.1", port, path: "/mcp", method: "POST", headers: { host: `evil.example:${port}`, authorization: `Bearer ${endpoint!.token}` } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on("error", reject);
      req.end("{}");
    });
    expect(rebound).toBe(403);
    expect((await post(endpoint.url, { authorization: `Bearer ${endpoint.token}` })).status).toBe(200);
  });
});

/** Whether a process whose command line holds `marker` runs. */
function running(marker: string): boolean {
  return readdirSync("/proc")
    .filter((n) => /^\d+$/.test(n))
    .some((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(marker);
      } catch {
        return false;
      }
    });
}

describe("ProcessTree", () => {
  test("stops a program with a child, an orphaned grandchild and a child that left its session", async () => {
    const markers = ["987661", "987662", "987663"];
    const child = spawn("sh", ["-c", "setsid sleep 987661 & (sleep 987662 &); exec sleep 987663"], { detached: true, stdio: "ignore" });
    const tree = new ProcessTree(child.pid!, 50);
    await new Promise((r) => setTimeout(r, 500));
    expect(markers.every(running)).toBe(true);
    expect(tree.alive().length).toBeGreaterThanOrEqual(3);
    expect(await tree.stop(500)).toEqual([]);
    expect(markers.filter(running)).toEqual([]);
  });
});
