import { describe, expect, test } from "vitest";
import {
  accessibilityTreeGetter,
  buildAccessibilityXml,
  terminalOutputGetter,
  terminalOutputOf,
} from "../../../packages/controller/src/datasets/osworld/accessibilityTree.js";
import type { OsworldContext } from "../../../packages/controller/src/datasets/osworld/context.js";
import type { AccessibilityTreeOptions, AccessibleNode } from "../../../packages/controller/src/env/accessibility.js";
import type { Env } from "../../../packages/controller/src/env/index.js";
import { app, gnomeTerminal, node, SHOWN } from "./a11yFixtures.js";

const NS =
  ' xmlns:st="https://accessibility.ubuntu.example.org/ns/state" xmlns:attr="https://accessibility.ubuntu.example.org/ns/attributes"' +
  ' xmlns:cp="https://accessibility.ubuntu.example.org/ns/component" xmlns:doc="https://accessibility.ubuntu.example.org/ns/document"' +
  ' xmlns:docattr="https://accessibility.ubuntu.example.org/ns/document/attributes" xmlns:txt="https://accessibility.ubuntu.example.org/ns/text"' +
  ' xmlns:val="https://accessibility.ubuntu.example.org/ns/value" xmlns:act="https://accessibility.ubuntu.example.org/ns/action"';

describe("buildAccessibilityXml", () => {
  test("writes OSWorld's elements, attributes and text", () => {
    const bounds = { x: 10, y: -5, width: 300, height: 20 };
    const tree = [
      app("gedit", [
        node("frame", 'notes "1" & <2>', { states: ["active", ...SHOWN], bounds }, [
          node("push button", "Save", { states: ["focusable", "visible"], bounds, attributes: { class: "save", "bad name": "x", "xml-roles": "button" } }),
          node("text", "", { text: "a < b & c\r\nline\ufffc" }),
          node("slider", "Zoom", { value: "50" }),
          node("statusbar", "", { text: "Ln 1" }),
          node("", "odd\u0001name\ttab"),
        ]),
      ]),
      app("empty", []),
    ];
    expect(buildAccessibilityXml(tree)).toBe(
      `<desktop-frame${NS}>` +
        '<application name="gedit">' +
        '<frame name="notes &quot;1&quot; &amp; &lt;2&gt;" st:active="true" st:enabled="true" st:sensitive="true" st:showing="true" st:visible="true"' +
        ' cp:screencoord="(10, -5)" cp:size="(300, 20)">' +
        '<push-button name="Save" st:focusable="true" st:visible="true" attr:class="save" attr:xml-roles="button"/>' +
        '<text name="">a &lt; b &amp; c&#13;\nline</text>' +
        '<slider name="Zoom" val:value="50.0"/>' +
        '<status-bar name="">Ln 1</status-bar>' +
        '<unknown name="oddname&#9;tab"/>' +
        "</frame></application>" +
        '<application name="empty"/>' +
        "</desktop-frame>",
    );
  });

  test("an empty desktop is one empty root", () => {
    expect(buildAccessibilityXml([])).toBe(`<desktop-frame${NS}/>`);
  });

  test("a calc sheet's table keeps only the showing cells, other tables keep all", () => {
    const cells = [node("table cell", "A1", { states: SHOWN }), node("table cell", "XFD1"), node("table cell", "B1", { states: ["showing"] })];
    const calc = app("soffice", [node("document spreadsheet", "Sheet1", {}, [node("table", "Sheet1", {}, cells)])]);
    const other = app("gedit", [node("table", "t", {}, cells)]);
    const xml = buildAccessibilityXml([calc, other]);
    expect(xml).toContain('<table name="Sheet1"><table-cell name="A1" st:enabled="true" st:sensitive="true" st:showing="true" st:visible="true"/>');
    expect(xml).toContain('<table-cell name="B1" st:showing="true"/></table></document-spreadsheet>');
    expect(xml.match(/XFD1/g)).toHaveLength(1);
  });
});

describe("terminalOutputOf", () => {
  test("the focused terminal of the active window, right-stripped", () => {
    const tree = [
      gnomeTerminal([
        [false, [["other window", true]]],
        [
          true,
          [
            ["$ stty size\n43 132\n$   \n\n", true],
            ["background tab", false],
          ],
        ],
      ]),
    ];
    expect(terminalOutputOf(tree)).toBe("$ stty size\n43 132\n$");
  });

  test("null when no window is active, when two terminals are focused, or when the text is empty", () => {
    expect(terminalOutputOf([gnomeTerminal([[false, [["x", true]]]])])).toBeNull();
    expect(
      terminalOutputOf([
        gnomeTerminal([
          [
            true,
            [
              ["a", true],
              ["b", true],
            ],
          ],
        ]),
      ]),
    ).toBeNull();
    expect(terminalOutputOf([gnomeTerminal([[true, [["", true]]]])])).toBeNull();
    expect(
      terminalOutputOf([app("xterm", [node("frame", "", { states: ["active"] }, [node("terminal", "", { text: "x", states: ["focused"] })])])]),
    ).toBeNull();
  });
});

/** A context whose machine answers `tree()` with these applications, recording the options. */
function fakeCtx(applications: AccessibleNode[], truncated = false) {
  const calls: AccessibilityTreeOptions[] = [];
  const logs: string[] = [];
  const env = {
    accessibility: {
      tree: async (o: AccessibilityTreeOptions) => {
        calls.push(o);
        return { applications, truncated, nodeCount: 1 };
      },
    },
  } as unknown as Env;
  const ctx = { env, signal: new AbortController().signal, cacheDir: "/nonexistent", password: "password", log: (l: string) => logs.push(l) };
  return { ctx: ctx as unknown as OsworldContext, calls, logs };
}

describe("getters", () => {
  test("accessibility_tree reads the whole tree, hidden nodes too, and gives its XML", async () => {
    const apps = [app("soffice", [node("frame", "x", { states: SHOWN })])];
    const { ctx, calls, logs } = fakeCtx(apps, true);
    const xml = await accessibilityTreeGetter.get(accessibilityTreeGetter.config.parse({}), ctx);
    expect(xml).toBe(buildAccessibilityXml(apps));
    expect(calls[0]).toMatchObject({ includeHidden: true, maxDepth: 49, signal: ctx.signal });
    expect(calls[0]!.app).toBeUndefined();
    expect(logs.join()).toContain("cut short");
  });

  test("vm_terminal_output asks for gnome-terminal-server and gives its text or null", async () => {
    const one = fakeCtx([gnomeTerminal([[true, [["54\n", true]]]])]);
    expect(await terminalOutputGetter.get(terminalOutputGetter.config.parse({}), one.ctx)).toBe("54");
    expect(one.calls[0]).toMatchObject({ app: "gnome-terminal-server", includeHidden: true });
    const none = fakeCtx([]);
    expect(await terminalOutputGetter.get({}, none.ctx)).toBeNull();
  });
});
