import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { buildAccessibilityXml } from "../../../packages/controller/src/datasets/osworld/accessibilityTree.js";
import { scoreOf } from "../../../packages/controller/src/datasets/osworld/metric.js";
import { a11yMetrics } from "../../../packages/controller/src/datasets/osworld/metrics/a11y.js";
import type { AccessibleNode } from "../../../packages/controller/src/env/accessibility.js";
import { app, impress, node, SHOWN, thunderbirdAccount, thunderbirdCompose, thunderbirdTabs } from "./a11yFixtures.js";

/** Runs a metric by name on the XML of these applications, with options parsed as a task gives them. */
async function run(name: string, apps: AccessibleNode[] | null, expected: unknown, options: unknown = {}) {
  const m = a11yMetrics.find((x) => x.name === name);
  if (!m) throw new Error(`no metric ${name}`);
  return scoreOf(await m.run(apps === null ? null : buildAccessibilityXml(apps), expected, m.options.parse(options)));
}

/** The rules of a real task (its `rule` getter), when the OSWorld checkout is there; else the same rules as written here. */
function taskRules(path: string, fallback: unknown): unknown {
  try {
    return JSON.parse(readFileSync(`/tmp/osworld/evaluation_examples/examples/${path}`, "utf8")).evaluator.expected.rules;
  } catch {
    return fallback;
  }
}

const PILL = (a: string) => `tool-bar[attr|id=MsgHeadersToolbar] label[name=To]~[attr|class="address-pill"]>label[attr|class="pill-label"][name*="${a}"]`;
const ADDRESSES = ["fox", "iron", "nancy", "stella"].map((n) => `${n}@someuniversity.edu`);
const composeRules = taskRules(
  "multi_apps/f5c13cdd-205c-4719-a562-348ae5cd1d91.json",
  ADDRESSES.map((a) => ({ selectors: [PILL(a)] })),
);
const tabRules = taskRules("thunderbird/7b1e1ff9-bb85-49be-b01d-d6424be18cd0.json", [
  { selectors: ['application[name=Thunderbird] page-tab-list[attr|id="tabmail-tabs"]>page-tab[name="About Profiles"]'] },
]);
const accountRules = taskRules("thunderbird/15c3b339-88f7-4a86-ab16-e71c58dcb01e.json", [
  { xpath: "//application[@name='Thunderbird']//*[contains(text(), 'anonym-x2024@outlook.com') or contains(@name, 'anonym-x2024@outlook.com')]" },
  { xpath: "//application[@name='Thunderbird']//*[contains(@name, 'password') or contains(@name, 'Password')]" },
]);

describe("check_accessibility_tree with CSS selectors (the compose task)", () => {
  test("passes when the To row holds every address", async () => {
    expect((await run("check_accessibility_tree", [thunderbirdCompose(ADDRESSES)], composeRules)).score).toBe(1);
  });
  test("fails when an address is missing", async () => {
    const r = await run("check_accessibility_tree", [thunderbirdCompose(ADDRESSES.slice(0, 3))], composeRules);
    expect(r.score).toBe(0);
    expect(r.reason).toContain("stella@someuniversity.edu");
  });
  test("fails when the addresses are in the Cc row", async () => {
    expect((await run("check_accessibility_tree", [thunderbirdCompose(ADDRESSES, "Cc")], composeRules)).score).toBe(0);
  });
  test("the attr prefix stands for OSWorld's namespace: with the Windows map nothing matches; an unknown prefix is an error", async () => {
    expect((await run("check_accessibility_tree", [thunderbirdCompose(ADDRESSES)], composeRules, { osname: "windows" })).score).toBe(0);
    await expect(run("check_accessibility_tree", [thunderbirdCompose(ADDRESSES)], [{ selectors: ["[foo|id=x]"] }])).rejects.toThrow(/prefix/);
  });
});

test("a selector's prefix matches whatever prefix the document binds to that namespace", async () => {
  const m = a11yMetrics.find((x) => x.name === "check_accessibility_tree")!;
  const uri = "https://accessibility.ubuntu.example.org/ns/attributes";
  const xml = `<desktop-frame xmlns:a="${uri}" xmlns:b="${uri}" xmlns:attr="urn:other"><label b:id="x"/><label attr:id="y"/></desktop-frame>`;
  const score = async (sel: string) => scoreOf(await m.run(xml, [{ selectors: [sel] }], m.options.parse({}))).score;
  expect(await score("label[attr|id=x]")).toBe(1);
  expect(await score("label[attr|id=y]")).toBe(0);
});

