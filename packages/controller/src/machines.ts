/**
 * `@pincer/controller/machines`: machines to run tasks on. A local machine is an Xvfb display and
 * a pincer-daemon started on this computer; a pool gives each concurrent slot its machines.
 */
export { startLocalMachine } from "./machines/localMachine.js";
export type { LocalMachine, LocalMachineOptions } from "./machines/localMachine.js";
export { checkPool, machinesOfEnvFlags, remotePool, startLocalPool } from "./machines/pool.js";
export { connectOptionsOf, diagnoseTls, loadMachinesFile, machineOfFlags } from "./machines/credentials.js";
export type { CredentialFlags, MachineSpec } from "./machines/credentials.js";
export type { EnvironmentPool, EnvironmentSlot } from "./machines/pool.js";
