import { createRequire } from "node:module";
import type * as X11 from "x11";
import { FailedPreconditionError } from "@pincer/shared";

const require = createRequire(import.meta.url);
const x11 = require("x11") as typeof X11;

/**
 * The predefined atoms, copied before any connection exists. The x11 package caches every interned
 * atom in one object shared by all its connections (`client.atoms` is the module's stdatoms), so
 * after the X server restarts a new connection would reuse the old server's atom ids ("Bad atom").
 * Each connection gets its own copy of the predefined ones instead.
 */
const PREDEFINED_ATOMS: Readonly<Record<string, number>> = { ...(require("x11/lib/stdatoms") as Record<string, number>) };

/** Gives a new x11 client atom tables of its own. */
function ownAtomTables(client: X11.XClient): void {
  client.atoms = { ...PREDEFINED_ATOMS };
  client.atom_names = Object.fromEntries(Object.entries(PREDEFINED_ATOMS).map(([name, id]) => [id, name]));
}

/** An X event as the x11 package parses it; `name` selects the other fields. */
export interface XEvent {
  name: string;
  [field: string]: unknown;
}

/** XTEST FakeInput event types. */
export const XTEST = { KeyPress: 2, KeyRelease: 3, ButtonPress: 4, ButtonRelease: 5, MotionNotify: 6 } as const;

/**
 * One persistent X11 connection with the XTEST extension. Holding it open also keeps an Xvfb that
 * was started without -noreset from resetting between calls.
 */
export interface XConnection {
  readonly displayName: string;
  readonly root: number;
  readonly screenWidth: number;
  readonly screenHeight: number;
  readonly minKeycode: number;
  readonly maxKeycode: number;
  /** Sends a request that has a reply and waits for it. */
  request<T>(name: string, ...args: unknown[]): Promise<T>;
  /** Sends a request without a reply (errors arrive asynchronously and are logged). */
  send(name: string, ...args: unknown[]): void;
  /** Queues one XTEST fake input event. */
  fakeInput(type: number, detail: number, x?: number, y?: number): void;
  /** Round trip: resolves once the server has processed everything sent before it. */
  sync(): Promise<void>;
  /** Listens to X events delivered to this connection's windows. */
  onEvent(listener: (event: XEvent) => void): void;
  /** Interns an atom (cached). */
  atom(name: string): Promise<number>;
  /** Loads an X extension of the x11 package (e.g. "shm"); rejects when the server lacks it. */
  // biome-ignore lint/suspicious/noExplicitAny: the x11 package has no types for its extensions
  requireExtension(name: string): Promise<any>;
  /** Allocates a resource id for a new window or other resource. */
  allocId(): number;
  /** True once the server closed the connection. */
  readonly closed: boolean;
  close(): void;
}

function noDisplayHelp(displayName: string): string {
  return (
    `start an X server and point the daemon at it: \`Xvfb ${displayName || ":1"} -screen 0 1920x1080x24 -noreset &\` ` +
    `then \`pincer-daemon --display ${displayName || ":1"}\` (or set DISPLAY). Wayland sessions are not supported; use an X11 session.`
  );
}

/** Opens a connection to `displayName` (":1") and loads XTEST, or fails with FAILED_PRECONDITION. */
export function openXConnection(displayName: string, timeoutMs = 5_000): Promise<XConnection> {
  if (!displayName) {
    const wayland = process.env.WAYLAND_DISPLAY ? ` (WAYLAND_DISPLAY=${process.env.WAYLAND_DISPLAY} is set, but Wayland is not supported)` : "";
    return Promise.reject(new FailedPreconditionError(`no X display configured${wayland}: ${noDisplayHelp("")}`));
  }
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (why: string) => {
      if (settled) return;
      settled = true;
      reject(new FailedPreconditionError(`cannot open X display ${displayName} (${why}): ${noDisplayHelp(displayName)}`));
    };
    const timer = setTimeout(() => fail(`no answer within ${timeoutMs} ms`), timeoutMs);
    let client: X11.XClient;
    try {
      client = x11.createClient({ display: displayName }, (err, display) => {
        if (err) {
          clearTimeout(timer);
          fail(err.message);
          return;
        }
        const X = display.client;
        // The handshake (init) has just set the shared tables; nothing was interned yet.
        ownAtomTables(X);
        X.require("xtest", (xtErr, xtest) => {
          clearTimeout(timer);
          if (xtErr || !xtest) {
            settled = true;
            X.terminate();
            reject(
              new FailedPreconditionError(
                `X display ${displayName} has no XTEST extension, which input needs: start the X server with XTEST enabled (Xvfb has it by default)`,
              ),
            );
            return;
          }
          if (settled) return X.terminate();
          settled = true;
          resolve(makeConnection(displayName, display, xtest));
        });
      });
    } catch (err) {
      clearTimeout(timer);
      fail((err as Error).message);
      return;
    }
    client.on("error", (err: Error) => {
      clearTimeout(timer);
      fail(err.message);
    });
  });
}

// biome-ignore lint/suspicious/noExplicitAny: the x11 package has no types for its extensions
function makeConnection(displayName: string, display: X11.XDisplay, xtest: any): XConnection {
  const X = display.client;
  const screen = display.screen[0]!;
  let closed = false;
  X.on("error", () => {
    // Errors of requests without replies (FakeInput, SendEvent to a window that just went away)
    // arrive here, long after the request and without saying which call sent it: they cannot be
    // reported to the right caller, and an unhandled 'error' event would crash the daemon.
  });
  const atoms = new Map<string, Promise<number>>();
  X.on("end", () => (closed = true));
  X.on("close", () => (closed = true));
  return {
    displayName,
    root: screen.root,
    screenWidth: screen.pixel_width,
    screenHeight: screen.pixel_height,
    minKeycode: display.min_keycode,
    maxKeycode: display.max_keycode,
    get closed() {
      return closed;
    },
    request<T>(name: string, ...args: unknown[]): Promise<T> {
      return new Promise((resolve, reject) => {
        if (closed) return reject(new FailedPreconditionError(`X display ${displayName} closed the connection; is the X server still running?`));
        X[name](...args, (err: Error | null, result: T) => (err ? reject(err) : resolve(result)));
      });
    },
    onEvent(listener: (event: XEvent) => void): void {
      X.on("event", listener);
    },
    atom(name: string): Promise<number> {
      let a = atoms.get(name);
      if (!a) {
        a = this.request<number>("InternAtom", false, name);
        atoms.set(name, a);
        a.catch(() => atoms.delete(name));
      }
      return a;
    },
    allocId(): number {
      return X.AllocID();
    },
    // biome-ignore lint/suspicious/noExplicitAny: the x11 package has no types for its extensions
    requireExtension(name: string): Promise<any> {
      return new Promise((resolve, reject) => X.require(name, (err, ext) => (err ? reject(err) : resolve(ext))));
    },
    send(name: string, ...args: unknown[]): void {
      X[name](...args);
    },
    fakeInput(type: number, detail: number, x = 0, y = 0): void {
      xtest.FakeInput(type, detail, 0, 0, x, y);
    },
    async sync(): Promise<void> {
      await this.request("GetInputFocus");
    },
    close(): void {
      if (!closed) {
        closed = true;
        X.terminate();
      }
    },
  };
}
