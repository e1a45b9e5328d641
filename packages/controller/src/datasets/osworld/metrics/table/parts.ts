import { parseXml, type XEl } from "../office/xml.js";
import { describeSheet, type SheetRef } from "./context.js";
import { partText, relsOf } from "./xlsx.js";
import type { Book } from "./xlsx.js";

/**
 * The parts of an xlsx that openpyxl reads beside the cells (drawings, charts, pivot tables), as
 * element trees; elements are found by local name, whatever prefix the file gives their namespace.
 */

/** An element's local name (`c:barChart` → `barChart`). */
export const localName = (el: XEl) => el.tag.slice(el.tag.indexOf(":") + 1);

/** The element children of `el` with local name `name` (all of them without a name). */
export function children(el: XEl | undefined, name?: string): XEl[] {
  if (!el) return [];
  return el.kids.filter((k): k is XEl => typeof k !== "string" && (name === undefined || localName(k) === name));
}

/** The first element child with local name `name`. */
export const child = (el: XEl | undefined, name: string): XEl | undefined => children(el, name)[0];

/** Follows a path of local names. */
export function childPath(el: XEl | undefined, ...names: string[]): XEl | undefined {
  let cur = el;
  for (const n of names) cur = child(cur, n);
  return cur;
}

/** An element's text (its text children joined), `null` when it has none. */
export function textOf(el: XEl | undefined): string | null {
  if (!el) return null;
  const s = el.kids.filter((k): k is string => typeof k === "string").join("");
  return s === "" ? null : s;
}

/** A part of the book, parsed; undefined when the book has no such part. */
export async function partXml(book: Book, path: string): Promise<XEl | undefined> {
  const text = await partText(book.zip, path);
  return text === undefined ? undefined : parseXml(text);
}

/** The targets of a part's relationships of a type (its last path segment, e.g. "drawing"), in the rels file's order. */
export async function relTargets(book: Book, part: string, type: string): Promise<string[]> {
  return [...(await relsOf(book.zip, part)).values()].filter((r) => r.type.endsWith(`/${type}`)).map((r) => r.target);
}

/** A relationship's target by id. */
export async function relTarget(book: Book, part: string, id: string | undefined): Promise<string | undefined> {
  return id === undefined ? undefined : (await relsOf(book.zip, part)).get(id)?.target;
}

/** openpyxl's `Bool` of an attribute: absent is `fallback`; "false", "f" and "0" are false, any other text true. */
export function pyBool(v: string | undefined, fallback: boolean | null): boolean | null {
  if (v === undefined) return fallback;
  return !["false", "f", "0"].includes(v) && v !== "";
}

/** openpyxl's `Integer` of an attribute (`null` when absent); throws where `int()` would raise. */
export function pyInt(v: string | undefined): number | null {
  if (v === undefined) return null;
  if (!/^\s*[-+]?\d+\s*$/.test(v)) throw new Error(`${JSON.stringify(v)} is not an integer`);
  return Number.parseInt(v, 10);
}

/**
 * Reads something of a sheet that OSWorld reads from openpyxl's workbook: where reading the
 * result fails (openpyxl cannot load what the agent saved), the rule fails with the reason;
 * where the expected file fails, the task is wrong and the error is thrown.
 */
export async function readSide<T>(s: SheetRef, read: () => Promise<T>): Promise<T | string> {
  try {
    return await read();
  } catch (e) {
    if (s.side === "expected") throw e;
    return `${describeSheet(s)} cannot be read as openpyxl reads it: ${(e as Error).message}`;
  }
}
