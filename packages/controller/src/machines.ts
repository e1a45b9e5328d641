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
export { connectOptionsOf, diagnoseTls, loadMachinesFile, machineOfFlags, machineSpecOf } from "./machines/credentials.js";
export type { CredentialFlags, DefaultCredentials, MachineSpec } from "./machines/credentials.js";
export type { MachinePool, MachineProvider, MachineSlot, MachineReset, ProvidedMachine } from "./machines/provider.js";
export type { EnvironmentPool, EnvironmentProvider, EnvironmentSlot } from "./machines/provider.js";
export { containerProvider } from "./machines/containerProvider.js";
export type { ContainerProvider, ContainerProviderOptions } from "./machines/containerProvider.js";
export { openEngine } from "./machines/dockerEngine.js";
export type { DockerEngine } from "./machines/dockerEngine.js";
export { qemuProvider } from "./machines/qemuProvider.js";
export type { QemuProvider, QemuProviderOptions } from "./machines/qemuProvider.js";
export { buildImage, planImage, resolveImage } from "./machines/images/build.js";
export type { ImageBuildOptions, ImageFormat, ImageManifest, ImageOutput } from "./machines/images/build.js";
export { PROFILES, PROFILE_NAMES } from "./machines/images/profiles.js";
export type { Profile, ProfileName } from "./machines/images/profiles.js";
