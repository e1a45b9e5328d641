import { McpServer, ResourceTemplate, type RegisteredTool } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  McpError,
  ReadResourceRequestSchema,
  type CallToolResult,
  type ReadResourceResult,
  type ServerNotification,
  type ServerRequest,
} from "@modelcontextprotocol/sdk/types.js";
import { ENCODED_IMAGE_FORMATS, imageMimeType, PINCER_VERSION } from "@pincer/shared";
import { z } from "zod";
import type { AnyAction } from "../actions/action.js";
import { createDesktopActions } from "../actions/desktop.js";
import { createSystemActions } from "../actions/system.js";
import { createComputerAction } from "../agents/computerUse.js";
import type { Env, ImageFormat } from "../env/index.js";
import { errorText, toolError, toolHints, toolResult } from "./tools.js";

/** The resource that reads as a fresh screenshot of the machine. */
export const SCREENSHOT_RESOURCE_URI = "pincer://screen/screenshot";
/** The resource template of screenshots in another format or downscaled, e.g. `pincer://screen/screenshot?format=jpeg&max_width=640`. */
export const SCREENSHOT_TEMPLATE = `${SCREENSHOT_RESOURCE_URI}{?format,max_width}`;
/** JSON-RPC error code of a resource that does not exist (MCP, resources/read). */
export const RESOURCE_NOT_FOUND = -32002;

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
  /**
   * Says what is wrong when a call fails because the machine cannot be used (daemon down, token or
   * TLS refused) and which option fixes it; undefined for any other error.
   */
  explainFailure?: (err: Error) => Promise<string | undefined>;
}

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

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

/** The result schema as MCP `outputSchema` when it is an object the SDK can express in JSON Schema. */
function outputSchemaOf(a: AnyAction): z.ZodObject | undefined {
  if (!(a.returns instanceof z.ZodObject)) return undefined;
  try {
    z.toJSONSchema(a.returns, { io: "output" });
    return a.returns;
  } catch {
    return undefined;
  }
}

/**
 * An MCP server over one machine, on the SDK's `McpServer`: each action is a tool registered from its
 * zod schemas (parameters as `inputSchema`, an object result as `outputSchema`) with a title and
 * behaviour annotations; a tool that returns a screenshot answers with an image whose MIME type
 * matches its bytes. {@link SCREENSHOT_RESOURCE_URI} reads as a fresh screenshot and
 * {@link SCREENSHOT_TEMPLATE} as one in another format or size. Invalid arguments and failed actions
 * come back as `isError` results the client's model can read; an unknown tool is a JSON-RPC -32602
 * error and an unknown resource -32002, as the MCP specification asks. Connect it to a transport
 * (stdio for `pincer mcp`); the `env` handle stays the caller's to close.
 */
