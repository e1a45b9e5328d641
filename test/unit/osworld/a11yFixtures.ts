import type { AccessibleNode } from "../../../packages/controller/src/env/accessibility.js";

/** Builds an AccessibleNode as Pincer's tree gives it; unspecified fields are empty. */
export function node(role: string, name: string, more: Partial<AccessibleNode> = {}, children: AccessibleNode[] = []): AccessibleNode {
  return { role, name, description: "", states: [], text: "", value: "", attributes: {}, children, app: "", ...more };
}

/** An application node (a root of the tree). */
export const app = (name: string, children: AccessibleNode[]) => node("application", name, { app: name }, children);

/** States of a widget on screen. */
export const SHOWN = ["enabled", "sensitive", "showing", "visible"];

/** Thunderbird's compose window, its To row holding `addresses` as pills (`row` names the row's label). */
export function thunderbirdCompose(addresses: string[], row = "To"): AccessibleNode {
  const pills = addresses.map((a) =>
    node("section", "", { attributes: { class: "address-pill" } }, [node("label", `Fox <${a}>`, { attributes: { class: "pill-label" } })]),
  );
  const toolbar = node("tool bar", "", { attributes: { id: "MsgHeadersToolbar" } }, [node("label", row), ...pills, node("entry", "")]);
  return app("Thunderbird", [node("frame", "Write: hello - Thunderbird", { states: ["active", ...SHOWN] }, [toolbar])]);
}

/** Thunderbird's main window with its tabs. */
export function thunderbirdTabs(tabs: string[], listId = "tabmail-tabs"): AccessibleNode {
  const list = node(
    "page tab list",
    "",
    { attributes: { id: listId } },
    tabs.map((t) => node("page tab", t)),
  );
  return app("Thunderbird", [node("frame", "Mail - Thunderbird", { states: SHOWN }, [list])]);
}

/** Thunderbird's account setup page with the fields the mail-account task reads. */
export function thunderbirdAccount(email: string, passwordField: string): AccessibleNode {
  const doc = node("document web", "Account Setup", {}, [
    node("entry", "Email address", { text: email, states: SHOWN }),
    node("entry", passwordField, { states: SHOWN }),
  ]);
  return app("Thunderbird", [node("frame", "Account Setup - Thunderbird", { states: SHOWN }, [doc])]);
}

/** LibreOffice Impress, with the slide pane (`Slides View`) open or not. */
export function impress(slidePane: boolean): AccessibleNode {
  const panes = [node("document frame", "Slides View"), node("document presentation", "Slide 1")];
  return app("soffice", [node("frame", "deck.pptx - LibreOffice Impress", { states: SHOWN }, slidePane ? panes : panes.slice(1))]);
}

/** GNOME Terminal with one window per entry: `[active?, [terminal text, focused?][]]`. */
export function gnomeTerminal(windows: Array<[boolean, Array<[string, boolean]>]>): AccessibleNode {
  return app(
    "gnome-terminal-server",
    windows.map(([active, tabs]) =>
      node("frame", "user@host: ~", { states: active ? ["active", ...SHOWN] : SHOWN }, [
        node(
          "page tab list",
          "",
          {},
          tabs.map(([text, focused]) => node("panel", "", {}, [node("terminal", "Terminal", { text, states: focused ? ["focused", ...SHOWN] : SHOWN })])),
        ),
      ]),
    ),
  );
}
