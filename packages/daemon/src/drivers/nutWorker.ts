import { sleep } from "@pincer/shared";
/**
 * The process that holds nut-js for the portable driver set (see nutDesktop.ts): GUI input through
 * nut-js's mouse and keyboard, screen grabs through its screen. Forked by the daemon with an IPC
 * channel; it answers one request at a time, in order. libnut keeps one native display connection
 * open, and on X11 Xlib's I/O error handler exits the process when the X server goes away: that
 * ends this process, not the daemon, which starts a new one on its next call.
 */
import type { Key as NutKey } from "@nut-tree-fork/nut-js";

export type NutRequest =
  | { id: number; op: "size" | "cursor" }
  | { id: number; op: "move"; x: number; y: number }
  | { id: number; op: "button"; button: "left" | "right" | "middle"; action: "down" | "up" | "click"; count?: number }
  | { id: number; op: "scroll"; dx: number; dy: number }
  | { id: number; op: "keys"; keys: string[]; action: "down" | "up" }
  | { id: number; op: "strokes"; strokes: string[][]; delayMs: number }
  | { id: number; op: "type"; text: string }
  | { id: number; op: "grab"; x: number; y: number; width: number; height: number }
  | { id: number; op: "windows" | "clipboardGet" }
  | { id: number; op: "focus"; handle: number }
  | { id: number; op: "clipboardSet"; text: string };

/** A window as nut-js sees it (desktops without X11 only: on X11 libnut's window calls can kill the process). */
export interface NutWindow {
  handle: number;
  title: string;
  region: { left: number; top: number; width: number; height: number };
  active: boolean;
}

export type NutReply = { id: number; ok: true; value?: unknown } | { id: number; ok: false; message: string };

type Nut = typeof import("@nut-tree-fork/nut-js");

async function load(): Promise<Nut> {
  const nut = await import("@nut-tree-fork/nut-js");
  // The daemon paces input itself (a drag's step delay, typing's character delay): nut-js adds none.
  nut.mouse.config.autoDelayMs = 0;
  nut.mouse.config.mouseSpeed = Number.MAX_SAFE_INTEGER;
  nut.keyboard.config.autoDelayMs = 0;
  return nut;
}

function keysOf(nut: Nut, names: string[]): NutKey[] {
  return names.map((n) => {
    const k = nut.Key[n as keyof typeof nut.Key];
    if (k === undefined) throw new Error(`nut-js has no key ${n}`);
    return k;
  });
}

async function handle(nut: Nut, r: NutRequest): Promise<unknown> {
  const BUTTON = { left: nut.Button.LEFT, right: nut.Button.RIGHT, middle: nut.Button.MIDDLE };
  switch (r.op) {
    case "size":
      return { width: await nut.screen.width(), height: await nut.screen.height() };
    case "cursor": {
      const p = await nut.mouse.getPosition();
      return { x: p.x, y: p.y };
    }
    case "move":
      await nut.mouse.setPosition(new nut.Point(r.x, r.y));
      return undefined;
    case "button": {
      // nut-js's mouse provider (libnut) without the mouse's sleep(autoDelayMs) turn per call.
      const m = nut.providerRegistry.getMouse();
      if (r.action === "down") await m.pressButton(BUTTON[r.button]);
      else if (r.action === "up") await m.releaseButton(BUTTON[r.button]);
      else for (let i = 0; i < (r.count ?? 1); i++) await m.click(BUTTON[r.button]);
      return undefined;
    }
    case "scroll": {
      const m = nut.providerRegistry.getMouse();
      if (r.dy > 0) await m.scrollDown(r.dy);
      if (r.dy < 0) await m.scrollUp(-r.dy);
      if (r.dx > 0) await m.scrollRight(r.dx);
      if (r.dx < 0) await m.scrollLeft(-r.dx);
      return undefined;
    }
    case "keys": {
      // One key at a time, in the order given: nut-js's calls with several keys treat all but one as
      // modifiers. Through nut-js's keyboard provider (libnut), which its keyboard wraps with a
      // sleep(autoDelayMs) per call: even at 0 that is a timer turn, about 1 ms a key.
      const kb = nut.providerRegistry.getKeyboard();
      for (const k of keysOf(nut, r.keys)) {
        if (r.action === "down") await kb.pressKey(k);
        else await kb.releaseKey(k);
      }
      return undefined;
    }
    case "strokes": {
      const kb = nut.providerRegistry.getKeyboard();
      for (const [i, names] of r.strokes.entries()) {
        if (i > 0 && r.delayMs > 0) await sleep(r.delayMs);
        const keys = keysOf(nut, names);
        for (const k of keys) await kb.pressKey(k);
        for (const k of keys.reverse()) await kb.releaseKey(k);
      }
      return undefined;
    }
    case "type":
      await nut.keyboard.type(r.text);
      return undefined;
    case "windows":
      return windowsOf(nut);
    case "focus": {
      const w = (await nut.getWindows()).find((x) => handleOf(x) === r.handle);
      if (!w) throw new Error(`no window ${r.handle}`);
      return w.focus();
    }
    case "clipboardGet":
      return nut.clipboard.getContent();
    case "clipboardSet":
      await nut.clipboard.setContent(r.text);
      return undefined;
    case "grab": {
      const img = await nut.screen.grabRegion(new nut.Region(r.x, r.y, r.width, r.height));
      // BGRA, 4 bytes a pixel; rows may be padded on some platforms.
      return { data: img.data, width: img.width, height: img.height, byteWidth: img.byteWidth };
    }
  }
}

/** nut-js keeps a window's native handle in a field its types call private. */
function handleOf(w: object): number {
  return (w as { windowHandle: number }).windowHandle;
}

async function windowsOf(nut: Nut): Promise<NutWindow[]> {
  const active = await nut.getActiveWindow().then(
    (w) => handleOf(w),
    () => -1,
  );
  const out: NutWindow[] = [];
  for (const w of await nut.getWindows()) {
    const region = await w.region;
    const handle = handleOf(w);
    out.push({
      handle,
      title: await w.title,
      region: { left: region.left, top: region.top, width: region.width, height: region.height },
      active: handle === active,
    });
  }
  return out;
}

function main(): void {
  const loading = load();
  let chain: Promise<unknown> = Promise.resolve();
  process.on("message", (r: NutRequest) => {
    chain = chain.then(async () => {
      let reply: NutReply;
      try {
        reply = { id: r.id, ok: true, value: await handle(await loading, r) };
      } catch (err) {
        reply = { id: r.id, ok: false, message: err instanceof Error ? err.message : String(err) };
      }
      process.send?.(reply);
    });
  });
  // The daemon went away: nothing is left to answer.
  process.on("disconnect", () => process.exit(0));
  loading.then(
    () => process.send?.({ id: 0, ok: true }),
    (err: unknown) => {
      process.send?.({ id: 0, ok: false, message: `nut-js did not load: ${err instanceof Error ? err.message : String(err)}` });
      process.exit(1);
    },
  );
}

main();
