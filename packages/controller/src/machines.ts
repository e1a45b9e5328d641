/**
 * `@pincer/controller/machines`: machines to run tasks on. A local machine is an Xvfb display and
 * a pincer-daemon started on this computer; a provider (local, remote, container, qemu, or your own)
 * hands out and resets machines, and a pool gives each concurrent slot its machines. Images for the
 * container and qemu providers come from {@link buildImage}.
 */
export { defaultDaemonCommand, startLocalMachine } from "./machines/localMachine.js";
export type { LocalMachine, LocalMachineOptions } from "./machines/localMachine.js";
export { localProvider, startLocalPool } from "./machines/localProvider.js";
export type { LocalProviderOptions } from "./machines/localProvider.js";
export { checkPool, machinesOfEnvFlags, remotePool, remoteProvider } from "./machines/remoteProvider.js";
export { openPool } from "./machines/provider.js";
export { openPoolFromSpec, poolProviderOf } from "./machines/selectPool.js";
export type { PoolProviderName, PoolSpec, PoolSpecContext } from "./machines/selectPool.js";
export { connectOptionsOf, diagnoseTls, loadMachinesFile, machineSpecOf } from "./machines/credentials.js";
export type { DefaultCredentials, MachineSpec } from "./machines/credentials.js";
export type { MachinePool, MachineProvider, MachineSlot, MachineReset, ProvidedMachine } from "./machines/provider.js";
export { containerProvider } from "./machines/containerProvider.js";
export type { ContainerProvider, ContainerProviderOptions } from "./machines/containerProvider.js";
export { openEngine } from "./machines/dockerEngine.js";
export type { DockerEngine } from "./machines/dockerEngine.js";
export { qemuProvider } from "./machines/qemuProvider.js";
export type { QemuProvider, QemuProviderOptions } from "./machines/qemuProvider.js";
export { buildImage, planImage, resolveImage } from "./machines/images/build.js";
export type { ImageBuildOptions, ImageManifest, ImageOutput } from "./machines/images/build.js";
export { PROFILES, PROFILE_NAMES } from "./machines/images/profiles.js";
export type { Profile, ProfileName } from "./machines/images/profiles.js";
/** The API interfaces of an `env` (the handle to one machine) and their options and results. */
export type { ButtonOptions, ClickOptions, DragOptions, MouseApi, ScrollOptions } from "./env/mouse.js";
export type { KeyboardApi, PressOptions, TypeOptions } from "./env/keyboard.js";
export type { ScreenApi } from "./env/screen.js";
export type { DriverInfo, SystemApi, SystemInfo } from "./env/system.js";
export type {
  DownloadOptions,
  FilesApi,
  FileType,
  ListOptions,
  ListResult,
  MakeDirOptions,
  MoveOptions,
  ReadOptions,
  RemoveOptions,
  TransferOptions,
  TransferProgress,
  TransferResult,
  UploadOptions,
} from "./env/files.js";
export type { LaunchOptions, LaunchResult, ProcessApi, ProcessInfo, RunOptions, StartOptions } from "./env/process.js";
export type { ClipboardApi } from "./env/clipboard.js";
export type { CloseWindowOptions, ListWindowsOptions, WindowsApi } from "./env/windows.js";
export type { AccessibilityApi, AccessibilityTreeOptions } from "./env/accessibility.js";
