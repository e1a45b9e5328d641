import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  type CallToolResult,
} from "@modelcontextprotocol/sdk/types.js";
import { PINCER_VERSION } from "@pincer/shared";
import type { AnyAction } from "../actions/action.js";
import { createDesktopActions } from "../actions/desktop.js";
import { toErrorInfo } from "../actions/errors.js";
import { createSystemActions } from "../actions/system.js";
import { createComputerAction } from "../agents/computerUse.js";
import type { Env, ImageFormat, Screenshot } from "../env/index.js";

/** The resource that reads as a fresh screenshot of the machine. */
export const SCREENSHOT_RESOURCE_URI = "pincer://screen/screenshot";

/** Options of {@link createMcpServer}. */
export interface McpServerOptions {
  /** The machine the tools act on. */
  env: Env;
  /**
   * The tools. @default the desktop actions (pixel coordinates), run_command, launch and open; with
   * `localRoot`, upload_file and download_file too; with `computerUse`, a `computer` tool
   */
  actions?: readonly AnyAction[];
  /** Controller-side folder upload_file reads from and download_file writes to; without it those two tools are left out. */
  localRoot?: string;
  /** Add a `computer` tool in Anthropic's or OpenAI's computer-use vocabulary (its display scaled as models expect). */
  computerUse?: "anthropic" | "openai";
  /** Format of the screenshot resource. @default "png" */
  screenshotFormat?: Exclude<ImageFormat, "raw">;
}

function isScreenshot(v: unknown): v is Screenshot {
  return !!v && typeof v === "object" && Buffer.isBuffer((v as Screenshot).data) && typeof (v as Screenshot).mimeType === "string";
}

function meta(shot: Screenshot): string {
  return JSON.stringify({ width: shot.width, height: shot.height, scale: shot.scale, source: shot.source, cursor: shot.cursor, screen: shot.screen });
}

/** Binary values (screenshots, downloads) as their size, for text results. */
function jsonable(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value ?? null, (_k, v: unknown) =>
      v && typeof v === "object" && (v as { type?: unknown }).type === "Buffer" ? `<${((v as { data: unknown[] }).data ?? []).length} bytes>` : v,
    ),
  );
}

/** The default tools of {@link createMcpServer}. */
export function defaultMcpActions(opts: Pick<McpServerOptions, "localRoot" | "computerUse"> = {}): AnyAction[] {
  const { upload_file, download_file, ...system } = createSystemActions(opts.localRoot !== undefined ? { localRoot: opts.localRoot } : {});
  return [
    ...Object.values(createDesktopActions()),
    ...Object.values(system),
    ...(opts.localRoot !== undefined ? [upload_file, download_file] : []),
    ...(opts.computerUse ? [createComputerAction({ vocabulary: opts.computerUse })] : []),
  ];
}

/**
 * An MCP server over one machine: each action is a tool (its JSON schema as `inputSchema`, its
 * result schema as `outputSchema`), a tool that returns a screenshot answers with an image, and
 * {@link SCREENSHOT_RESOURCE_URI} reads as a fresh screenshot. Invalid arguments and failed actions
 * come back as `isError` results the client's model can read. Connect it to a transport (stdio for
 * `pincer mcp`); the `env` handle stays the caller's to close.
 */
export function createMcpServer(opts: McpServerOptions): Server {
  const actions = opts.actions ?? defaultMcpActions(opts);
  const byName = new Map(actions.map((a) => [a.name, a]));
  const server = new Server(
    { name: "pincer", version: PINCER_VERSION },
    {
      capabilities: { tools: {}, resources: {} },
      instructions:
        `Drives the machine at ${opts.env.address} through pincer-daemon. Coordinates are screen pixels, origin top-left; take a screenshot to see the ` +
        `screen.`,
    },
  );

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: actions.map((a) => a.toolSchema("mcp")) }));

  server.setRequestHandler(CallToolRequestSchema, async (req, extra): Promise<CallToolResult> => {
    const a = byName.get(req.params.name);
    if (!a) return { isError: true, content: [{ type: "text", text: `no tool named ${req.params.name}; tools: ${[...byName.keys()].join(", ")}` }] };
    const r = await a.safeCall(req.params.arguments ?? {}, { env: opts.env, signal: extra.signal });
    if (!r.ok) {
      const info = toErrorInfo(r.error);
      return { isError: true, content: [{ type: "text", text: `${info.type}: ${info.message}` }] };
    }
    if (isScreenshot(r.value)) {
      return {
        content: [
          { type: "image", data: r.value.data.toString("base64"), mimeType: r.value.mimeType },
          { type: "text", text: meta(r.value) },
        ],
      };
    }
    const value = jsonable(r.value);
    const structured = a.toolSchema("mcp").outputSchema && value && typeof value === "object" && !Array.isArray(value);
    return {
      content: [{ type: "text", text: value === null ? "ok" : JSON.stringify(value) }],
      ...(structured ? { structuredContent: value as Record<string, unknown> } : {}),
    };
  });

  server.setRequestHandler(ListResourcesRequestSchema, () => ({
    resources: [
      {
        uri: SCREENSHOT_RESOURCE_URI,
        name: "screenshot",
        description: "The whole screen of the machine, taken when read.",
        mimeType: `image/${opts.screenshotFormat ?? "png"}`,
      },
    ],
  }));

  server.setRequestHandler(ReadResourceRequestSchema, async (req, extra) => {
    if (req.params.uri !== SCREENSHOT_RESOURCE_URI) throw new Error(`unknown resource ${req.params.uri}; read ${SCREENSHOT_RESOURCE_URI}`);
    const shot = await opts.env.screen.screenshot({ format: opts.screenshotFormat ?? "png", signal: extra.signal });
    return { contents: [{ uri: SCREENSHOT_RESOURCE_URI, mimeType: shot.mimeType, blob: shot.data.toString("base64") }] };
  });

  return server;
}
