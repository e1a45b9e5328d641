// Minimal typings for the parts of the `x11` package (pure-JS X11 protocol client) Pincer uses.
declare module "x11" {
  export interface XDisplay {
    client: XClient;
    screen: Array<{ root: number; pixel_width: number; pixel_height: number }>;
    min_keycode: number;
    max_keycode: number;
  }
  export interface XClient {
    // Requests are dynamic methods; each takes its arguments and an optional node-style callback.
    [request: string]: any;
    on(event: "error" | "end" | "close" | "event", listener: (...args: any[]) => void): void;
    require(ext: string, cb: (err: Error | null, ext: any) => void): void;
    terminate(): void;
  }
  export function createClient(options: { display?: string }, cb: (err: Error | null, display: XDisplay) => void): XClient;
}

declare module "screenshot-desktop" {
  function screenshot(options?: { format?: "png" | "jpg"; screen?: string; filename?: string }): Promise<Buffer>;
  export default screenshot;
}
