import { hostname, platform, release, arch } from "node:os";
import { PINCER_VERSION, PROTOCOL_VERSION, type wire } from "@pincer/shared";
import type { WindowInfo } from "../drivers/windows.js";
import type { DriverSet } from "../drivers/drivers.js";
import type { Logger } from "../logger.js";
import { defineService, type DefinedService } from "./rpc.js";

const startedAt = Date.now();

/** A window as the wire has it (its WM_CLASS class in `class_name`). */
export function windowToWire(w: WindowInfo): wire.Window {
  return { id: w.id, title: w.title, instance: w.instance, className: w.class, pid: w.pid, geometry: w.geometry, visible: w.visible, focused: w.focused };
}

/** `warnings`: the daemon's own, e.g. that it runs without authentication (--insecure). */
export function systemService(drivers: DriverSet, log: Logger, daemonWarnings: readonly string[] = []): DefinedService<"System"> {
  return defineService("System", log, {
    GetInfo: async () => {
      const warnings: string[] = [...daemonWarnings];
      const capabilities: string[] = ["files", "process"];
      let screen: { width: number; height: number } | null = null;
      try {
        screen = await drivers.screen.screenSize();
        capabilities.push(
          "input.mouse",
          "input.keyboard",
          "input.unicode",
          "screen.capture",
          "screen.png",
          "screen.jpeg",
          "screen.webp",
          "screen.raw",
          "clipboard.text",
          "windows",
        );
        capabilities.push(...(await drivers.screen.extraCapabilities()));
      } catch (err) {
        warnings.push(`input, screen: ${(err as Error).message}`);
      }
      return {
        hostname: hostname(),
        os: platform(),
        osRelease: release(),
        arch: arch(),
        daemonVersion: PINCER_VERSION,
        protocolVersion: PROTOCOL_VERSION,
        nodeVersion: process.version,
        display: drivers.displayName,
        drivers: { set: drivers.name, ...drivers.parts },
        screen,
        capabilities,
        warnings,
        uptimeSeconds: (Date.now() - startedAt) / 1000,
      };
    },

    GetClipboard: async () => ({ text: await (await drivers.clipboard()).get() }),

    SetClipboard: async (req) => {
      await (await drivers.clipboard()).set(req.text);
      return {};
    },

    ListWindows: async (req) => ({
      windows: (await (await drivers.windows()).list(req.includeHidden)).map(windowToWire),
    }),

    FocusWindow: async (req) => windowToWire(await (await drivers.windows()).focus(req.id)),

    CloseWindow: async (req) => {
      await (await drivers.windows()).close(req.id, req.force);
      return {};
    },
  });
}
