import { existsSync } from "node:fs";
import { InvalidArgumentError } from "@pincer/shared";
import type { ConnectOptions } from "../env/remoteEnv.js";
import { loadMachinesFile, type DefaultCredentials, type MachineSpec } from "./credentials.js";
import { resolveImage } from "./images/build.js";
import { localProvider } from "./localProvider.js";
import { openPool, type MachinePool, type MachineProvider } from "./provider.js";
import { checkPool, machinesOfEnvFlags, remoteProvider } from "./remoteProvider.js";
import { sandboxSupport } from "./sandbox.js";

/** The providers a {@link PoolSpec} chooses from. */
export type PoolProviderName = "local" | "remote" | "container" | "qemu";

/**
 * What pool to open: which provider, its settings, and the machines of each slot. A plain object
 * that {@link openPoolFromSpec} only reads (a frozen one works). The `pincer` CLI builds one from
 * its `--provider`, `--image`, `--env`, `--machines`, … flags.
 */
export interface PoolSpec {
  /** The environment names each slot gets a machine for (those of the tasks to run). */
  names: readonly string[];
  /** How many slots (tasks at once). */
  concurrency: number;
  /**
   * Where machines come from: `local` (an Xvfb display and a daemon on this computer, sandboxed
   * where it can be), `remote` (daemons at the addresses of `env` or `machinesFile`), `container`
   * (a fresh container per task) or `qemu` (VMs reset to a snapshot per task).
   * @default "remote" when `env` or `machinesFile` is given, else "local"
   */
  provider?: PoolProviderName;
  /** remote: machines as `name=host:port[,host:port…]`, one entry per environment name (the CLI's --env). */
  env?: readonly string[];
  /** remote: a machines file (JSON or YAML) giving each environment's machines; not with `env`. */
  machinesFile?: string;
  /** remote: token and TLS files for machines given by address (a machines file's entries may give their own). */
  credentials?: DefaultCredentials;
  /** remote: connection settings of every machine (deadlines, keepalive, interceptors). */
  connectOptions?: ConnectOptions;
  /** remote: each machine must show a screen before the pool is handed out. @default false */
  needsScreen?: boolean;
  /**
   * container/qemu: the image, as a profile built with `pincer image build` (its newest image), an
   * image.json, or (container) a registry tag. @default "minimal"
   */
  image?: string;
  /** container/qemu: the image cache to look `image` up in. @default $PINCER_CACHE_DIR, else ~/.cache/pincer */
  cacheDir?: string;
  /** container: the Docker or Podman API socket. @default found, or a private podman service */
  engine?: string;
  /** qemu: memory per VM in MiB. @default 1024 */
  vmMemoryMb?: number;
  /** qemu: virtual CPUs per VM. @default 1 */
  vmCpus?: number;
  /** qemu: a second VM per slot at its snapshot, so that a reset takes a fraction of the time (twice the memory). @default false */
  vmSpare?: boolean;
  /** local and container: the screen size in pixels. @default local: 1280×800; container: the image's */
  screen?: { width: number; height: number };
  /** local: each machine gets an accessibility bus. @default false */
  accessibilityBus?: boolean;
  /** local: each sandboxed machine gets a user-mode network link (slirp4netns). @default false: its loopback only */
  network?: boolean;
  /** local: the daemons' driver set. @default "native" */
  drivers?: "native" | "portable";
}

/** How {@link openPoolFromSpec} reports and names things; for a front end such as the CLI. */
export interface PoolSpecContext {
  /** Where progress and warnings go, a line at a time. @default a line on stderr */
  log?: (line: string) => void;
  /** How an error message names an option of the spec (the CLI gives its flags: `network` → `--network`). @default the option's name */
  optionName?: (option: keyof PoolSpec) => string;
}

/**
 * The provider `spec` chooses, after checking that its options go together (each option is for
 * one provider or some): the InvalidArgumentError of the first one that does not.
 */
export function poolProviderOf(spec: Readonly<PoolSpec>, ctx: PoolSpecContext = {}): PoolProviderName {
  const n = ctx.optionName ?? String;
  if (spec.machinesFile !== undefined && (spec.env?.length ?? 0) > 0)
    throw new InvalidArgumentError(`give machines with ${n("machinesFile")} or with ${n("env")}, not both`);
  const remote = spec.machinesFile !== undefined || (spec.env?.length ?? 0) > 0;
  const provider = spec.provider ?? (remote ? "remote" : "local");
  if (provider !== "local" && spec.network)
    throw new InvalidArgumentError(`${n("network")} is for local machines; ${provider} machines have the network their engine or image gives them`);
  if (provider !== "local" && spec.drivers)
    throw new InvalidArgumentError(
      `${n("drivers")} is for local machines; ${provider} machines run the daemon their image or host starts (its --drivers flag)`,
    );
  if (provider === "remote" && !remote) throw new InvalidArgumentError(`${n("provider")} remote needs ${n("env")} name=host:port or ${n("machinesFile")} FILE`);
  if (provider !== "remote" && remote)
    throw new InvalidArgumentError(`${n("env")} and ${n("machinesFile")} give remote machines; they do not go with ${n("provider")} ${provider}`);
  if (provider === "local" && spec.image !== undefined)
    throw new InvalidArgumentError(`${n("image")} needs ${n("provider")} container or ${n("provider")} qemu`);
  return provider;
}

