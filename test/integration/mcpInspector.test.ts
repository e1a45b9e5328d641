import { execFile } from "node:child_process";
import { resolve } from "node:path";
import { promisify } from "node:util";
import { connect, type Env } from "@pincer/controller";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";
import { startXvfb, type XServer } from "../fixtures/xvfb.js";

// The MCP Inspector's CLI mode (the reference client of the MCP project) against `pincer mcp` on a
// real daemon and Xvfb: what it prints is the JSON result of one request.

const ROOT = resolve(import.meta.dirname, "../..");
const INSPECTOR = resolve(ROOT, "node_modules/.bin/mcp-inspector");
const CLI = resolve(ROOT, "packages/controller/src/cli/main.ts");

let xs: XServer;
let daemon: RunningDaemon;
let env: Env;

/** `mcp-inspector --cli <pincer mcp> <args>`, parsed from the JSON it prints. */
async function inspector(args: string[]): Promise<Record<string, unknown>> {
  const server = [process.execPath, "--conditions=@pincer/source", "--import", "tsx", CLI, "mcp", "--env", daemon.address];
  const { stdout } = await promisify(execFile)(INSPECTOR, ["--cli", ...server, ...args], { cwd: ROOT, timeout: 60_000, maxBuffer: 64 << 20 });
  return JSON.parse(stdout.slice(stdout.indexOf("{")));
}

beforeAll(async () => {
  xs = await startXvfb({ width: 1024, height: 768 });
  daemon = await spawnDaemon({ display: xs.display });
  env = connect(daemon.address);
});

afterAll(async () => {
  env?.close();
  await daemon?.close();
  await xs?.close();
});

describe("the MCP Inspector's CLI mode against pincer mcp", () => {
  test("tools/list: every tool with a title, annotations and a schema from its zod parameters", async () => {
    const { tools } = (await inspector(["--method", "tools/list"])) as { tools: Array<Record<string, unknown>> };
    const byName = new Map(tools.map((t) => [t.name as string, t]));
    expect([...byName.keys()]).toEqual(expect.arrayContaining(["click", "screenshot", "run_command", "launch", "key", "type"]));
    expect(byName.get("screenshot")).toMatchObject({ title: "Take a screenshot", annotations: { readOnlyHint: true, openWorldHint: false } });
    expect(byName.get("run_command")).toMatchObject({ annotations: { destructiveHint: true } });
    expect(byName.get("click")).toMatchObject({ inputSchema: { type: "object", properties: { x: { type: "integer" } }, required: ["x", "y"] } });
  });

  test("tools/call screenshot: a PNG of the screen, said to be image/png", async () => {
    const r = (await inspector(["--method", "tools/call", "--tool-name", "screenshot"])) as {
      isError?: boolean;
      content: Array<{ type: string; data?: string; mimeType?: string; text?: string }>;
    };
    expect(r.isError ?? false).toBe(false);
    const img = r.content.find((c) => c.type === "image")!;
    expect(img.mimeType).toBe("image/png");
    const png = Buffer.from(img.data!, "base64");
    expect(png.subarray(1, 4).toString("latin1")).toBe("PNG");
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1024, 768]);
    expect(JSON.parse(r.content.find((c) => c.type === "text")!.text!)).toMatchObject({ width: 1024, height: 768 });
  });

  test("tools/call click with --tool-arg x=10 y=10: the pointer is there afterwards", async () => {
    await env.mouse.move({ x: 500, y: 400 });
    const r = await inspector(["--method", "tools/call", "--tool-name", "click", "--tool-arg", "x=10", "--tool-arg", "y=10"]);
    expect(r).toMatchObject({ structuredContent: { x: 10, y: 10 } });
    expect(r.isError ?? false).toBe(false);
    expect(await env.mouse.position()).toEqual({ x: 10, y: 10 });
  });

  test("resources/templates/list: the screenshot template", async () => {
    const r = await inspector(["--method", "resources/templates/list"]);
    expect(r).toEqual({
      resourceTemplates: [expect.objectContaining({ name: "screenshot-variant", uriTemplate: "pincer://screen/screenshot{?format,max_width}" })],
    });
  });
});
