/**
 * `@pincer/controller/machines`: machines to run tasks on. A local machine is an Xvfb display and
 * a pincer-daemon started on this computer; a provider (local,
 * remote, or your own) hands out and resets machines, and a pool gives each concurrent slot its machines.
 */
export { startLocalMachine } from "./machines/localMachine.js";
export type { LocalMachine, LocalMachineOptions } from "./machines/localMachine.js";
export { localProvider, startLocalPool } from "./machines/localProvider.js";
export { checkPool, machinesOfEnvFlags, remotePool, remoteProvider } from "./machines/remoteProvider.js";
export { openPool } from "./machines/provider.js";
export { connectOptionsOf, diagnoseTls, loadMachinesFile, machineOfFlags } from "./machines/credentials.js";
export type { CredentialFlags, MachineSpec } from "./machines/credentials.js";
export type { EnvironmentPool, EnvironmentProvider, EnvironmentSlot, MachineReset, ProvidedMachine } from "./machines/provider.js";