/**
 * Opens the pool `spec` describes (see {@link PoolSpec}; its provider chosen by
 * {@link poolProviderOf}): remote machines, checked all at once (one error lists every machine
 * that cannot be used, and why); machines from an image (container, qemu); or local ones. Never
 * changes `spec`. Close the pool when done.
 */
export async function openPoolFromSpec(spec: Readonly<PoolSpec>, ctx: PoolSpecContext = {}): Promise<MachinePool> {
  const provider = poolProviderOf(spec, ctx);
  const log = ctx.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const names = [...spec.names];
  if (provider === "remote") return openRemotePool(spec, log);
  if (provider === "local") {
    const drivers = spec.drivers ? ` (${spec.drivers} drivers)` : "";
    const each = `an Xvfb display and a pincer-daemon${drivers}${spec.accessibilityBus ? " with an accessibility bus" : ""} each`;
    // Said every time: without a sandbox a task's commands act on this computer as the runner's user.
    const box = sandboxSupport();
    const where = box.mode === "overlay" ? "in a sandbox" : `WITHOUT a sandbox (${box.why}): tasks act on this computer`;
    log(`starting ${spec.concurrency} local slot(s) with ${names.join(", ")} (${each}, ${where})`);
    const local = localProvider({
      ...(spec.screen ? { width: spec.screen.width, height: spec.screen.height } : {}),
      ...(spec.accessibilityBus ? { accessibilityBus: true } : {}),
      ...(spec.network ? { network: true } : {}),
      ...(spec.drivers ? { drivers: spec.drivers } : {}),
    });
    return openPool(local, names, spec.concurrency);
  }
  const image = spec.image ?? "minimal";
  const made = await imageProvider(provider, { ...spec, image }, log, ctx.optionName ?? String);
  log(`starting ${spec.concurrency} slot(s) with ${names.join(", ")} (${provider}, image ${image})`);
  return openPool(made, names, spec.concurrency);
}

/** The remote machines of `spec` by environment name. */
function remoteMachinesOf(spec: Readonly<PoolSpec>): Map<string, MachineSpec[]> {
  const credentials = spec.credentials ?? {};
  return spec.machinesFile !== undefined ? loadMachinesFile(spec.machinesFile, credentials) : machinesOfEnvFlags(spec.env ?? [], credentials);
}

/** The pool of `spec`'s remote machines, a slot having one of each name they give (the runner checks the tasks' names against them). */
async function openRemotePool(spec: Readonly<PoolSpec>, log: (line: string) => void): Promise<MachinePool> {
  const machines = remoteMachinesOf(spec);
  const pool = await openPool(remoteProvider(machines, spec.credentials ?? {}, spec.connectOptions ?? {}), [...machines.keys()], spec.concurrency);
  // All machines at once; one error listing every machine that cannot be used, and why.
  await checkPool(pool, undefined, { needsScreen: spec.needsScreen ?? false }).catch(async (err: unknown) => {
    await pool.close();
    throw err;
  });
  const unreset = pool.slots.flatMap((slot) => Object.entries(slot.machines ?? {}).filter(([, m]) => !m.reset));
  if (unreset.length > 0) {
    log(
      `warning: ${unreset.length} machine(s) have no reset command (${[...new Set(unreset.map(([n]) => n))].join(", ")}): each task starts on ` +
        `what the previous one left; give "reset" per machine in --machines (e.g. a snapshot revert)`,
    );
  }
  return pool;
}

/** The container or qemu provider of `spec`, from its image. */
async function imageProvider(
  provider: "container" | "qemu",
  spec: Readonly<PoolSpec> & { image: string },
  log: (line: string) => void,
  n: (option: keyof PoolSpec) => string,
): Promise<MachineProvider> {
  const { image } = spec;
  if (provider === "container") {
    const { containerProvider } = await import("./containerProvider.js");
    // A registry tag (host/name:tag) is taken as it is, unless a file of that name exists.
    const isTag = /^[\w.-]+(?::\d+)?\/[\w./-]+:[\w.-]+$/.test(image) && !existsSync(image);
    const tag = isTag ? image : (await resolveImage(image, spec.cacheDir)).container?.tag;
    if (!tag) throw new InvalidArgumentError(`${n("image")} ${image} has no container image yet: pincer image build --profile ${image} --format container`);
    const screen = spec.screen ? { screen: `${spec.screen.width}x${spec.screen.height}` } : {};
    return containerProvider({ image: tag, log, ...screen, ...(spec.engine ? { engine: spec.engine } : {}) });
  }
  const m = await resolveImage(image, spec.cacheDir);
  if (!m.qcow2) throw new InvalidArgumentError(`${n("image")} ${image} has no qcow2 disk yet: pincer image build --profile ${m.profile} --format qcow2`);
  const { qemuProvider } = await import("./qemuProvider.js");
  const sizes = { ...(spec.vmMemoryMb ? { memoryMb: spec.vmMemoryMb } : {}), ...(spec.vmCpus ? { cpus: spec.vmCpus } : {}) };
  return qemuProvider({ ...m.qcow2, log, ...sizes, ...(spec.vmSpare ? { spare: true } : {}) });
}
