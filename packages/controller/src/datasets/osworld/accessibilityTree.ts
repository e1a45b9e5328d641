import { z } from "zod";
import type { AccessibleNode, AccessibilityTreeOptions } from "../../env/accessibility.js";
import type { OsworldContext } from "./context.js";
import { defineGetter, type OsworldGetter } from "./getter.js";
import { floatRepr } from "../pycompat/pyNumbers.js";
import { pyRstrip } from "../pycompat/pyStr.js";

/**
 * OSWorld's accessibility tree as its server writes it for Ubuntu (`desktop_env/server/main.py`:
 * `/accessibility` and `_create_atspi_node`), built from Pincer's AT-SPI tree, and its `/terminal`.
 *
 * What Pincer's nodes do not carry, and so is never written: the `image="true"` and
 * `selection="true"` marks (the Image and Selection interfaces), `val:min`/`val:max`/`val:step`
 * (only the current value is read), and the `act:*_desc`/`act:*_kb` actions. OSWorld's Ubuntu
 * server writes no `txt:`, `doc:` or `docattr:` attributes either (only their namespaces).
 */

/** OSWorld's namespaces for Ubuntu (`_accessibility_ns_map["ubuntu"]`), in its order. */
export const UBUNTU_A11Y_NAMESPACES: Readonly<Record<string, string>> = {
  st: "https://accessibility.ubuntu.example.org/ns/state",
  attr: "https://accessibility.ubuntu.example.org/ns/attributes",
  cp: "https://accessibility.ubuntu.example.org/ns/component",
  doc: "https://accessibility.ubuntu.example.org/ns/document",
  docattr: "https://accessibility.ubuntu.example.org/ns/document/attributes",
  txt: "https://accessibility.ubuntu.example.org/ns/text",
  val: "https://accessibility.ubuntu.example.org/ns/value",
  act: "https://accessibility.ubuntu.example.org/ns/action",
};

/**
 * OSWorld reads role names through libatspi (`atspi_role_get_name`: the AtspiRole's name), Pincer
 * asks the application (`GetRoleName`: ATK's name). The two lists differ in these three names.
 */
const ATK_TO_ATSPI_ROLE: Readonly<Record<string, string>> = {
  statusbar: "status bar",
  "tear off menu item": "tearoff menu item",
  "edit bar": "editbar",
};

/** OSWorld's MAX_DEPTH (50, the applications being at depth 1): 49 levels below an application. */
const MAX_DEPTH_BELOW_APP = 49;

/** How the getters read the tree: everything, hidden nodes too, as OSWorld's server walks it. */
export const OSWORLD_TREE_OPTIONS: Omit<AccessibilityTreeOptions, "signal"> = {
  includeHidden: true,
  maxDepth: MAX_DEPTH_BELOW_APP,
  maxNodes: 100_000,
  maxTextLength: 1_000_000,
  walkTimeoutMs: 60_000,
};

/** The role as OSWorld's pyatspi names it. */
export function osworldRoleName(role: string): string {
  const raw = role.trim();
  return ATK_TO_ATSPI_ROLE[raw] ?? raw;
}

