import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";
import { openWitnessWindow, type WitnessWindow } from "../fixtures/xwitness.js";
import { startXvfb, type XServer } from "../fixtures/xvfb.js";

const ROOT = resolve(import.meta.dirname, "../..");
const CLI = resolve(ROOT, "packages/controller/src/cli/main.ts");
const TOKEN = randomBytes(24).toString("hex");

let xs: XServer;
let daemon: RunningDaemon;
let w: WitnessWindow;
let dir: string;
let client: Client;
let stderr = "";

beforeAll(async () => {
  xs = await startXvfb({ width: 1280, height: 800 });
  daemon = await spawnDaemon({ display: xs.display, env: { PINCER_TOKEN: TOKEN } });
  w = await openWitnessWindow(xs.display, { x: 200, y: 150, width: 400, height: 300, color: 0xff0000 });
  dir = mkdtempSync(join(tmpdir(), "pincer-mcp-"));
  const tokenFile = join(dir, "token");
  writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
  // The SDK's own client spawns `pincer mcp` and talks to it over stdio.
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      "--conditions=@pincer/source",
      "--import",
      "tsx",
      CLI,
      "mcp",
      "--env",
      `desktop=${daemon.address}`,
      "--token-file",
      tokenFile,
      "--computer-use",
      "anthropic",
    ],
    cwd: ROOT,
    stderr: "pipe",
  });
  transport.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
  client = new Client({ name: "pincer-test", version: "0.0.0" });
  await client.connect(transport);
});

