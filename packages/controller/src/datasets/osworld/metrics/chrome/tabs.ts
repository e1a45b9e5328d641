import { z } from "zod";
import { defineMetric, type MetricResult } from "../../metric.js";
import { fail } from "../../../../evaluators/verdict.js";
import { ruleKey, show } from "../common/outcome.js";
import { pyContains, pyTruthy } from "../../../pycompat/pyValues.js";
import { pyRegex } from "../../../pycompat/pyRegex.js";
import { urlparse, urlunparse } from "../../../pycompat/pyUrl.js";
import { isDict, pyIter, resultKey, ResultWouldRaise, scoring } from "./common.js";
import { compareUrls } from "./urls.js";

/**
 * OSWorld's metrics on Chrome's tabs and pages (metrics/chrome.py): the active tab's URL (from
 * `active_tab_info`, a dict with `url`, or `active_url_from_accessTree`, a string), the open tabs
 * (`open_tabs_info`), and a page's content.
 */

const noOptions = z.strictObject({});

/** The URL of `active_tab_info` (a dict's `url`, None when absent) or of a URL string. */
function urlOf(info: unknown): string | null {
  if (isDict(info)) return typeof info.url === "string" ? info.url : null;
  if (typeof info === "string") return info;
  throw new ResultWouldRaise(`the active tab is ${show(info)}, neither a URL nor a dict`);
}

/** `is_expected_active_tab(active_tab_info, rule)`: with `rule.type` "url", the tab's URL is `rule.url` (compare_urls). */
const isExpectedActiveTab = defineMetric({
  name: "is_expected_active_tab",
  options: noOptions,
  run: (result, rule) =>
    scoring("is_expected_active_tab", () => {
      if (!pyTruthy(result)) return fail("no active tab was read");
      const type = ruleKey("is_expected_active_tab", rule, "type");
      if (type !== "url") return fail(`unknown rule type ${show(type)}`);
      const expected = ruleKey("is_expected_active_tab", rule, "url") as string | null;
      const actual = urlOf(result);
      return compareUrls(expected, actual) ? 1 : fail(`the active tab is at ${show(actual)}, expected ${show(expected)}`);
    }),
});

/** `strip_query`: the URL without its query string. */
const stripQuery = (url: string) => urlunparse({ ...urlparse(url), query: "" });

/** `is_expected_active_tab_approximate(active_tab_info, rule)`: the URLs are equal once their queries are dropped. */
const isExpectedActiveTabApproximate = defineMetric({
  name: "is_expected_active_tab_approximate",
  options: noOptions,
  run: (result, rule) =>
    scoring("is_expected_active_tab_approximate", () => {
      if (!pyTruthy(result)) return fail("no active tab was read");
      const type = ruleKey("is_expected_active_tab_approximate", rule, "type");
      if (type !== "url") return fail(`unknown rule type ${show(type)}`);
      const expected = ruleKey("is_expected_active_tab_approximate", rule, "url");
      const actual = urlOf(result);
      if (typeof expected !== "string") throw new Error(`is_expected_active_tab_approximate: rules.url must be a string, got ${show(expected)}`);
      if (actual === null) throw new ResultWouldRaise("the active tab has no URL (urlparse(None) raises)");
      return stripQuery(expected) === stripQuery(actual) ? 1 : fail(`the active tab is at ${show(actual)}, expected ${show(expected)} (query ignored)`);
    }),
});

/** `is_expected_url_pattern_match(result, rules)`: every regex of `rules.expected` is found (re.search) in the tab's URL. */
const isExpectedUrlPatternMatch = defineMetric({
  name: "is_expected_url_pattern_match",
  options: noOptions,
  run: (result, rules) =>
    scoring("is_expected_url_pattern_match", () => {
      if (!pyTruthy(result)) return fail("no active tab was read");
      const url = typeof result === "string" ? result : isDict(result) && Object.hasOwn(result, "url") ? result.url : undefined;
      if (url === undefined) return fail(`the result is ${show(result)}, neither a URL nor a dict with a url`);
      if (typeof url !== "string") throw new ResultWouldRaise(`the tab's url is ${show(url)}, not a string`);
      for (const pattern of pyIter("is_expected_url_pattern_match", ruleKey("is_expected_url_pattern_match", rules, "expected"))) {
        if (typeof pattern !== "string") throw new Error(`is_expected_url_pattern_match: pattern ${show(pattern)} is not a string`);
        if (!pyRegex(pattern).test(url)) return fail(`${show(url)} does not match ${show(pattern)}`);
      }
      return 1;
    }),
});

