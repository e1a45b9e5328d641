import { readFile } from "node:fs/promises";
import { z } from "zod";
import type { OsworldContext } from "../context.js";
import { defineGetter, type OsworldGetter } from "../getter.js";
import { fetchProfileFile, profileJson } from "./browser.js";
import { pyTruthy } from "../../pycompat/pyValues.js";

/**
 * OSWorld's Chrome getters that read the profile's JSON files (getters/chrome.py): Preferences,
 * Local State and Bookmarks, with the same fallbacks where OSWorld catches an error (a missing
 * file, a value of the wrong kind).
 */

/** Python's `d.get(key, default)`; raises (throws) when `d` is not a dict, as `.get` on another type does. */
function pyGet(d: unknown, key: string, fallback: unknown): unknown {
  if (typeof d !== "object" || d === null || Array.isArray(d)) throw new TypeError(`'${Array.isArray(d) ? "list" : typeof d}' object has no attribute 'get'`);
  return Object.hasOwn(d, key) ? (d as Record<string, unknown>)[key] : fallback;
}

/** Python's `d[key]`; raises (throws) when absent. */
function pyItem(d: unknown, key: string): unknown {
  if (typeof d !== "object" || d === null || Array.isArray(d) || !Object.hasOwn(d, key)) throw new TypeError(`KeyError: '${key}'`);
  return (d as Record<string, unknown>)[key];
}

/**
 * A getter reading one profile JSON file: `read(data)` is OSWorld's body; a missing or unreadable
 * file, or anything `read` raises, gives `fallback` (logged), as OSWorld's `except` does.
 */
function fromProfileJson(name: string, file: string, fallback: unknown, read: (data: unknown) => unknown): OsworldGetter {
  return defineGetter({
    name,
    config: z.looseObject({}),
    get: async (_c, ctx) => {
      const data = await profileJson(ctx, file);
      if (data === undefined) return fallback;
      try {
        return read(data);
      } catch (err) {
        ctx.log(`${name}: ${(err as Error).message}`);
        return fallback;
      }
    },
  });
}

const PREFS = "Default/Preferences";
const LOCAL_STATE = "Local State";

/** `Profile.preferences["extensions"]["settings"]` entries, each through `pick`. */
const extensionsOf = (data: unknown, pick: (ext: unknown) => unknown) => {
  const all = pyGet(pyGet(data, "extensions", {}), "settings", {});
  return Object.keys(all as object).map((id) => pick(pyItem(all, id)));
};

/** The getters reading Preferences, Local State and Bookmarks. */
export const chromeProfileGetters: OsworldGetter[] = [
  fromProfileJson("default_search_engine", PREFS, "Google", (d) =>
    pyGet(pyGet(pyGet(d, "default_search_provider_data", {}), "template_url_data", {}), "short_name", "Google"),
  ),
  fromProfileJson("enabled_experiments", LOCAL_STATE, [], (d) => pyGet(pyGet(d, "browser", {}), "enabled_labs_experiments", [])),
  fromProfileJson("profile_name", PREFS, null, (d) => pyGet(pyGet(d, "profile", {}), "name", null)),
  fromProfileJson("chrome_language", LOCAL_STATE, "en-US", (d) => pyGet(pyGet(d, "intl", {}), "app_locale", "en-US")),
  fromProfileJson("chrome_font_size", PREFS, { default_fixed_font_size: 13, default_font_size: 16 }, (d) =>
    pyGet(pyGet(d, "webkit", {}), "webprefs", { default_fixed_font_size: 13, default_font_size: 16, minimum_font_size: 13 }),
  ),
  fromProfileJson("enable_do_not_track", PREFS, "false", (d) => (pyTruthy(pyGet(d, "enable_do_not_track", {})) ? "true" : "false")),
  fromProfileJson("enable_enhanced_safety_browsing", PREFS, "Google", (d) =>
    pyTruthy(pyGet(pyGet(d, "safebrowsing", {}), "enhanced", {})) ? "true" : "false",
  ),
  fromProfileJson("enable_safe_browsing", PREFS, "false", (d) => {
    const sb = pyGet(d, "safebrowsing", {});
    return pyTruthy(pyGet(sb, "enhanced", false)) || pyTruthy(pyGet(sb, "enabled", false)) ? "true" : "false";
  }),
  fromProfileJson("new_startup_page", PREFS, "Google", (d) => {
    if (pyGet(d, "session", undefined) === undefined) return "true";
    return pyGet(pyGet(d, "session", {}), "restore_on_startup", {}) === 5 ? "true" : "false";
  }),
  fromProfileJson("find_unpacked_extension_path", PREFS, "Google", (d) => extensionsOf(d, (e) => pyItem(e, "path"))),
  fromProfileJson("find_installed_extension_name", PREFS, "Google", (d) => extensionsOf(d, (e) => pyItem(pyItem(e, "manifest"), "name"))),
  fromProfileJson("data_delete_automacally", PREFS, "Google", (d) =>
    pyGet(pyItem(d, "profile"), "default_content_setting_values", null) !== null ? "true" : "false",
  ),
  // Unlike the others, OSWorld's get_bookmarks catches nothing: an unreadable file raises.
  defineGetter({
    name: "bookmarks",
    config: z.looseObject({}),
    get: async (_c, ctx: OsworldContext) => {
      const local = await fetchProfileFile(ctx, "Default/Bookmarks", "chrome-Bookmarks");
      const text = local === null ? "" : await readFile(local, "utf8");
      if (text === "") return [];
      return pyGet(JSON.parse(text), "roots", {});
    },
  }),
];
