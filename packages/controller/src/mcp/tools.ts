import { imageMimeType } from "@pincer/shared";
import type { CallToolResult, ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import type { AnyAction } from "../actions/action.js";
import { toErrorInfo } from "../actions/errors.js";
import type { Screenshot } from "../env/index.js";

/** Title and behaviour hints of each default tool; a tool not listed here gets neither. */
const TOOL_HINTS: Record<string, { title: string; annotations: ToolAnnotations }> = {
  screenshot: { title: "Take a screenshot", annotations: { readOnlyHint: true } },
  wait: { title: "Wait", annotations: { readOnlyHint: true } },
  wait_for: { title: "Wait for a window or a file", annotations: { readOnlyHint: true } },
  move: { title: "Move the pointer", annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true } },
  click: { title: "Click", annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false } },
  double_click: { title: "Double-click", annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false } },
  right_click: { title: "Right-click", annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false } },
  drag: { title: "Drag", annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false } },
  scroll: { title: "Scroll", annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false } },
  key: { title: "Press keys", annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false } },
  type: { title: "Type text", annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false } },
  run_command: { title: "Run a shell command", annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false } },
  launch: { title: "Launch a program", annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false } },
  open: { title: "Open a file or URL", annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false } },
  upload_file: { title: "Upload a file to the machine", annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true } },
  download_file: { title: "Download a file from the machine", annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true } },
  computer: { title: "Computer (computer-use vocabulary)", annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false } },
};

/**
 * The title and annotations `tools/list` gives `name`. Every tool acts on one machine only, so none
 * is open-world.
 */
export function toolHints(name: string): { title?: string; annotations: ToolAnnotations } {
  const hints = TOOL_HINTS[name];
  return hints ? { title: hints.title, annotations: { ...hints.annotations, openWorldHint: false } } : { annotations: { openWorldHint: false } };
}

function isScreenshot(v: unknown): v is Screenshot {
  return !!v && typeof v === "object" && Buffer.isBuffer((v as Screenshot).data) && typeof (v as Screenshot).mimeType === "string";
}

/** Binary values (screenshots, downloads) as their size, for text results. */
function jsonable(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value ?? null, (_k, v: unknown) =>
      v && typeof v === "object" && (v as { type?: unknown }).type === "Buffer" ? `<${((v as { data: unknown[] }).data ?? []).length} bytes>` : v,
    ),
  );
}

/** A failed call as a tool error the client's model can read. */
export function toolError(text: string): CallToolResult {
  return { isError: true, content: [{ type: "text", text }] };
}

/** An action's result as a tool result: a screenshot as an image, an object also as structured content. */
export function toolResult(a: AnyAction, value: unknown): CallToolResult {
  if (isScreenshot(value)) {
    const meta = { width: value.width, height: value.height, scale: value.scale, source: value.source, cursor: value.cursor, screen: value.screen };
    return {
      content: [
        { type: "image", data: value.data.toString("base64"), mimeType: imageMimeType(value.data, value.mimeType) },
        { type: "text", text: JSON.stringify(meta) },
      ],
    };
  }
  const plain = jsonable(value);
  const structured = a.returns?.def.type === "object" && plain && typeof plain === "object" && !Array.isArray(plain);
  return {
    content: [{ type: "text", text: plain === null ? "ok" : JSON.stringify(plain) }],
    ...(structured ? { structuredContent: plain as Record<string, unknown> } : {}),
  };
}

/** Text of a failed action: its error type and message. */
export function errorText(err: Error): string {
  const info = toErrorInfo(err);
  return `${info.type}: ${info.message}`;
}
