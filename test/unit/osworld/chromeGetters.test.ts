import { readFileSync } from "node:fs";
import initSqlJs from "sql.js";
import { describe, expect, test } from "vitest";
import type { AccessibleNode } from "../../../packages/controller/src/env/accessibility.js";
import { chromeTimestamp, EMPTY_HISTORY_URL } from "../../../packages/controller/src/datasets/osworld/chrome/history.js";
import { ServerFrames, textFrame } from "../../../packages/controller/src/datasets/osworld/chrome/websocket.js";
import { fakeMachine, get, hasChrome, put, step } from "./chromeMachine.js";

// OSWorld's Chrome getters (getters/chrome.py) on a recording machine: the profile's files where
// Chrome keeps them (or Chromium, where it stands in), the History database, and the address bar
// read from the accessibility tree. The DevTools getters run against a real Chromium in
// test/integration/osworldChrome.test.ts.

const CHROMIUM = "/home/user/.config/chromium";
const CHROME = "/home/user/.config/google-chrome";

describe("profile files", () => {
  test("Preferences are read from Chromium's profile where Chrome is absent, from Chrome's where it is there", async () => {
    const chromium = fakeMachine(hasChrome(false));
    put(chromium, `${CHROMIUM}/Default/Preferences`, {
      default_search_provider_data: { template_url_data: { short_name: "Bing" } },
      enable_do_not_track: true,
    });
    expect(await get(chromium, "default_search_engine")).toBe("Bing");
    expect(await get(chromium, "enable_do_not_track")).toBe("true");
    const chrome = fakeMachine(hasChrome(true));
    put(chrome, `${CHROME}/Default/Preferences`, { profile: { name: "Thomas" } });
    expect(await get(chrome, "profile_name")).toBe("Thomas");
    // Chrome keeps no search engine of its own choosing there: OSWorld's default.
    expect(await get(chrome, "default_search_engine")).toBe("Google");
  });

  test("a missing or unreadable file, or a value of the wrong kind, gives OSWorld's fallback for each getter", async () => {
    const m = fakeMachine(hasChrome(false));
    expect(await get(m, "enable_do_not_track")).toBe("false");
    expect(await get(m, "new_startup_page")).toBe("Google");
    expect(await get(m, "chrome_font_size")).toEqual({ default_fixed_font_size: 13, default_font_size: 16 });
    expect(await get(m, "enabled_experiments")).toEqual([]);
    put(m, `${CHROMIUM}/Default/Preferences`, "{not json");
    expect(await get(m, "profile_name")).toBeNull();
    put(m, `${CHROMIUM}/Default/Preferences`, {
      safebrowsing: { enabled: true },
      session: { restore_on_startup: 5 },
      extensions: { settings: { a: { path: "/x" } } },
    });
    expect(await get(m, "enable_safe_browsing")).toBe("true");
    expect(await get(m, "enable_enhanced_safety_browsing")).toBe("false");
    expect(await get(m, "new_startup_page")).toBe("true");
    expect(await get(m, "find_unpacked_extension_path")).toEqual(["/x"]);
    // An extension without a manifest makes OSWorld's loop raise, caught: its fallback.
    expect(await get(m, "find_installed_extension_name")).toBe("Google");
    expect(await get(m, "data_delete_automacally")).toBe("Google");
    put(m, `${CHROMIUM}/Default/Preferences`, { profile: { default_content_setting_values: {} }, webkit: { webprefs: { default_font_size: 20 } } });
    expect(await get(m, "data_delete_automacally")).toBe("true");
    expect(await get(m, "chrome_font_size")).toEqual({ default_font_size: 20 });
    put(m, `${CHROMIUM}/Local State`, { browser: { enabled_labs_experiments: ["a@1"] }, intl: { app_locale: "de" } });
    expect(await get(m, "enabled_experiments")).toEqual(["a@1"]);
    expect(await get(m, "chrome_language")).toBe("de");
  });

  test("bookmarks gives the roots, [] without a file; an unreadable file raises, as OSWorld does not catch it", async () => {
    const m = fakeMachine(hasChrome(false));
    expect(await get(m, "bookmarks")).toEqual([]);
    put(m, `${CHROMIUM}/Default/Bookmarks`, { roots: { bookmark_bar: { children: [], type: "folder" } }, version: 1 });
    expect(await get(m, "bookmarks")).toEqual({ bookmark_bar: { children: [], type: "folder" } });
    put(m, `${CHROMIUM}/Default/Bookmarks`, "{");
    await expect(get(m, "bookmarks")).rejects.toThrow(SyntaxError);
  });

  test("chrome_color_scheme reads the newest profile that says light or dark; system_theme 0 is light", async () => {
    const m = fakeMachine(hasChrome(false));
    put(m, `${CHROMIUM}/Default/Preferences`, { browser: { theme: { color_scheme2: 2 } } }, 1000);
    put(m, `${CHROMIUM}/Profile 1/Preferences`, { browser: { theme: { color_scheme: "system" } } }, 2000);
    expect(await get(m, "chrome_color_scheme")).toBe("dark");
    put(m, `${CHROMIUM}/Profile 1/Preferences`, { extensions: { theme: { system_theme: 0 } } }, 3000);
    expect(await get(m, "chrome_color_scheme")).toBe("light");
  }, 20_000);
});

