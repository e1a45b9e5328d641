import type { wire } from "@pincer/shared";
import type { PromiseClient } from "./rpc.js";
import type { CallOptions, Region } from "./types.js";

/** A top-level window. */
export interface WindowInfo {
  /** The X window id. */
  id: number;
  title: string;
  /** WM_CLASS instance name, e.g. "xterm". */
  instance: string;
  /** WM_CLASS class name, e.g. "XTerm". */
  class: string;
  /** The owning process (_NET_WM_PID), 0 when the program does not set it. */
  pid: number;
  /** Position and size on the screen. */
  geometry: Region;
  visible: boolean;
  focused: boolean;
}

/** Options of {@link WindowsApi.list}. */
export interface ListWindowsOptions extends CallOptions {
  /** Include unmapped (hidden) windows. @default false */
  includeHidden?: boolean;
}

/** Options of {@link WindowsApi.close}. */
export interface CloseWindowOptions extends CallOptions {
  /** Disconnect the window's client instead of asking it to close (WM_DELETE_WINDOW). @default false */
  force?: boolean;
}

/** Top-level windows of the display. */
export interface WindowsApi {
  /** The top-level application windows. */
  list(opts?: ListWindowsOptions): Promise<WindowInfo[]>;
  /** Raises and focuses a window; resolves with its state afterwards. */
  focus(id: number, opts?: CallOptions): Promise<WindowInfo>;
  /** Asks a window to close, or disconnects its client with `force`. */
  close(id: number, opts?: CloseWindowOptions): Promise<void>;
}

/** Whether `w` is the window asked for: its title contains `title`, its WM_CLASS (class or instance) is `class`; an unset one matches any. */
export function windowMatches(w: Pick<WindowInfo, "title" | "class" | "instance">, want: { title?: string | undefined; class?: string | undefined }): boolean {
  return (!want.title || w.title.includes(want.title)) && (!want.class || w.class === want.class || w.instance === want.class);
}

/** A window as the wire sends it, in the controller's terms. */
export function toWindowInfo(w: wire.Window__Output): WindowInfo {
  return {
    id: w.id,
    title: w.title,
    instance: w.instance,
    class: w.className,
    pid: w.pid,
    geometry: { x: w.geometry?.x ?? 0, y: w.geometry?.y ?? 0, width: w.geometry?.width ?? 0, height: w.geometry?.height ?? 0 },
    visible: w.visible,
    focused: w.focused,
  };
}

/** `env.windows` over the System service. */
export function createWindowsApi(system: PromiseClient<"System">): WindowsApi {
  return {
    list: async (o = {}) => (await system.ListWindows({ includeHidden: o.includeHidden ?? false }, o)).windows.map(toWindowInfo),
    focus: async (id, o = {}) => toWindowInfo(await system.FocusWindow({ id }, o)),
    close: async (id, o = {}) => {
      await system.CloseWindow({ id, force: o.force ?? false }, o);
    },
  };
}
