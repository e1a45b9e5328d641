import { Desktop } from "./desktop.js";
import type { DriverJob, DriverSet, DriverSetName } from "./drivers.js";
import { ExecaSpawner } from "./execaSpawner.js";
import { NutDesktop } from "./nutDesktop.js";
import { type CaptureMethod, releaseCaptureBuffers } from "./screen.js";
import { chooseSpawner, Spawner, type SpawnerKind } from "./spawner.js";

/**
 * The driver set to run: `asked` when given (`--drivers`), else `native` on Linux (X11) and
 * `portable` elsewhere. `native` needs Linux: its input and capture speak X11 and its spawner is a
 * Linux program. Throws with what to do instead.
 */
export function chooseDriverSet(asked: string | undefined, platform: NodeJS.Platform = process.platform): DriverSetName {
  if (asked === undefined || asked === "" || asked === "auto") return platform === "linux" ? "native" : "portable";
  if (asked === "portable") return "portable";
  if (asked === "native") {
    if (platform !== "linux") throw new Error(`--drivers native needs Linux with X11 (this is ${platform}); use --drivers portable, the default here`);
    return "native";
  }
  throw new Error(`--drivers ${asked}: use native, portable or auto`);
}

/** Whether a portable set on `platform` drives an X11 display (Linux and the BSDs) or the platform's own desktop. */
export function portableUsesX11(platform: NodeJS.Platform = process.platform): boolean {
  return platform !== "win32" && platform !== "darwin";
}

export interface DriverSetOptions {
  display: string;
  captureMethod?: CaptureMethod;
  /** The native set's spawner (see spawner.ts's chooseSpawner). */
  spawner?: SpawnerKind;
  platform?: NodeJS.Platform;
}

function nativeScreenPart(method: CaptureMethod): string {
  if (method === "screenshot-desktop") return "screenshot-desktop";
  return method === "auto" ? "mit-shm" : "getimage";
}

/** XTEST input, MIT-SHM (or GetImage) capture, X11 windows and clipboard, the native (or Node) spawner. */
function nativeSet(o: DriverSetOptions): DriverSet {
  const method = o.captureMethod ?? "auto";
  const desktop = new Desktop(o.display, method);
  const kind = o.spawner;
  const parts: Record<DriverJob, string> = {
    input: "xtest",
    screen: nativeScreenPart(method),
    windows: "x11",
    clipboard: "x11",
    processes: (kind ?? chooseSpawner()) === "native" ? "pincer-spawner" : "node-spawner",
  };
  return {
    name: "native",
    parts,
    displayName: o.display,
    input: desktop,
    screen: desktop,
    windows: () => desktop.windows(),
    clipboard: () => desktop.clipboard(),
    spawner: () => new Spawner(kind),
    warmUp: () => undefined,
    releaseMemory: () => {
      releaseCaptureBuffers();
      return desktop.releaseMemory();
    },
    close: () => desktop.close(),
  };
}

/**
 * nut-js input and capture (in a child process), sharp encoding, execa commands. On X11 the
 * windows and clipboard use the same X calls as the native set (nut-js has no clipboard of its own
 * there and its window calls end its process on an X error); elsewhere nut-js does them.
 */
function portableSet(o: DriverSetOptions): DriverSet {
  const platform = o.platform ?? process.platform;
  const x11 = portableUsesX11(platform);
  const desktop = x11 ? new Desktop(o.display, "auto") : undefined;
  const nut = new NutDesktop({
    display: x11 ? o.display : "",
    ...(desktop
      ? {
          reachable: async () => (await desktop.connection()).x,
          typeOutsideLayout: (text, opts) => desktop.type(text, opts),
          swapHorizontalScroll: true,
        }
      : {}),
  });
  const windows = desktop ? undefined : nut.windowsDriver();
  const clipboard = desktop ? undefined : nut.clipboardDriver();
  return {
    name: "portable",
    parts: { input: "nut-js", screen: "nut-js", windows: x11 ? "x11" : "nut-js", clipboard: x11 ? "x11" : "nut-js", processes: "execa" },
    displayName: x11 ? o.display : "",
    input: nut,
    screen: nut,
    windows: async () => (desktop ? desktop.windows() : windows!),
    clipboard: async () => (desktop ? desktop.clipboard() : clipboard!),
    spawner: () => new ExecaSpawner(platform),
    warmUp: () => nut.warmUp(),
    releaseMemory: async () => {
      releaseCaptureBuffers();
      await desktop?.releaseMemory();
    },
    close: async () => {
      await nut.close();
      await desktop?.close();
    },
  };
}

export function openDriverSet(name: DriverSetName, o: DriverSetOptions): DriverSet {
  return name === "native" ? nativeSet(o) : portableSet(o);
}