/** A History database with Chrome's urls and visits tables, as SQLite bytes. */
async function historyDb(rows: Array<[string, string, number]>): Promise<Buffer> {
  const SQL = await initSqlJs();
  const db = new SQL.Database();
  db.run(
    "CREATE TABLE urls(id INTEGER PRIMARY KEY AUTOINCREMENT, url LONGVARCHAR, title LONGVARCHAR, visit_count INTEGER DEFAULT 0 NOT NULL, " +
      "typed_count INTEGER DEFAULT 0 NOT NULL, last_visit_time INTEGER NOT NULL, hidden INTEGER DEFAULT 0 NOT NULL)",
  );
  db.run(
    "CREATE TABLE visits(id INTEGER PRIMARY KEY AUTOINCREMENT, url INTEGER NOT NULL, visit_time INTEGER NOT NULL, from_visit INTEGER, " +
      "transition INTEGER DEFAULT 0 NOT NULL, segment_id INTEGER, visit_duration INTEGER DEFAULT 0 NOT NULL)",
  );
  for (const r of rows) db.run("INSERT INTO urls (url, title, last_visit_time) VALUES (?, ?, ?)", r);
  const bytes = Buffer.from(db.export());
  db.close();
  return bytes;
}

describe("launching and stopping the browser", () => {
  test("launch runs chromium for google-chrome, and stops it for pkill chrome, where Chrome is absent; Chrome's run as written", async () => {
    const chromium = fakeMachine(hasChrome(false));
    await step(chromium, "launch", { command: ["google-chrome", "--remote-debugging-port=1337"] });
    await step(chromium, "launch", { command: ["pkill", "chrome"] });
    expect(chromium.launched).toEqual([
      ["chromium", "--remote-debugging-port=1337"],
      ["pkill", "chromium"],
    ]);
    const chrome = fakeMachine(hasChrome(true));
    await step(chrome, "launch", { command: ["pkill", "chrome"] });
    await step(chrome, "launch", { command: ["pkill", "vlc"] });
    expect(chrome.launched).toEqual([
      ["pkill", "chrome"],
      ["pkill", "vlc"],
    ]);
  });
});

