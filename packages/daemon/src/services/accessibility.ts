import type { wire } from "@pincer/shared";
import { type A11yNode, getAccessibilityTree, linearize } from "../drivers/accessibility.js";

import type { Logger } from "../logger.js";
import { LONG_CALL_LIMITS } from "./limits.js";
import { defineService, type DefinedService } from "./rpc.js";
import { intInRange } from "./validate.js";

function toWire(n: A11yNode): wire.AccessibleNode__Output {
  return {
    role: n.role,
    name: n.name,
    description: n.description ?? "",
    states: n.states,
    bounds: n.bounds ?? null,
    text: n.text ?? "",
    value: n.value ?? "",
    attributes: n.attributes ?? {},
    children: n.children.map(toWire),
    app: n.app ?? "",
  };
}

/**
 * The Accessibility service: the desktop's AT-SPI tree. The bus is found from the daemon's own
 * environment (AT_SPI_BUS_ADDRESS, else org.a11y.Bus on DBUS_SESSION_BUS_ADDRESS) and its display;
 * a caller cannot point the daemon at another bus. A walk stops when its caller goes away, and at
 * most LONG_CALL_LIMITS run at once.
 */
export function accessibilityService(displayName: string, log: Logger): DefinedService<"Accessibility"> {
  return defineService(
    "Accessibility",
    log,
    {
      GetTree: async (req, ctx) => {
        const maxDepth = req.maxDepth === 0 ? 50 : intInRange(req.maxDepth, "max_depth", 1, 1000);
        const maxNodes = req.maxNodes === 0 ? 5000 : intInRange(req.maxNodes, "max_nodes", 1, 100_000);
        const timeoutMs = req.timeoutMs === 0 ? 5000 : intInRange(req.timeoutMs, "timeout_ms", 1, 120_000);
        const maxTextLength = req.maxTextLength === 0 ? 2000 : intInRange(req.maxTextLength, "max_text_length", 1, 1_000_000);
        ctx.signal.throwIfAborted();
        const tree = await getAccessibilityTree({
          maxDepth,
          maxNodes,
          timeoutMs,
          maxTextLength,
          visibleOnly: !req.includeHidden,
          signal: ctx.signal,
          ...(req.app ? { app: req.app } : {}),
          ...(displayName ? { display: displayName } : {}),
        });
        return {
          applications: tree.nodes.map(toWire),
          truncated: tree.truncated,
          nodeCount: tree.nodeCount,
          linearized: req.linearized ? linearize(tree) : "",
        };
      },
    },
    { concurrency: { GetTree: LONG_CALL_LIMITS["Accessibility/GetTree"] } },
  );
}
