import type { EventEmitter } from "node:events";
import type { KeySpec } from "@pincer/shared";

/**
 * What the daemon's services need of a machine, one interface per job. A driver set fills each:
 * `native` (XTEST, MIT-SHM and the native spawner on X11; see desktop.ts, shmCapture.ts,
 * spawner.ts) or `portable` (nut-js, sharp and execa, for any desktop nut-js supports; see
 * nutDesktop.ts, execaSpawner.ts; both built in driverSets.ts). Services are written against these
 * interfaces only.
 */

export type MouseButtonName = "left" | "right" | "middle";

export interface PointXY {
  x: number;
  y: number;
}

/**
 * Pixels as packed 32-bit little-endian words: `bgrx` as X delivers them (blue in the low byte, the
 * top byte undefined) or `rgba` (red in the low byte), as the screenshot-desktop fallback decodes.
 * `data` must start on a 4-byte boundary.
 */
export interface Frame {
  data: Buffer;
  width: number;
  height: number;
  order: "bgrx" | "rgba";
}

export interface Region {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** What the daemon needs of a started command: its output, its exit, or why it did not start. */
export interface SpawnedCommand extends EventEmitter {
  on(event: "stdout" | "stderr", listener: (data: Buffer) => void): this;
  on(event: "exit", listener: (code: number | null, signal: NodeJS.Signals | null) => void): this;
}

export interface SpawnRequest {
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  stdin?: Buffer;
  detachedIo: boolean;
  /**
   * The pid may come late (up to 10 ms, or with the command's first output or its exit): a
   * command run to its end needs it only to be listed and stopped, and a short one then costs the
   * daemon one wake instead of two. Spawners that cannot wait send it at once.
   */
  latePid?: boolean;
  /**
   * `cwd` is the daemon's default (its home directory), which may not exist (system users such
   * as nobody): commands then start in / instead of failing as if the program were missing.
   */
  defaultCwd?: boolean;
}

export interface WindowInfo {
  id: number;
  title: string;
  instance: string;
  class: string;
  pid: number;
  geometry: { x: number; y: number; width: number; height: number };
  visible: boolean;
  focused: boolean;
}

export interface ScreenSize {
  width: number;
  height: number;
}

/** Pointer and keyboard. Positions are screen pixels; keys are resolved Pincer keys. */
export interface InputDriver {
  screenSize(): Promise<ScreenSize>;
  cursor(): Promise<PointXY>;
  move(to: PointXY): Promise<void>;
  buttonDown(button: MouseButtonName): Promise<void>;
  buttonUp(button: MouseButtonName): Promise<void>;
  /** `count` clicks in one burst, so applications see a double or triple click. */
  click(button: MouseButtonName, count: number): Promise<void>;
  /** Presses at the first point, moves through the rest, releases at the last. */
  drag(path: PointXY[], button: MouseButtonName, stepDelayMs: number, signal?: AbortSignal): Promise<void>;
  /** Wheel notches: positive dy down, positive dx right. */
  scroll(dx: number, dy: number): Promise<void>;
  /** Runs `body` with modifier keys held, releasing them whatever happens. */
  withModifiers<T>(modifiers: KeySpec[], body: () => Promise<T>): Promise<T>;
  keyDown(key: KeySpec): Promise<void>;
  keyUp(key: KeySpec): Promise<void>;
  /** Presses the keys in order and releases them in reverse, `repeat` times. */
  chord(keys: KeySpec[], repeat: number): Promise<void>;
  type(text: string, opts: { charDelayMs?: number; signal?: AbortSignal }): Promise<void>;
  /** Keys held down through keyDown and not yet released, by name. */
  heldKeys(): Promise<string[]>;
}

/** Notices that the screen may have changed, for screen streams (X DAMAGE on the native set). */
export interface ScreenChanges {
  /** False once the source is gone (the X connection closed): streams fall back to polling. */
  readonly alive: boolean;
  /** Calls `listener` when the screen changes after the last {@link rearm}; returns the unsubscribe. */
  subscribe(listener: () => void): () => void;
  /** Clears what was seen so far: called just before a capture, so a change during it is noticed again. */
  rearm(): void;
}

/** The screen's pixels. */
export interface ScreenDriver {
  screenSize(): Promise<ScreenSize>;
  cursor(): Promise<PointXY>;
  /** Calls `use` with the region's pixels, which stay valid only during the call. */
  withFrame<T>(region: Region, use: (frame: Frame) => T): Promise<T>;
  /** The region's pixels as 4-byte words without row padding, into `into` when given: frames to compare. */
  raw(region: Region, into: Buffer | undefined): Promise<Buffer>;
  /** Capabilities beyond capture itself, for GetInfo (`screen.capture.shm`). */
  extraCapabilities(): Promise<string[]>;
  /** Change notices, where the display gives them; screen streams poll without. */
  changes?(): Promise<ScreenChanges | undefined>;
}

export interface WindowsDriver {
  list(includeHidden?: boolean): Promise<WindowInfo[]>;
  focus(id: number): Promise<WindowInfo>;
  close(id: number, force: boolean): Promise<void>;
}

export interface ClipboardDriver {
  get(): Promise<string>;
  set(text: string): Promise<void>;
}

/**
 * Starts commands for the process table (processes.ts). `id` names a command to `pause` and `kill`;
 * `signal` reaches a command's whole process tree by its pid.
 */
export interface CommandSpawner {
  spawn(req: SpawnRequest, onSpawned?: (pid: number) => void): { command: SpawnedCommand; pid: Promise<number>; id: number };
  /** Stops (true) or resumes (false) reading a command's output. */
  pause(id: number, paused: boolean): void;
  /** Kills everything command `id` started, as far as this spawner can follow it. */
  kill(id: number): void;
  /** Sends `signal` to the process tree led by `pid`; false when it is gone. */
  signal(pid: number, signal: NodeJS.Signals): boolean;
  /**
   * Gets ready to start commands now, so that the first command does not wait: starts a helper
   * process, and prepares `env`, the environment most commands get.
   */
  warmUp(env?: Readonly<Record<string, string>>): void;
  close(): void;
}

export type DriverSetName = "native" | "portable";
export type DriverJob = "input" | "screen" | "windows" | "clipboard" | "processes";

/** The drivers one daemon runs with, chosen at start (`--drivers`). */
export interface DriverSet {
  readonly name: DriverSetName;
  /** What does each job, for GetInfo and the log: "xtest", "nut-js", "execa"… */
  readonly parts: Record<DriverJob, string>;
  /** The X display the drivers use ("" where there is none, as on Windows and macOS). */
  readonly displayName: string;
  readonly input: InputDriver;
  readonly screen: ScreenDriver;
  windows(): Promise<WindowsDriver>;
  clipboard(): Promise<ClipboardDriver>;
  /** A new spawner for a process table. */
  spawner(): CommandSpawner;
  /** Begins what takes long to get ready (loading nut-js), so that the first call does not wait for it all. */
  warmUp(): void;
  /** Gives back memory held between calls (the capture's buffers), called while the daemon is idle. */
  releaseMemory(): Promise<void>;
  close(): Promise<void>;
}
