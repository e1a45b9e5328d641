import { z } from "zod";
import { defineMetric, type MetricResult } from "../../metric.js";
import { fail } from "../../../../evaluators/verdict.js";
import { ruleKey, show } from "../common/outcome.js";
import { pyEqual, pyTruthy } from "../../../pycompat/pyValues.js";
import { isDict, pyIter, resultKey, ResultWouldRaise, scoring } from "./common.js";
import { compareUrls } from "./urls.js";

/**
 * OSWorld's metrics on what Chrome keeps in its profile (metrics/chrome.py): bookmarks, installed
 * extensions, cookies, history, the font size, lab experiments, and desktop shortcuts.
 */

const noOptions = z.strictObject({});

/** Python's `set(a) == set(b)` for lists of strings (or other scalars). */
function sameSet(a: unknown[], b: unknown[]): boolean {
  const key = (v: unknown) => JSON.stringify(typeof v === "boolean" ? Number(v) : v);
  const x = new Set(a.map(key));
  const y = new Set(b.map(key));
  return x.size === y.size && [...x].every((v) => y.has(v));
}

/** `[b[field] for b in bookmarks['bookmark_bar']['children'] if b['type'] == type]`. */
function barEntries(bookmarks: unknown, type: string, field: string): unknown[] {
  const children = resultKey(resultKey(bookmarks, "bookmark_bar"), "children");
  if (!Array.isArray(children)) throw new ResultWouldRaise("bookmark_bar.children is not a list");
  return children.filter((b) => resultKey(b, "type") === type).map((b) => resultKey(b, field));
}

/** All combinations of one URL from each alternative list (`itertools.product`). */
function* product(lists: unknown[][]): Generator<unknown[]> {
  if (lists.length === 0) {
    yield [];
    return;
  }
  for (const head of lists[0]!) for (const rest of product(lists.slice(1))) yield [head, ...rest];
}

/**
 * `is_expected_bookmarks(bookmarks, rule)` on the `bookmarks` getter's roots: the bookmark bar's
 * folder names (`bookmark_bar_folders_names`) or site URLs (`bookmark_bar_websites_urls`) are the
 * set `rule.names`/`rule.urls`; or (`liked_authors_websites_urls`) the bar's "Liked Authors" folder
 * holds exactly one URL of each of `rule.urls` (a URL or a list of accepted URLs).
 */
const isExpectedBookmarks = defineMetric({
  name: "is_expected_bookmarks",
  options: noOptions,
  run: (result, rule) =>
    scoring("is_expected_bookmarks", (): MetricResult => {
      if (!pyTruthy(result)) return fail("no bookmarks were read");
      const type = ruleKey("is_expected_bookmarks", rule, "type");
      if (type === "bookmark_bar_folders_names") {
        const names = barEntries(result, "folder", "name");
        const want = pyIter("is_expected_bookmarks", ruleKey("is_expected_bookmarks", rule, "names"));
        return sameSet(names, want) ? 1 : fail(`the bookmark bar's folders are ${show(names, 300)}, expected ${show(want, 300)}`);
      }
      if (type === "bookmark_bar_websites_urls") {
        const urls = barEntries(result, "url", "url");
        const want = pyIter("is_expected_bookmarks", ruleKey("is_expected_bookmarks", rule, "urls"));
        return sameSet(urls, want) ? 1 : fail(`the bookmark bar's sites are ${show(urls, 300)}, expected ${show(want, 300)}`);
      }
      if (type === "liked_authors_websites_urls") {
        const children = resultKey(resultKey(result, "bookmark_bar"), "children");
        if (!Array.isArray(children)) throw new ResultWouldRaise("bookmark_bar.children is not a list");
        const folder = children.find((b) => resultKey(b, "type") === "folder" && resultKey(b, "name") === "Liked Authors");
        if (!folder) return fail('the bookmark bar has no "Liked Authors" folder');
        const inner = resultKey(folder, "children");
        if (!Array.isArray(inner)) throw new ResultWouldRaise('"Liked Authors".children is not a list');
        const liked = inner.filter((b) => resultKey(b, "type") === "url").map((b) => resultKey(b, "url"));
        const alternatives = pyIter("is_expected_bookmarks", ruleKey("is_expected_bookmarks", rule, "urls")).map((u) =>
          typeof u === "string" ? [u] : pyIter("is_expected_bookmarks", u),
        );
        for (const combination of product(alternatives)) if (sameSet(combination, liked)) return 1;
        return fail(`"Liked Authors" holds ${show(liked, 300)}`);
      }
      throw new Error(`is_expected_bookmarks: rule type ${show(type)} is not supported (OSWorld raises TypeError)`);
    }),
});