describe("History", () => {
  test("history reads every URL's url, title and last visit from the profile's History; null without one", async () => {
    const m = fakeMachine(hasChrome(false));
    expect(await get(m, "history", { dest: "history.sqlite" })).toBeNull();
    put(m, `${CHROMIUM}/Default/History`, await historyDb([["https://www.youtube.com/", "YouTube", 13_350_000_000_000_000]]));
    expect(await get(m, "history", { dest: "history.sqlite" })).toEqual([["https://www.youtube.com/", "YouTube", 13_350_000_000_000_000]]);
    expect(readFileSync(`${m.ctx.cacheDir}/history.sqlite`).subarray(0, 15).toString()).toBe("SQLite format 3");
    put(m, `${CHROMIUM}/Default/History`, "not a database");
    expect(await get(m, "history", { dest: "history.sqlite" })).toBeNull();
  });

  test("update_browse_history fills OSWorld's empty History with each visit, timed from now, and puts it in the profile", async () => {
    const m = fakeMachine(hasChrome(true), { [EMPTY_HISTORY_URL]: await historyDb([]) });
    const before = chromeTimestamp(3600);
    await step(m, "update_browse_history", {
      history: [
        { url: "https://www.youtube.com/watch?v=1", title: "One", visit_time_from_now_in_seconds: 3600 },
        { url: "https://www.bbc.co.uk/", title: "BBC", visit_time_from_now_in_seconds: 60 },
      ],
    });
    const SQL = await initSqlJs();
    const db = new SQL.Database(m.files.get(`${CHROME}/Default/History`)!.data);
    const urls = db.exec("SELECT id, url, title, visit_count, typed_count, last_visit_time, hidden FROM urls")[0]!.values;
    expect(urls.map((r) => r.slice(0, 5))).toEqual([
      [1, "https://www.youtube.com/watch?v=1", "One", 1, 0],
      [2, "https://www.bbc.co.uk/", "BBC", 1, 0],
    ]);
    // Microseconds since 1601 of the local wall clock, an hour and a minute ago.
    expect(Number(urls[0]![5]) - before).toBeGreaterThanOrEqual(0);
    expect(Number(urls[0]![5]) - before).toBeLessThan(5_000_000);
    expect(Number(urls[1]![5]) - Number(urls[0]![5])).toBeCloseTo(3_540_000_000, -7);
    expect(db.exec("SELECT url, transition FROM visits")[0]!.values).toEqual([
      [1, 805306368],
      [2, 805306368],
    ]);
  });
});

const node = (role: string, name: string, children: AccessibleNode[] = [], text = ""): AccessibleNode => ({
  role,
  name,
  description: "",
  states: [],
  text,
  value: "",
  attributes: {},
  children,
  app: "",
});

/** The browser's window with its address bar showing `url`. */
const browserTree = (app: string, url: string) => [
  node("application", "gnome-shell"),
  node(app === "Chromium" ? "application" : "application", app, [node("frame", "Google", [node("entry", "Address and search bar", [], url)])]),
];

