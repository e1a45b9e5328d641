import { describe, expect, test } from "vitest";
import { parseQs, unquote, urlparse, urlunparse } from "../../../packages/controller/src/datasets/pycompat/pyUrl.js";

// The expected values are what CPython 3.11.7's urllib.parse gives for the same strings.

const URLS = [
  "https://User@Example.COM:8080/a/./b/../c;p=1?q=1&q=2&r=#Frag",
  "example.com/path?x=1",
  "//host/p",
  "mailto:me@x.org",
  "file:///tmp/a%20b",
  "http://[::1]:80/x?a=%41&b=c+d&=e&f",
];

describe("urllib.parse", () => {
  test("urlparse: nothing lower-cased or normalised, no scheme means all path, params split off", () => {
    const parts = (u: string) => {
      const p = urlparse(u);
      return [p.scheme, p.netloc, p.path, p.params, p.query, p.fragment];
    };
    expect(URLS.map(parts)).toEqual([
      ["https", "User@Example.COM:8080", "/a/./b/../c", "p=1", "q=1&q=2&r=", "Frag"],
      ["", "", "example.com/path", "", "x=1", ""],
      ["", "host", "/p", "", "", ""],
      ["mailto", "", "me@x.org", "", "", ""],
      ["file", "", "/tmp/a%20b", "", "", ""],
      ["http", "[::1]:80", "/x", "", "a=%41&b=c+d&=e&f", ""],
    ]);
  });

  test("urlunparse of urlparse(url)._replace(query='')", () => {
    expect(URLS.map((u) => urlunparse({ ...urlparse(u), query: "" }))).toEqual([
      "https://User@Example.COM:8080/a/./b/../c;p=1#Frag",
      "example.com/path",
      "//host/p",
      "mailto:me@x.org",
      "file:///tmp/a%20b",
      "http://[::1]:80/x",
    ]);
  });

  test("parse_qs: blank values dropped, + is a space, %XX decoded", () => {
    const qs = (u: string) => Object.fromEntries(parseQs(urlparse(u).query));
    expect(URLS.map(qs)).toEqual([{ q: ["1", "2"] }, { x: ["1"] }, {}, {}, {}, { a: ["A"], b: ["c d"], "": ["e"] }]);
  });

  test("unquote: UTF-8, invalid bytes become U+FFFD, a stray % stays", () => {
    expect(["a%20b%2Fc", "%E2%82%AC%", "%zz%4", "%C3%28", "plus+stays"].map(unquote)).toEqual(["a b/c", "€%", "%zz%4", "\ufffd(", "plus+stays"]);
  });
});