/** The name OSWorld counts for an extension whose Web Store name changed. */
const canonicalExtension = (name: unknown) => (name === "Zoom for Google Chrome" ? "Zoom Chrome Extension" : name);

/** `is_expected_installed_extensions(names, expected)`: every name of `expected.expected` is installed (Zoom's two names are one). */
const isExpectedInstalledExtensions = defineMetric({
  name: "is_expected_installed_extensions",
  options: noOptions,
  run: (result, expected) =>
    scoring("is_expected_installed_extensions", () => {
      if (!pyTruthy(result)) return fail("no installed extensions were read");
      const want = pyIter("is_expected_installed_extensions", ruleKey("is_expected_installed_extensions", expected, "expected")).map(canonicalExtension);
      let installed: unknown[];
      try {
        installed = pyIter("is_expected_installed_extensions", result).map(canonicalExtension);
      } catch (e) {
        throw new ResultWouldRaise((e as Error).message);
      }
      const missing = want.filter((w) => !installed.some((i) => pyEqual(i, w)));
      return missing.length === 0 ? 1 : fail(`not installed: ${show(missing, 300)} (installed: ${show(installed, 300)})`);
    }),
});

/** The rows of a getter's table (lists of column values); raises where Python's indexing does. */
function rowsOf(v: unknown, what: string): unknown[][] {
  if (!Array.isArray(v)) throw new ResultWouldRaise(`the ${what} are ${show(v)}, not rows`);
  return v.map((r) => {
    if (!Array.isArray(r)) throw new ResultWouldRaise(`a ${what} row is ${show(r)}`);
    return r;
  });
}

/** `is_cookie_deleted(cookies, rule)`: with `rule.type` "domains", no cookie's host (column 1) is one of `rule.domains` (compare_urls). */
const isCookieDeleted = defineMetric({
  name: "is_cookie_deleted",
  options: noOptions,
  run: (result, rule) =>
    scoring("is_cookie_deleted", (): MetricResult => {
      const type = ruleKey("is_cookie_deleted", rule, "type");
      if (type !== "domains") throw new Error(`is_cookie_deleted: rule type ${show(type)} is not supported (OSWorld raises TypeError)`);
      const hosts = rowsOf(result, "cookies").map((c) => {
        if (c.length < 2) throw new ResultWouldRaise("a cookie row has no host column");
        return c[1];
      });
      for (const domain of pyIter("is_cookie_deleted", ruleKey("is_cookie_deleted", rule, "domains"))) {
        const left = hosts.find((h) => compareUrls(domain as string, h as string));
        if (left !== undefined) return fail(`a cookie of ${show(left)} is still there (${show(domain)})`);
      }
      return 1;
    }),
});

/** `check_history_deleted(history, rule)`: with `rule.type` "keywords", no visited URL (column 0) contains one of `rule.keywords`. */
const checkHistoryDeleted = defineMetric({
  name: "check_history_deleted",
  options: noOptions,
  run: (result, rule) =>
    scoring("check_history_deleted", (): MetricResult => {
      const type = ruleKey("check_history_deleted", rule, "type");
      if (type !== "keywords") throw new Error(`check_history_deleted: rule type ${show(type)} is not supported (OSWorld raises TypeError)`);
      const urls = rowsOf(result, "history entries").map((h) => h[0]);
      for (const keyword of pyIter("check_history_deleted", ruleKey("check_history_deleted", rule, "keywords"))) {
        if (typeof keyword !== "string") throw new Error(`check_history_deleted: keyword ${show(keyword)} is not a string`);
        const left = urls.find((u) => typeof u === "string" && u.includes(keyword));
        if (left !== undefined) return fail(`the history still has ${show(left)} (${show(keyword)})`);
      }
      return 1;
    }),
});