describe("the active tab's URL, from the address bar", () => {
  test("active_url_from_accessTree puts goto_prefix (https:// by default) before the address bar's text of Chromium or Chrome", async () => {
    const m = fakeMachine(hasChrome(false));
    m.tree = browserTree("Chromium", "www.google.com/search?q=a");
    expect(await get(m, "active_url_from_accessTree")).toBe("https://www.google.com/search?q=a");
    expect(await get(m, "active_url_from_accessTree", { goto_prefix: "" })).toBe("www.google.com/search?q=a");
    // Chrome's bar, where Chromium is expected: not found.
    m.tree = browserTree("Google Chrome", "www.google.com");
    expect(await get(m, "active_url_from_accessTree")).toBeNull();
    const chrome = fakeMachine(hasChrome(true));
    chrome.tree = browserTree("Google Chrome", "");
    expect(await get(chrome, "active_url_from_accessTree")).toBeNull();
  });

  test("active_tab_url_parse takes query parameters (first value, '' when absent), renamed and split as asked", async () => {
    const m = fakeMachine(hasChrome(false));
    m.tree = browserTree("Chromium", "www.rentalcars.com/search?locationName=Z%C3%BCrich&puDay=3&modelList=a%2Cb,c&q=x&q=y");
    const parse = (c: Record<string, unknown>) => get(m, "active_tab_url_parse", { goto_prefix: "https://", ...c });
    expect(await parse({ parse_keys: ["locationName", "q", "doDay"] })).toEqual({ locationName: "Zürich", q: "x", doDay: "" });
    expect(await parse({ parse_keys: ["puDay", "q"], replace: { puDay: "time" } })).toEqual({ q: "x", time: "3" });
    expect(await parse({ parse_keys: ["modelList"], split_list: true })).toEqual({ modelList: ["a", "b", "c"] });
    await expect(parse({ parse_keys: ["q"], replace: { nope: "x" } })).rejects.toThrow(/KeyError/);
  });

  test("url_dashPart takes one '/'-separated part (Python's negative index too), as a string or under key", async () => {
    const m = fakeMachine(hasChrome(false));
    m.tree = browserTree("Chromium", "www.accuweather.com/en/gb/manchester/m15-6/july-weather/329260?year=2024");
    const dash = (c: Record<string, unknown>) => get(m, "url_dashPart", { goto_prefix: "https://", returnType: "string", ...c });
    expect(await dash({ partIndex: -2 })).toBe("july-weather");
    expect(await dash({ partIndex: "-1", needDeleteId: true })).toBe("329260");
    expect(await dash({ partIndex: -1, needDeleteId: false, returnType: "json", key: "id" })).toEqual({ id: "329260?year=2024" });
    expect(await dash({ partIndex: 99 })).toBeNull();
    expect(await dash({ partIndex: "x" })).toBeNull();
    await expect(dash({ partIndex: -99 })).rejects.toThrow(/IndexError/);
  });

  test("url_path_parse reads Macy's filter path", async () => {
    const m = fakeMachine(hasChrome(false));
    m.tree = browserTree(
      "Chromium",
      "www.macys.com/shop/mens-clothing/mens-casual-shirts/Men_regular_size_t,Price_discount_range,Sleeve_length/" +
        "L,50_PERCENT_%20off%20%26%20more,Short%20Sleeve?id=1",
    );
    expect(
      await get(m, "url_path_parse", {
        goto_prefix: "https://",
        parse_keys: ["mens_clothing", "shirts", "Men_regular_size_t", "Price_discount_range", "short_sleeve"],
      }),
    ).toEqual({ mens_clothing: true, shirts: true, short_sleeve: true, Men_regular_size_t: "L", Price_discount_range: "50_PERCENT_ off & more" });
  });
});

describe("DevTools' WebSocket frames", () => {
  test("client frames are masked; the server's answer is read after the upgrade, in pieces, with fragments joined", () => {
    const frame = textFrame("x".repeat(200), Buffer.from([1, 2, 3, 4]));
    expect([frame[0], frame[1], frame.readUInt16BE(2)]).toEqual([0x81, 0x80 | 126, 200]);
    expect(frame[8]! ^ 1).toBe("x".charCodeAt(0));
    const reader = new ServerFrames();
    const big = Buffer.from(JSON.stringify({ id: 1, result: { v: "é".repeat(40_000) } }));
    const head = Buffer.from([0x81, 127, 0, 0, 0, 0, 0, 0, 0, 0]);
    head.writeBigUInt64BE(BigInt(big.length), 2);
    const stream = Buffer.concat([
      Buffer.from("HTTP/1.1 101 WebSocket Protocol Handshake\r\nUpgrade: WebSocket\r\n\r\n"),
      Buffer.from([0x01, 3]),
      Buffer.from('{"a'),
      Buffer.from([0x80, 4]),
      Buffer.from('":1}'),
      head,
      big,
    ]);
    const got: string[] = [];
    for (let i = 0; i < stream.length; i += 7) got.push(...reader.push(stream.subarray(i, i + 7)));
    expect(got).toEqual(['{"a":1}', big.toString()]);
    expect(() => new ServerFrames().push(Buffer.from("HTTP/1.1 403 Forbidden\r\n\r\n"))).toThrow(/refused the WebSocket: HTTP\/1.1 403/);
  });
});