describe("check_accessibility_tree with CSS selectors (the About Profiles task)", () => {
  test("passes when the tab is open", async () => {
    expect((await run("check_accessibility_tree", [thunderbirdTabs(["Inbox", "About Profiles"])], tabRules)).score).toBe(1);
  });
  test("fails when the tab is not open", async () => {
    expect((await run("check_accessibility_tree", [thunderbirdTabs(["Inbox", "Settings"])], tabRules)).score).toBe(0);
  });
  test("fails when the tab is in another tab list", async () => {
    expect((await run("check_accessibility_tree", [thunderbirdTabs(["About Profiles"], "other-tabs")], tabRules)).score).toBe(0);
  });
});

describe("check_accessibility_tree with XPath (the account task)", () => {
  test("passes when the address is typed and a password field shows", async () => {
    expect((await run("check_accessibility_tree", [thunderbirdAccount("anonym-x2024@outlook.com", "Password:")], accountRules)).score).toBe(1);
  });
  test("fails when another address is typed", async () => {
    const r = await run("check_accessibility_tree", [thunderbirdAccount("someone@outlook.com", "Password:")], accountRules);
    expect(r.score).toBe(0);
    expect(r.reason).toContain("xpath");
  });
  test("fails when there is no password field, or the address is in another application", async () => {
    expect((await run("check_accessibility_tree", [thunderbirdAccount("anonym-x2024@outlook.com", "Name:")], accountRules)).score).toBe(0);
    const elsewhere = app("gedit", [node("text", "", { text: "anonym-x2024@outlook.com" })]);
    const tree = [elsewhere, thunderbirdAccount("", "Password:")];
    expect((await run("check_accessibility_tree", tree, accountRules)).score).toBe(0);
  });
});

describe("check_accessibility_tree text rules", () => {
  const label = (text: string) => [app("gedit", [node("label", "status", { text, states: SHOWN }, [node("label", "inner", { text: "zzz" })])])];
  test("an exact text match scores 1", async () => {
    const rules = [{ xpath: "//label[@name='status']", text: "Saved", exact: true }];
    expect((await run("check_accessibility_tree", label("Saved"), rules)).score).toBe(1);
  });
  test("an exact mismatch scores 0, and fuzzy scores multiply (rapidfuzz ratio / 100)", async () => {
    expect((await run("check_accessibility_tree", label("Saved!"), [{ selectors: ["label[name=status]"], text: "Saved", exact: true }])).score).toBe(0);
    const fuzzy = { selectors: ["label[name=status]"], text: "Saved", exact: false };
    const r = await run("check_accessibility_tree", label("Saves"), [fuzzy, fuzzy]);
    expect(r.score).toBeCloseTo(0.8 * 0.8, 10);
    expect(r.reason).toContain("best text match 0.800");
  });
  test("the element's own leading text is compared, not its children's", async () => {
    const rules = [{ selectors: ["label[name=status]"], text: "zzz", exact: true }];
    expect((await run("check_accessibility_tree", label(""), rules)).score).toBe(0);
  });
  test("a rule with text but no exact, or with neither xpath nor selectors, is an error; no tree scores 0", async () => {
    await expect(run("check_accessibility_tree", label("x"), [{ xpath: "//label", text: "x" }])).rejects.toThrow(/exact/);
    await expect(run("check_accessibility_tree", label("x"), [{ text: "x", exact: true }])).rejects.toThrow(/xpath or selectors/);
    expect((await run("check_accessibility_tree", null, [{ xpath: "//label" }])).score).toBe(0);
  });
});

describe("check_left_panel", () => {
  test("passes when the Slides View pane is in the tree", async () => {
    expect((await run("check_left_panel", [impress(true)], undefined)).score).toBe(1);
  });
  test("fails when the pane is closed, or when a pane has another name", async () => {
    const closed = await run("check_left_panel", [impress(false)], undefined);
    expect(closed.score).toBe(0);
    expect(closed.reason).toContain("Slides View");
    expect((await run("check_left_panel", [app("soffice", [node("document frame", "Slides view")])], undefined)).score).toBe(0);
  });
  test("fails when no tree was read", async () => {
    expect((await run("check_left_panel", null, undefined)).score).toBe(0);
  });
});