afterAll(async () => {
  await client?.close();
  w?.close();
  await daemon?.close();
  await xs?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("pincer mcp: one machine's actions over stdio, through a token-protected daemon", () => {
  test("lists the desktop and system tools with their schemas, a computer tool and a screenshot resource", async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(["click", "double_click", "drag", "scroll", "key", "type", "screenshot", "wait", "run_command", "launch", "open", "computer"]),
    );
    // Without --local-root, no tool reads or writes files of the host running pincer mcp.
    expect(names).not.toContain("upload_file");
    expect(names).not.toContain("download_file");
    const click = tools.find((t) => t.name === "click")!;
    expect(click.inputSchema).toMatchObject({ type: "object", properties: { x: { type: "integer" }, y: { type: "integer" } }, required: ["x", "y"] });
    expect(click.outputSchema).toMatchObject({ type: "object", properties: { x: { type: "number" } } });
    const { resources } = await client.listResources();
    expect(resources).toEqual([expect.objectContaining({ uri: "pincer://screen/screenshot", mimeType: "image/png" })]);
    expect(stderr).toMatch(/serving 127\.0\.0\.1:\d+/);
  });

  test("a click tool call lands where asked (the witness window sees it) and returns the pointer", async () => {
    const from = w.events.length;
    const r = await client.callTool({ name: "click", arguments: { x: 300, y: 250 } });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toEqual({ x: 300, y: 250 });
    await w.waitFor(() => w.events.slice(from).some((e) => e.name === "ButtonRelease"));
    expect(w.events.slice(from).find((e) => e.name === "ButtonPress")).toMatchObject({ detail: 1, rootX: 300, rootY: 250, x: 100, y: 100 });
  });

  test("the screenshot tool and resource return an image of the screen", async () => {
    const r = await client.callTool({ name: "screenshot", arguments: { format: "png" } });
    const content = r.content as Array<{ type: string; data?: string; mimeType?: string; text?: string }>;
    const img = content.find((c) => c.type === "image")!;
    expect(img.mimeType).toBe("image/png");
    const { data, info } = await sharp(Buffer.from(img.data!, "base64")).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual([1280, 800]);
    const at = (x: number, y: number) => [...data.subarray((y * info.width + x) * 3, (y * info.width + x) * 3 + 3)];
    expect(at(400, 300)).toEqual([255, 0, 0]);
    expect(at(100, 100)).toEqual([0, 0, 0]);
    expect(JSON.parse(content.find((c) => c.type === "text")!.text!)).toMatchObject({ width: 1280, height: 800, scale: 1 });

    const res = await client.readResource({ uri: "pincer://screen/screenshot" });
    const blob = res.contents[0] as { blob: string; mimeType: string };
    expect(blob.mimeType).toBe("image/png");
    expect((await sharp(Buffer.from(blob.blob, "base64")).metadata()).width).toBe(1280);
  });

  test("the computer tool speaks Anthropic's vocabulary; errors come back as isError results", async () => {
    const from = w.events.length;
    // 1280×800 is WXGA already: display and screen coincide.
    const r = await client.callTool({ name: "computer", arguments: { action: "double_click", coordinate: [350, 260] } });
    expect(r.isError).toBeFalsy();
    await w.waitFor(() => w.events.slice(from).filter((e) => e.name === "ButtonRelease").length === 2);
    expect(
      w.events
        .slice(from)
        .filter((e) => e.name === "ButtonPress")
        .map((e) => [e.rootX, e.rootY]),
    ).toEqual([
      [350, 260],
      [350, 260],
    ]);
    const bad = await client.callTool({ name: "click", arguments: { x: -5 } });
    expect(bad.isError).toBe(true);
    expect((bad.content as Array<{ text: string }>)[0]!.text).toMatch(/ActionArgumentsError: click: invalid arguments/);
    const cmd = await client.callTool({ name: "run_command", arguments: { command: "echo from-mcp" } });
    expect((cmd.content as Array<{ text: string }>)[0]!.text).toMatch(/from-mcp/);
  });

  test("titles and annotations, resource templates, JPEG as image/jpeg, and the specification's error codes", async () => {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get("screenshot")).toMatchObject({ title: "Take a screenshot", annotations: { readOnlyHint: true, openWorldHint: false } });
    expect(byName.get("run_command")?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, openWorldHint: false });
    expect(byName.get("move")?.annotations).toMatchObject({ destructiveHint: false, idempotentHint: true });
    expect(tools.every((t) => t.title && t.annotations?.openWorldHint === false)).toBe(true);

    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates).toEqual([expect.objectContaining({ uriTemplate: "pincer://screen/screenshot{?format,max_width}" })]);
    // A client expanding the template leaves out what it does not set.
    const small = await client.readResource({ uri: "pincer://screen/screenshot?max_width=640" });
    const smallBlob = small.contents[0] as { blob: string; mimeType: string };
    expect(smallBlob.mimeType).toBe("image/png");
    expect((await sharp(Buffer.from(smallBlob.blob, "base64")).metadata()).width).toBe(640);
    const jpegRes = await client.readResource({ uri: "pincer://screen/screenshot?format=jpeg&max_width=320" });
    expect(jpegRes.contents[0]).toMatchObject({ mimeType: "image/jpeg" });

    const shot = await client.callTool({ name: "screenshot", arguments: { format: "jpeg" } });
    const img = (shot.content as Array<{ type: string; data?: string; mimeType?: string }>).find((c) => c.type === "image")!;
    expect(img.mimeType).toBe("image/jpeg");
    expect([...Buffer.from(img.data!, "base64").subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);

    const unknownTool = await client.callTool({ name: "no_such_tool", arguments: {} }).catch((e: unknown) => e);
    expect(unknownTool).toBeInstanceOf(McpError);
    expect(unknownTool).toMatchObject({ code: -32602, message: expect.stringMatching(/Unknown tool: no_such_tool/) });
    const unknownResource = await client.readResource({ uri: "pincer://screen/nothing" }).catch((e: unknown) => e);
    expect(unknownResource).toMatchObject({ code: -32002, message: expect.stringMatching(/Resource not found/) });
    const badVariant = await client.readResource({ uri: "pincer://screen/screenshot?format=gif" }).catch((e: unknown) => e);
    expect(badVariant).toMatchObject({ code: -32602 });
  });
});