/** `are_lists_equal(a, b, compare_urls)`: the same length, and each of `a` equal to some item of `b`. */
function sameUrls(expected: unknown[], actual: unknown[]): string | undefined {
  if (expected.length !== actual.length) return `${actual.length} tab(s) open, expected ${expected.length}`;
  for (const e of expected) {
    if (!actual.some((a) => compareUrls(e as string | null, a as string | null))) return `no open tab is at ${show(e)}`;
  }
  return undefined;
}

/** `is_expected_tabs(open_tabs, rule)`: with `rule.type` "url", the open tabs' URLs are `rule.urls` (any order, compare_urls). */
const isExpectedTabs = defineMetric({
  name: "is_expected_tabs",
  options: noOptions,
  run: (result, rule) =>
    scoring("is_expected_tabs", () => {
      if (!pyTruthy(result)) return fail("no open tabs were read");
      const type = ruleKey("is_expected_tabs", rule, "type");
      if (type !== "url") return fail(`unknown rule type ${show(type)}`);
      const expected = ruleKey("is_expected_tabs", rule, "urls");
      if (!Array.isArray(expected)) throw new Error(`is_expected_tabs: rules.urls must be a list, got ${show(expected)}`);
      if (!Array.isArray(result)) throw new ResultWouldRaise(`the open tabs are ${show(result)}, not a list`);
      const why = sameUrls(
        expected,
        result.map((t) => resultKey(t, "url")),
      );
      return why
        ? fail(
            `${why}; open: ${show(
              result.map((t) => (t as { url: unknown }).url),
              400,
            )}`,
          )
        : 1;
    }),
});

/** `is_expected_search_query(active_tab_info, rules)`: `rules.expect.pattern` is found (re.search) in the tab's URL. */
const isExpectedSearchQuery = defineMetric({
  name: "is_expected_search_query",
  options: noOptions,
  run: (result, rules) =>
    scoring("is_expected_search_query", () => {
      if (!pyTruthy(result)) return fail("no active tab was read");
      const pattern = ruleKey("is_expected_search_query", ruleKey("is_expected_search_query", rules, "expect"), "pattern");
      if (typeof pattern !== "string") throw new Error(`is_expected_search_query: the pattern must be a string, got ${show(pattern)}`);
      const url = resultKey(result, "url");
      if (typeof url !== "string") throw new ResultWouldRaise(`the tab's url is ${show(url)}, not a string`);
      return pyRegex(pattern).test(url) ? 1 : fail(`${show(url)} does not match ${show(pattern)}`);
    }),
});

/** `is_added_to_steam_cart(active_tab_info, rule)`: each of `rule.items` is in the page's HTML. */
const isAddedToSteamCart = defineMetric({
  name: "is_added_to_steam_cart",
  options: noOptions,
  run: (result, rule) =>
    scoring("is_added_to_steam_cart", (): MetricResult => {
      const items = pyIter("is_added_to_steam_cart", ruleKey("is_added_to_steam_cart", rule, "items"));
      const content = resultKey(result, "content");
      for (const item of items) {
        let found: boolean;
        try {
          found = pyContains(content, item);
        } catch (e) {
          throw new ResultWouldRaise((e as Error).message);
        }
        if (!found) return fail(`the page does not contain ${show(item)}`);
      }
      return 1;
    }),
});

/** OSWorld's metrics on Chrome's tabs. */
export const chromeTabMetrics = [
  isExpectedActiveTab,
  isExpectedActiveTabApproximate,
  isExpectedUrlPatternMatch,
  isExpectedTabs,
  isExpectedSearchQuery,
  isAddedToSteamCart,
];