export function createMcpServer(opts: McpServerOptions): McpServer {
  const actions = opts.actions ?? defaultMcpActions(opts);
  const server = new McpServer(
    { name: "pincer", title: "Pincer", version: PINCER_VERSION },
    {
      capabilities: { tools: {}, resources: {} },
      instructions:
        `Drives the machine at ${opts.env.address} through pincer-daemon. Coordinates are screen pixels, origin top-left; take a screenshot to see the ` +
        `screen.`,
    },
  );
  const call =
    (a: AnyAction) =>
    async (args: unknown, extra: Extra): Promise<CallToolResult> => {
      const r = await a.safeCall(args ?? {}, { env: opts.env, signal: extra.signal });
      if (r.ok) return toolResult(a, r.value);
      const why = r.stage === "run" ? await opts.explainFailure?.(r.error) : undefined;
      return toolError(why ?? errorText(r.error));
    };
  const tools = new Map<string, { registered: RegisteredTool; call: ReturnType<typeof call> }>();
  for (const a of actions) {
    const output = outputSchemaOf(a);
    const config = { description: a.description, inputSchema: a.params, ...toolHints(a.name), ...(output ? { outputSchema: output } : {}) };
    const run = call(a);
    tools.set(a.name, { registered: server.registerTool(a.name, config, run), call: run });
  }
  // McpServer turns every error of tools/call into a tool result, an unknown tool's too; the
  // specification makes that a protocol error (-32602). Arguments are checked by the action itself,
  // which lists every problem.
  server.server.setRequestHandler(CallToolRequestSchema, (req, extra) => {
    const tool = tools.get(req.params.name);
    if (!tool?.registered.enabled) {
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${req.params.name}; tools: ${[...tools.keys()].join(", ")}`);
    }
    return tool.call(req.params.arguments, extra);
  });
  registerScreenshotResources(server, opts);
  return server;
}

/** Reads a screenshot resource; an unreachable machine is explained, naming the fix. */
async function readScreenshot(opts: McpServerOptions, uri: string, shot: Parameters<Env["screen"]["screenshot"]>[0]): Promise<ReadResourceResult> {
  try {
    const s = await opts.env.screen.screenshot(shot);
    return { contents: [{ uri, mimeType: imageMimeType(s.data, s.mimeType), blob: s.data.toString("base64") }] };
  } catch (err) {
    const why = err instanceof Error ? await opts.explainFailure?.(err) : undefined;
    if (why) throw new McpError(ErrorCode.InternalError, why);
    throw err;
  }
}

const templateVars = z.object({
  format: z.enum(ENCODED_IMAGE_FORMATS).default("png"),
  max_width: z.coerce.number().int().min(16).optional(),
});

function registerScreenshotResources(server: McpServer, opts: McpServerOptions): void {
  const format = opts.screenshotFormat ?? "png";
  server.registerResource(
    "screenshot",
    SCREENSHOT_RESOURCE_URI,
    { title: "Screenshot", description: "The whole screen of the machine, taken when read.", mimeType: `image/${format}` },
    (uri, extra) => readScreenshot(opts, uri.href, { format, signal: extra.signal }),
  );
  const readVariant = async (uri: URL, vars: Record<string, string | string[]>, extra: Extra): Promise<ReadResourceResult> => {
    const parsed = templateVars.safeParse(vars);
    if (!parsed.success) throw new McpError(ErrorCode.InvalidParams, `${uri.href}: ${z.prettifyError(parsed.error)}`);
    const { format: f, max_width } = parsed.data;
    return readScreenshot(opts, uri.href, { format: f, signal: extra.signal, ...(max_width !== undefined ? { maxWidth: max_width } : {}) });
  };
  const template = server.registerResource(
    "screenshot-variant",
    new ResourceTemplate(SCREENSHOT_TEMPLATE, { list: undefined }),
    {
      title: "Screenshot in a format and size",
      description: "The whole screen, taken when read: format png (default), jpeg or webp; max_width downscales it to at most that many pixels wide.",
    },
    readVariant,
  );
  // McpServer answers an unknown resource with -32602 and matches a template's query variables only
  // all present and in order; the specification asks for -32002, and a client expanding the template
  // leaves out the variables it does not set.
  server.server.setRequestHandler(ReadResourceRequestSchema, (req, extra) => {
    const uri = req.params.uri;
    if (uri === SCREENSHOT_RESOURCE_URI) return readScreenshot(opts, uri, { format, signal: extra.signal });
    const url = URL.canParse(uri) ? new URL(uri) : undefined;
    const vars = url ? Object.fromEntries(url.searchParams) : {};
    if (template.enabled && url && `${url.protocol}//${url.host}${url.pathname}` === SCREENSHOT_RESOURCE_URI && url.hash === "") {
      if (Object.keys(vars).every((k) => k === "format" || k === "max_width")) return readVariant(url, vars, extra);
    }
    throw new McpError(RESOURCE_NOT_FOUND, "Resource not found", { uri });
  });
}
