import { NotFoundError } from "@pincer/shared";
import type { WindowInfo } from "./drivers.js";
import type { XConnection } from "./xConnection.js";

export type { WindowInfo } from "./drivers.js";

const ANY_PROPERTY_TYPE = 0;
const MAP_STATE_VIEWABLE = 2;

/** Reads a property's bytes, or undefined when the window does not have it. */
async function property(x: XConnection, wid: number, name: string): Promise<{ type: number; data: Buffer } | undefined> {
  const atom = await x.atom(name);
  const p = await x.request<{ type: number; data: Buffer }>("GetProperty", 0, wid, atom, ANY_PROPERTY_TYPE, 0, 64 * 1024).catch(() => undefined);
  return p && p.type !== 0 ? p : undefined;
}

/**
 * Top-level application windows on X11, found by walking the window tree: with a reparenting
 * window manager the application window is a child of a frame, without one it is a child of the
 * root. An application window is one that has WM_CLASS.
 */
export class XWindows {
  constructor(private readonly x: XConnection) {}

  private async clientWindows(): Promise<number[]> {
    const tree = await this.x.request<{ children: number[] }>("QueryTree", this.x.root);
    const found: number[] = [];
    for (const top of tree.children) {
      if (await property(this.x, top, "WM_CLASS")) {
        found.push(top);
        continue;
      }
      const inner = await this.x.request<{ children: number[] }>("QueryTree", top).catch(() => ({ children: [] as number[] }));
      for (const child of inner.children) if (await property(this.x, child, "WM_CLASS")) found.push(child);
    }
    return found;
  }

  async describe(wid: number): Promise<WindowInfo> {
    const x = this.x;
    const [netName, wmName, wmClass, pid, attrs, geom, origin, focus] = await Promise.all([
      property(x, wid, "_NET_WM_NAME"),
      property(x, wid, "WM_NAME"),
      property(x, wid, "WM_CLASS"),
      property(x, wid, "_NET_WM_PID"),
      x.request<{ mapState: number }>("GetWindowAttributes", wid),
      x.request<{ width: number; height: number; borderWidth: number }>("GetGeometry", wid),
      x.request<{ destX: number; destY: number }>("TranslateCoordinates", wid, x.root, 0, 0),
      x.request<{ focus: number }>("GetInputFocus"),
    ]).catch((err: unknown) => {
      throw new NotFoundError(`window ${wid}: no such window (${(err as Error).message})`);
    });
    const [instance = "", klass = ""] = (wmClass?.data.toString("latin1") ?? "").split("\0");
    return {
      id: wid,
      title: netName ? netName.data.toString("utf8") : (wmName?.data.toString("latin1") ?? ""),
      instance,
      class: klass,
      pid: pid && pid.data.length >= 4 ? pid.data.readUInt32LE(0) : 0,
      // The outer rectangle, border included, as xwininfo and window managers report it.
      geometry: {
        x: origin.destX - geom.borderWidth,
        y: origin.destY - geom.borderWidth,
        width: geom.width + 2 * geom.borderWidth,
        height: geom.height + 2 * geom.borderWidth,
      },
      visible: attrs.mapState === MAP_STATE_VIEWABLE,
      focused: focus.focus === wid,
    };
  }

  async list(includeHidden = false): Promise<WindowInfo[]> {
    const all = await Promise.all((await this.clientWindows()).map((w) => this.describe(w).catch(() => undefined)));
    return all.filter((w): w is WindowInfo => w !== undefined && (includeHidden || w.visible));
  }

  /** Raises the window and gives it the keyboard focus (through the window manager when there is one). */
  async focus(wid: number): Promise<WindowInfo> {
    await this.describe(wid);
    const x = this.x;
    const active = await x.atom("_NET_ACTIVE_WINDOW");
    // EWMH: ask the window manager (source 2 = pager/tool); harmless without one.
    x.send("SendEvent", x.root, 0, 0x180000 /* SubstructureRedirect | SubstructureNotify */, {
      name: "ClientMessage",
      format: 32,
      wid,
      message_type: active,
      data: [2, 0, 0, 0, 0],
    });
    x.send("RaiseWindow", wid);
    x.send("SetInputFocus", wid, 2 /* RevertToParent */);
    await x.sync();
    return this.describe(wid);
  }

  /** Asks the window to close with WM_DELETE_WINDOW, or disconnects its client when forced or unsupported. */
  async close(wid: number, force: boolean): Promise<void> {
    await this.describe(wid);
    const x = this.x;
    const protocols = await property(x, wid, "WM_PROTOCOLS");
    const deleteAtom = await x.atom("WM_DELETE_WINDOW");
    const supportsDelete =
      protocols !== undefined && Array.from({ length: protocols.data.length / 4 }, (_, i) => protocols.data.readUInt32LE(i * 4)).includes(deleteAtom);
    if (supportsDelete && !force) {
      x.send("SendEvent", wid, 0, 0, {
        name: "ClientMessage",
        format: 32,
        wid,
        message_type: await x.atom("WM_PROTOCOLS"),
        data: [deleteAtom, 0, 0, 0, 0],
      });
    } else {
      x.send("KillClient", wid);
    }
    await x.sync();
  }
}