/** Characters XML 1.0 cannot hold (lxml refuses them; they are dropped here). */
const NOT_XML = /[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;
/** An XML name without a colon (an element's name, an attribute's local name). */
const NCNAME = /^[\p{L}_][\p{L}\p{N}\p{Mn}\p{Mc}_.\-\u00B7]*$/u;

/** Text content escaped as libxml2 writes it. */
function escapeText(s: string): string {
  return s.replace(NOT_XML, "").replace(/[&<>\r]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", "\r": "&#13;" })[c]!);
}

/** An attribute value escaped as libxml2 writes it. */
function escapeAttr(s: string): string {
  const map: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "\n": "&#10;", "\r": "&#13;", "\t": "&#9;" };
  return s.replace(NOT_XML, "").replace(/[&<>"\n\r\t]/g, (c) => map[c]!);
}

/** The node's attributes in OSWorld's order: name, st:*, attr:*, cp:*, val:value. */
function attributesOf(node: AccessibleNode): Array<[string, string]> {
  const out: Array<[string, string]> = [["name", node.name]];
  for (const s of node.states) if (s !== "" && NCNAME.test(s)) out.push([`st:${s}`, "true"]);
  for (const [k, v] of Object.entries(node.attributes)) if (k !== "" && NCNAME.test(k)) out.push([`attr:${k}`, v]);
  if (node.bounds && node.states.includes("visible") && node.states.includes("showing")) {
    const b = node.bounds;
    out.push(["cp:screencoord", `(${b.x}, ${b.y})`], ["cp:size", `(${b.width}, ${b.height})`]);
  }
  const value = node.value === "" ? Number.NaN : Number(node.value);
  if (!Number.isNaN(value)) out.push(["val:value", floatRepr(value)]);
  return out;
}

/** One node and its subtree, as `_create_atspi_node` writes it, with its `flag` ("calc" below a spreadsheet). */
function writeNode(node: AccessibleNode, flag: string, out: string[]): void {
  const role = osworldRoleName(node.role);
  const tag = (role || "unknown").replaceAll(" ", "-");
  const name = NCNAME.test(tag) ? tag : "unknown";
  if (!flag && role === "document spreadsheet") flag = "calc";
  if (!flag && role === "application" && node.name === "Thunderbird") flag = "thunderbird";
  out.push(`<${name}`);
  for (const [k, v] of attributesOf(node)) out.push(` ${k}="${escapeAttr(v)}"`);
  // A calc sheet's table: only the cells on screen (OSWorld walks the showing cells row by row).
  const children = flag === "calc" && tag === "table" ? node.children.filter((c) => c.states.includes("showing")) : node.children;
  const text = node.text.replace(/[\ufffc\ufffd]/g, "");
  if (text === "" && children.length === 0) {
    out.push("/>");
    return;
  }
  out.push(">", escapeText(text));
  for (const child of children) writeNode(child, flag, out);
  out.push(`</${name}>`);
}

/**
 * OSWorld's `/accessibility` answer (the string `get_accessibility_tree` returns): a
 * `<desktop-frame>` root declaring the Ubuntu namespaces, then one element per application. Each
 * element is named by its role (spaces as '-'), with `name`, `st:<state>="true"`,
 * `attr:<attribute>`, `cp:screencoord="(x, y)"`/`cp:size="(w, h)"` when visible and showing,
 * `val:value` (a Python float), and the node's text as its content. Applications are in the
 * registry's order (OSWorld's come in the order its threads finish). Characters XML cannot hold
 * are dropped, and attributes whose names are not XML names left out, where lxml would fail.
 */
export function buildAccessibilityXml(applications: readonly AccessibleNode[]): string {
  const ns = Object.entries(UBUNTU_A11Y_NAMESPACES)
    .map(([p, uri]) => ` xmlns:${p}="${uri}"`)
    .join("");
  if (applications.length === 0) return `<desktop-frame${ns}/>`;
  const out = [`<desktop-frame${ns}>`];
  for (const app of applications) writeNode(app, "", out);
  out.push("</desktop-frame>");
  return out.join("");
}

function descendants(node: AccessibleNode, out: AccessibleNode[] = []): AccessibleNode[] {
  for (const c of node.children) {
    out.push(c);
    descendants(c, out);
  }
  return out;
}

/**
 * OSWorld's `/terminal`: the text of the focused terminal in the active window of
 * gnome-terminal-server (`//application[@name="gnome-terminal-server"]/frame[@st:active="true"]//terminal[@st:focused="true"]`),
 * with trailing whitespace removed; `null` unless exactly one terminal matches, or when it has no text.
 */
export function terminalOutputOf(applications: readonly AccessibleNode[]): string | null {
  const all = applications.flatMap((a) => [a, ...descendants(a)]);
  const terminals = all
    .filter((a) => osworldRoleName(a.role) === "application" && a.name === "gnome-terminal-server")
    .flatMap((app) => app.children.filter((f) => osworldRoleName(f.role) === "frame" && f.states.includes("active")))
    .flatMap((frame) => descendants(frame).filter((t) => osworldRoleName(t.role) === "terminal" && t.states.includes("focused")));
  const unique = [...new Set(terminals)];
  if (unique.length !== 1) return null;
  const text = unique[0]!.text.replace(/[\ufffc\ufffd]/g, "").replace(NOT_XML, "");
  return text === "" ? null : pyRstrip(text);
}

/** A node's text as lxml's `.text` reads it from OSWorld's XML (what XML cannot hold dropped), `null` when empty. */
export function xmlElementText(node: AccessibleNode): string | null {
  const text = node.text.replace(/[\ufffc\ufffd]/g, "").replace(NOT_XML, "");
  return text === "" ? null : text;
}

/** Reads the tree as OSWorld's server does; a walk cut short is noted in the log. */
export async function readTree(ctx: OsworldContext, what: string, app?: string): Promise<AccessibleNode[]> {
  const tree = await ctx.env.accessibility.tree({ signal: ctx.signal, ...OSWORLD_TREE_OPTIONS, ...(app ? { app } : {}) });
  if (tree.truncated) ctx.log(`${what}: the accessibility tree was cut short (${tree.nodeCount} nodes read); OSWorld reads it whole`);
  return tree.applications;
}

/** OSWorld's `accessibility_tree` getter: the desktop's accessibility tree as XML. */
export const accessibilityTreeGetter: OsworldGetter = defineGetter({
  name: "accessibility_tree",
  config: z.looseObject({}),
  get: async (_c, ctx) => buildAccessibilityXml(await readTree(ctx, "accessibility_tree")),
});

/** OSWorld's `vm_terminal_output` getter: the focused GNOME Terminal's text, or `null`. */
export const terminalOutputGetter: OsworldGetter = defineGetter({
  name: "vm_terminal_output",
  config: z.looseObject({}),
  get: async (_c, ctx) => terminalOutputOf(await readTree(ctx, "vm_terminal_output", "gnome-terminal-server")),
});
