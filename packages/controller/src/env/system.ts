import type { wire } from "@pincer/shared";
import type { PromiseClient } from "./rpc.js";
import type { CallOptions, Size } from "./types.js";

/** What a machine is and what its daemon can do. */
export interface SystemInfo {
  hostname: string;
  /** `os.platform()` of the machine: "linux", "darwin", "win32". */
  os: string;
  osRelease: string;
  arch: string;
  daemonVersion: string;
  protocolVersion: string;
  nodeVersion: string;
  /** The X display the daemon drives (":1"), empty when none. */
  display: string;
  /** The screen's size, or null when no display is usable. */
  screen: Size | null;
  /** What works on this machine ("files", "process", and "input", "screen", … when a display is usable). */
  capabilities: string[];
  /** Why a capability is missing ("input: cannot open display :9"), and exposure warnings. */
  warnings: string[];
  uptimeSeconds: number;
  /**
   * The drivers that do the daemon's work (`pincer-daemon --drivers`): the set (`native` or
   * `portable`) and what does each job (`xtest`/`nut-js` input, `mit-shm`/`nut-js` screen,
   * `pincer-spawner`/`execa` processes…); null from a daemon older than this field.
   */
  drivers: DriverInfo | null;
}

/** What does each job of a daemon (GetInfo's `drivers`); see `pincer-daemon --drivers` in docs/daemon.md. */
export interface DriverInfo {
  set: string;
  input: string;
  screen: string;
  windows: string;
  clipboard: string;
  processes: string;
}

/** The machine itself. */
export interface SystemApi {
  /** Host, OS, versions, display and capabilities. */
  info(opts?: CallOptions): Promise<SystemInfo>;
}

function toSystemInfo(r: wire.GetInfoResponse__Output): SystemInfo {
  return {
    hostname: r.hostname,
    os: r.os,
    osRelease: r.osRelease,
    arch: r.arch,
    daemonVersion: r.daemonVersion,
    protocolVersion: r.protocolVersion,
    nodeVersion: r.nodeVersion,
    display: r.display,
    screen: r.screen ? { width: r.screen.width, height: r.screen.height } : null,
    capabilities: [...r.capabilities],
    warnings: [...r.warnings],
    uptimeSeconds: r.uptimeSeconds,
    drivers: r.drivers ? { ...r.drivers } : null,
  };
}

/** `env.system` over the System service. */
export function createSystemApi(system: PromiseClient<"System">): SystemApi {
  return { info: async (o = {}) => toSystemInfo(await system.GetInfo({}, o)) };
}
