import type { wire } from "@pincer/shared";
import type { PromiseClient } from "./rpc.js";
import type { CallOptions, Region } from "./types.js";

/** One widget of the accessibility tree. */
export interface AccessibleNode {
  /** AT-SPI role name: "application", "frame", "push button", "label", … */
  role: string;
  name: string;
  description: string;
  /** AT-SPI state names in lower case: "showing", "visible", "enabled", "focused", … */
  states: string[];
  /** Screen pixels; absent when the object has no on-screen component. */
  bounds?: Region;
  /** The Text interface's content (capped). */
  text: string;
  /** The Value interface's current value. */
  value: string;
  attributes: Record<string, string>;
  children: AccessibleNode[];
  /** The application's name, on application nodes (the roots). */
  app: string;
}

/** Options of {@link AccessibilityApi.tree}. */
export interface AccessibilityTreeOptions extends CallOptions {
  /** Levels below an application node. @default 50 */
  maxDepth?: number;
  /** Most nodes returned. @default 5000 */
  maxNodes?: number;
  /** Also nodes that are not on screen. @default false */
  includeHidden?: boolean;
  /** Only applications whose name contains this (case-insensitive). */
  app?: string;
  /** Deadline of the walk in the daemon; what was read by then comes back marked truncated. @default 5000 */
  walkTimeoutMs?: number;
  /** Longest text kept per node. @default 2000 */
  maxTextLength?: number;
  /** Also return OSWorld's linearised text form. @default false */
  linearized?: boolean;
}

/** What {@link AccessibilityApi.tree} returns. */
export interface AccessibilityTree {
  /** One node per application. */
  applications: AccessibleNode[];
  /** True when a limit left part of the tree out. */
  truncated: boolean;
  nodeCount: number;
  /** OSWorld's linearised form (a header, then one tab-separated line per node), when asked for. */
  linearized?: string;
}

/** The desktop's accessibility tree (AT-SPI). */
export interface AccessibilityApi {
  tree(opts?: AccessibilityTreeOptions): Promise<AccessibilityTree>;
}

function fromWire(n: wire.AccessibleNode__Output): AccessibleNode {
  const node: AccessibleNode = {
    role: n.role,
    name: n.name,
    description: n.description,
    states: n.states,
    text: n.text,
    value: n.value,
    attributes: n.attributes,
    children: n.children.map(fromWire),
    app: n.app,
  };
  return n.bounds ? { ...node, bounds: { x: n.bounds.x, y: n.bounds.y, width: n.bounds.width, height: n.bounds.height } } : node;
}

/** `env.accessibility` over the Accessibility service. */
export function createAccessibilityApi(client: PromiseClient<"Accessibility">): AccessibilityApi {
  return {
    tree: async (o = {}) => {
      const walkMs = o.walkTimeoutMs ?? 5000;
      const r = await client.GetTree(
        {
          maxDepth: o.maxDepth ?? 0,
          maxNodes: o.maxNodes ?? 0,
          includeHidden: o.includeHidden ?? false,
          app: o.app ?? "",
          timeoutMs: walkMs,
          maxTextLength: o.maxTextLength ?? 0,
          linearized: o.linearized ?? false,
        },
        { ...o, timeoutMs: o.timeoutMs ?? walkMs + 10_000 },
      );
      const tree: AccessibilityTree = { applications: r.applications.map(fromWire), truncated: r.truncated, nodeCount: r.nodeCount };
      return o.linearized ? { ...tree, linearized: r.linearized } : tree;
    },
  };
}
