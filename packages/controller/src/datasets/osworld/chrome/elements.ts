import { sleep } from "@pincer/shared";
import type { OsworldContext } from "../context.js";
import { CdpError, cdpExchange, evaluateInPage } from "./devtools.js";

/**
 * Playwright's element actions on an open page, over DevTools: wait for a selector (attached or
 * visible), read its `innerText` or an attribute, click it with the mouse at its centre, fill an
 * input. Selectors are CSS, looked up in open shadow roots too.
 */

/** What to wait for: in the DOM, or also with a box on screen. */
export type ElementState = "attached" | "visible";

// Runs in the page: waits up to `ms` for the first element matching `css` (in `state`), then does `act` on it.
const ACT = `async (css, state, ms, act, arg) => {
  const find = () => {
    const walk = (node) => {
      for (const el of node.children) {
        if (el.matches(css)) return el;
        const inner = (el.shadowRoot && walk(el.shadowRoot)) || walk(el);
        if (inner) return inner;
      }
      return null;
    };
    const el = walk(document);
    if (!el) return null;
    if (state === 'visible') { const r = el.getBoundingClientRect(); if (!r.width || !r.height || getComputedStyle(el).visibility === 'hidden') return null; }
    return el;
  };
  const until = Date.now() + ms;
  let el = find();
  while (!el && Date.now() < until) { await new Promise((r) => setTimeout(r, 100)); el = find(); }
  if (!el) return { missing: true };
  if (act === 'innerText') return { value: el.innerText };
  if (act === 'attribute') return { value: el.getAttribute(arg) };
  if (act === 'textContent') return { value: el.textContent };
  if (act === 'focus') { el.focus(); if (typeof el.select === 'function') el.select(); return { value: null }; }
  el.scrollIntoView({ block: 'center', inline: 'center' });
  const r = el.getBoundingClientRect();
  if (!r.width || !r.height) return { hidden: true };
  return { value: { x: r.left + r.width / 2, y: r.top + r.height / 2 } };
}`;

/** Waits for an element and does `act` on it; throws Playwright's timeout when it does not appear. */
async function onElement(ctx: OsworldContext, id: string, css: string, state: ElementState, timeoutMs: number, act: string, arg?: string): Promise<unknown> {
  const deadline = Date.now() + timeoutMs;
  let r: { value?: unknown; missing?: boolean; hidden?: boolean };
  for (;;) {
    const left = Math.max(0, deadline - Date.now());
    try {
      const call = `(${ACT})(${JSON.stringify(css)}, "${state}", ${left}, "${act}", ${JSON.stringify(arg ?? null)})`;
      r = (await evaluateInPage(ctx, id, call, left + 15_000)) as typeof r;
      break;
    } catch (err) {
      // A navigation replaced the document while it waited: wait on in the new one, as Playwright does.
      if (!(err instanceof CdpError) || !/context|navigat/i.test(err.message) || Date.now() >= deadline) throw err;
      await sleep(100);
    }
  }
  if (r.missing) throw new Error(`waiting for ${css} to be ${state}: timeout ${timeoutMs} ms exceeded`);
  if (r.hidden) throw new Error(`${css} is not visible`);
  return r.value;
}

/** `page.wait_for_selector(css, state).inner_text()`. */
export const innerTextOf = (ctx: OsworldContext, id: string, css: string, timeoutMs: number) =>
  onElement(ctx, id, css, "attached", timeoutMs, "innerText") as Promise<string>;

/** `page.wait_for_selector(css, state).get_attribute(name)` (null when absent). */
export const attributeOf = (ctx: OsworldContext, id: string, css: string, name: string, timeoutMs: number) =>
  onElement(ctx, id, css, "attached", timeoutMs, "attribute", name) as Promise<string | null>;

/** Clicks the element's centre with the left mouse button, once it is attached (or visible) and scrolled into view. */
export async function clickElement(ctx: OsworldContext, id: string, css: string, state: ElementState, timeoutMs: number): Promise<void> {
  const at = (await onElement(ctx, id, css, state, timeoutMs, "click")) as { x: number; y: number };
  const mouse = (type: string) => ({ method: "Input.dispatchMouseEvent", params: { type, x: at.x, y: at.y, button: "left", clickCount: 1 } });
  await cdpExchange(ctx, `/devtools/page/${id}`, [mouse("mouseMoved"), mouse("mousePressed"), mouse("mouseReleased")], { timeoutMs: 15_000 });
}

/** `page.fill(css, text)`: focuses the (visible) input, selects its content and types `text` over it. */
export async function fillElement(ctx: OsworldContext, id: string, css: string, text: string, timeoutMs: number): Promise<void> {
  await onElement(ctx, id, css, "visible", timeoutMs, "focus");
  await cdpExchange(ctx, `/devtools/page/${id}`, [{ method: "Input.insertText", params: { text } }], { timeoutMs: 15_000 });
}

/** Waits for an element (attached or visible) and gives nothing back; throws on timeout. */
export const waitForSelector = async (ctx: OsworldContext, id: string, css: string, state: ElementState, timeoutMs: number) => {
  await onElement(ctx, id, css, state, timeoutMs, "textContent");
};
