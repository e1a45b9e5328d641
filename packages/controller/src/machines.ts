/**
 * `@pincer/controller/machines`: machines to run tasks on. A local machine is an Xvfb display and
 * a pincer-daemon started on this computer; a pool gives each concurrent slot its machines.
 */
export { startLocalMachine } from "./machines/localMachine.js";
export type { LocalMachine, LocalMachineOptions } from "./machines/localMachine.js";
export { remotePool, startLocalPool } from "./machines/pool.js";
export type { EnvironmentPool, EnvironmentSlot } from "./machines/pool.js";