/** `check_font_size(font_size, rule)`: `default_font_size` is `rule.value` (type "value"), or strictly between `rule.min` and `rule.max` ("range"). */
const checkFontSize = defineMetric({
  name: "check_font_size",
  options: noOptions,
  run: (result, rule) =>
    scoring("check_font_size", (): MetricResult => {
      const size = resultKey(result, "default_font_size");
      const type = ruleKey("check_font_size", rule, "type");
      if (type === "value") {
        const want = ruleKey("check_font_size", rule, "value");
        return pyEqual(size, want) ? 1 : fail(`the default font size is ${show(size)}, expected ${show(want)}`);
      }
      if (type === "range") {
        const min = ruleKey("check_font_size", rule, "min") as number;
        const max = ruleKey("check_font_size", rule, "max") as number;
        if (typeof size !== "number") throw new ResultWouldRaise(`the default font size is ${show(size)}, not a number`);
        return min < size && size < max ? 1 : fail(`the default font size is ${size}, not between ${min} and ${max}`);
      }
      throw new Error(`check_font_size: rule type ${show(type)} is not supported (OSWorld raises TypeError)`);
    }),
});

/** `check_enabled_experiments(experiments, rule)`: with `rule.type` "names", the enabled experiments' names (before `@`) are `rule.names`, in order. */
const checkEnabledExperiments = defineMetric({
  name: "check_enabled_experiments",
  options: noOptions,
  run: (result, rule) =>
    scoring("check_enabled_experiments", (): MetricResult => {
      if (!Array.isArray(result)) throw new ResultWouldRaise(`the experiments are ${show(result)}, not a list`);
      const names = result.map((e) => {
        if (typeof e !== "string") throw new ResultWouldRaise(`experiment ${show(e)} is not a string`);
        return e.split("@")[0];
      });
      const type = ruleKey("check_enabled_experiments", rule, "type");
      if (type !== "names") throw new Error(`check_enabled_experiments: rule type ${show(type)} is not supported (OSWorld raises TypeError)`);
      const want = ruleKey("check_enabled_experiments", rule, "names");
      return pyEqual(names, want) ? 1 : fail(`the enabled experiments are ${show(names, 300)}, expected ${show(want, 300)}`);
    }),
});

/** Whether a `.desktop` file's `Key=` line matches `want`: equal, or either contains the other (`Name` ignores case). */
function lineMatches(content: string, key: "Name" | "Exec", want: string): boolean {
  if (content.includes(`${key}=${want}\n`)) return true;
  const fold = (s: string) => (key === "Name" ? s.toLowerCase() : s);
  for (const line of content.split("\n")) {
    if (!line.startsWith(`${key}=`)) continue;
    const actual = line.slice(key.length + 1);
    if (actual === want || fold(actual).includes(fold(want)) || fold(want).includes(fold(actual))) return true;
  }
  return false;
}

/** `is_shortcut_on_desktop(shortcuts, rule)`: a desktop shortcut's `Name=` (type "name") or `Exec=` (type "exec") line matches the rule's. */
const isShortcutOnDesktop = defineMetric({
  name: "is_shortcut_on_desktop",
  options: noOptions,
  run: (result, rule) =>
    scoring("is_shortcut_on_desktop", (): MetricResult => {
      if (!isDict(result)) throw new ResultWouldRaise(`the shortcuts are ${show(result)}, not a dict`);
      const type = ruleKey("is_shortcut_on_desktop", rule, "type");
      if (type !== "name" && type !== "exec") throw new Error(`is_shortcut_on_desktop: rule type ${show(type)} is not supported (OSWorld raises TypeError)`);
      const key = type === "name" ? "Name" : "Exec";
      const want = ruleKey("is_shortcut_on_desktop", rule, type);
      if (typeof want !== "string") throw new Error(`is_shortcut_on_desktop: rules.${type} must be a string`);
      for (const content of Object.values(result)) if (typeof content === "string" && lineMatches(content, key, want)) return 1;
      return fail(`no desktop shortcut has ${key}=${show(want)} (shortcuts: ${show(Object.keys(result), 300)})`);
    }),
});

/** OSWorld's metrics on Chrome's profile. */
export const chromeProfileMetrics = [
  isExpectedBookmarks,
  isExpectedInstalledExtensions,
  isCookieDeleted,
  checkHistoryDeleted,
  checkFontSize,
  checkEnabledExperiments,
  isShortcutOnDesktop,
];
