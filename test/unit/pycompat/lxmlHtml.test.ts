import { readFileSync } from "node:fs";
import { expect, test } from "vitest";
import { lxmlPrettyHtml } from "../../../packages/controller/src/datasets/pycompat/lxmlHtml.js";

// OSWorld's compare_epub compares e-book chapters as lxml pretty-prints them. The fixture holds what
// lxml printed for each of these documents and fragments (its `source` names the versions):
// Calibre's layout, tables, lists, comments, scripts, entities, attribute quoting, HTML5 elements,
// text without a charset (read as Latin-1), and a few unclosed or misnested tags.

const fixture = JSON.parse(readFileSync("test/fixtures/lxml-html.json", "utf8")) as { source: string; cases: Array<{ html: string; lxml: string }> };

test.each(fixture.cases.map((c, i) => [i, c] as const))("document %i prints as lxml prints it", (_i, c) => {
  expect(lxmlPrettyHtml(c.html)).toBe(c.lxml);
});
