import { existsSync } from "node:fs";
import { type Command, InvalidArgumentError as CliArgumentError, Option } from "commander";
import { environmentsOf } from "../runner/attempt.js";
import { loadMachinesFile } from "../machines/credentials.js";
import { localProvider } from "../machines/localProvider.js";
import { sandboxSupport } from "../machines/sandbox.js";
import { checkPool, machinesOfEnvFlags, remoteProvider } from "../machines/remoteProvider.js";
import { openPool, type MachinePool, type MachineProvider } from "../machines/provider.js";
import type { DatasetTask } from "../datasets/loader.js";
import { resolveImage } from "../machines/images/build.js";
import { credentialFlags } from "./credentials.js";

/** Where tasks run: `--provider`, `--image`, `--machines`, `--env` and the credential flags of a command. */
export interface MachineCliOptions {
  env: string[];
  machines?: string;
  provider?: string;
  image?: string;
  engine?: string;
  vmMemory?: number;
  vmCpus?: number;
  vmSpare?: boolean;
  network?: boolean;
  drivers?: "native" | "portable";
  [flag: string]: unknown;
}

/** The providers `--provider` names. */
const PROVIDERS = ["local", "remote", "container", "qemu"] as const;

function positive(flag: string) {
  return (v: string) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1) throw new CliArgumentError(`${flag} must be a whole number ≥ 1`);
    return n;
  };
}

/** Adds `--provider`, `--image`, `--engine`, `--vm-memory`, `--vm-cpus` and `--vm-spare` to a command. */
export function addProviderOptions(cmd: Command): Command {
  return cmd
    .addOption(
      new Option(
        "--provider <name>",
        "where machines come from: local (a sandboxed Xvfb and daemon here; the default), remote (--env/--machines), " +
          "container (a fresh container per task, Docker or Podman) or qemu (VMs reset to a snapshot per task)",
      ).choices([...PROVIDERS]),
    )
    .option(
      "--image <image>",
      "container/qemu: a profile built with `pincer image build` (its newest image; default minimal), an image.json, or a container tag",
    )
    .option("--engine <socket>", "container: the Docker or Podman API socket (default: found, or a private podman service)")
    .option("--vm-memory <MiB>", "qemu: memory per VM (default 1024)", positive("--vm-memory"))
    .option("--vm-cpus <n>", "qemu: virtual CPUs per VM (default 1)", positive("--vm-cpus"))
    .option(
      "--vm-spare",
      "qemu: a second VM per slot at its snapshot, handed over by each reset while the used one goes back to its own (a reset in a fraction " +
        "of the time, for twice the memory)",
    )
    .option(
      "--network",
      "local: give each sandboxed machine a user-mode network link (slirp4netns: what this computer reaches, never its loopback); " +
        "without it a sandbox has its loopback only",
    )
    .addOption(
      new Option(
        "--drivers <set>",
        "local: the daemons' drivers, native (XTEST, X shared memory, the native spawner; the default) or portable (nut-js, execa)",
      ).choices(["native", "portable"]),
    );
}

/** The remote provider the options describe and its environment names, or undefined without --env/--machines. */
function remoteProviderOf(o: MachineCliOptions): { provider: MachineProvider; names: string[] } | undefined {
  const flags = credentialFlags(o);
  if (o.machines && o.env.length > 0) throw new CliArgumentError("give machines with --machines or with --env, not both");
  const machines = o.machines ? loadMachinesFile(o.machines, flags) : o.env.length > 0 ? machinesOfEnvFlags(o.env, flags) : undefined;
  return machines && { provider: remoteProvider(machines, flags), names: [...machines.keys()] };
}

async function openRemotePool(remote: { provider: MachineProvider; names: string[] }, concurrency: number, needsScreen: boolean): Promise<MachinePool> {
  const pool = await openPool(remote.provider, remote.names, concurrency);
  // All machines at once; one error listing every machine that cannot be used, and why.
  await checkPool(pool, undefined, { needsScreen }).catch(async (err: unknown) => {
    await pool.close();
    throw err;
  });
  const unreset = pool.slots.flatMap((slot) => Object.entries(slot.machines ?? {}).filter(([, m]) => !m.reset));
  if (unreset.length > 0) {
    process.stderr.write(
      `warning: ${unreset.length} machine(s) have no reset command (${[...new Set(unreset.map(([n]) => n))].join(", ")}): each task starts on ` +
        `what the previous one left; give "reset" per machine in --machines (e.g. a snapshot revert)\n`,
    );
  }
  return pool;
}

/** The container or qemu provider of `--provider`, from the image `--image` names. */
async function imageProvider(o: MachineCliOptions, screen: { width: number; height: number }): Promise<MachineProvider> {
  const log = (l: string) => process.stderr.write(`${l}\n`);
  // Without --image: the newest minimal image in the cache (resolveImage says how to build one).
  o.image ??= "minimal";
  if (o.provider === "container") {
    const { containerProvider } = await import("../machines/containerProvider.js");
    const isTag = /^[\w.-]+(?::\d+)?\/[\w./-]+:[\w.-]+$/.test(o.image) && !existsSync(o.image);
    const tag = isTag ? o.image : (await resolveImage(o.image)).container?.tag;
    if (!tag) throw new CliArgumentError(`--image ${o.image} has no container image yet: pincer image build --profile ${o.image} --format container`);
    return containerProvider({ image: tag, screen: `${screen.width}x${screen.height}`, log, ...(o.engine ? { engine: o.engine } : {}) });
  }
  const m = await resolveImage(o.image);
  if (!m.qcow2) throw new CliArgumentError(`--image ${o.image} has no qcow2 disk yet: pincer image build --profile ${m.profile} --format qcow2`);
  const { qemuProvider } = await import("../machines/qemuProvider.js");
  const sizes = { ...(o.vmMemory ? { memoryMb: o.vmMemory } : {}), ...(o.vmCpus ? { cpus: o.vmCpus } : {}) };
  return qemuProvider({ ...m.qcow2, log, ...sizes, ...(o.vmSpare ? { spare: true } : {}) });
}

/**
 * The pool a `run` or `check` command's options describe: remote machines (--env/--machines),
 * machines from an image (--provider container|qemu --image), or local ones (the default).
 */
export async function openCliPool(
  tasks: readonly DatasetTask[],
  o: MachineCliOptions,
  concurrency: number,
  local: { width: number; height: number; accessibilityBus?: boolean; needsScreen?: boolean },
): Promise<MachinePool> {
  return openMachinePool([...new Set(tasks.flatMap(environmentsOf))], o, concurrency, local);
}

/**
 * The pool a command's options describe, with a machine per slot for each of `names` (remote
 * machines come by the names their options give). `needsScreen`: remote machines must show a
 * screen before the first task (local and image machines always have their own).
 */
export async function openMachinePool(
  names: readonly string[],
  o: MachineCliOptions,
  concurrency: number,
  local: { width: number; height: number; accessibilityBus?: boolean; needsScreen?: boolean },
): Promise<MachinePool> {
  const remote = remoteProviderOf(o);
  const provider = o.provider ?? (remote ? "remote" : "local");
  if (provider !== "local" && o.network)
    throw new CliArgumentError(`--network is for local machines; ${provider} machines have the network their engine or image gives them`);
  if (provider !== "local" && o.drivers)
    throw new CliArgumentError(`--drivers is for local machines; ${provider} machines run the daemon their image or host starts (its --drivers flag)`);
  if (provider === "remote") {
    if (!remote) throw new CliArgumentError("--provider remote needs --env name=host:port or --machines FILE");
    return openRemotePool(remote, concurrency, local.needsScreen ?? false);
  }
  if (remote) throw new CliArgumentError(`--env and --machines give remote machines; they do not go with --provider ${provider}`);
  if (provider === "local" && o.image) throw new CliArgumentError("--image needs --provider container or --provider qemu");
  if (provider === "local") {
    const drivers = o.drivers ? ` (${o.drivers} drivers)` : "";
    const each = `an Xvfb display and a pincer-daemon${drivers}${local.accessibilityBus ? " with an accessibility bus" : ""} each`;
    // Said every time: without a sandbox a task's commands act on this computer as the runner's user.
    const box = sandboxSupport();
    const where = box.mode === "overlay" ? "in a sandbox" : `WITHOUT a sandbox (${box.why}): tasks act on this computer`;
    process.stderr.write(`starting ${concurrency} local slot(s) with ${names.join(", ")} (${each}, ${where})\n`);
    const { needsScreen: _, ...screen } = local;
    return openPool(localProvider({ ...screen, ...(o.network ? { network: true } : {}), ...(o.drivers ? { drivers: o.drivers } : {}) }), names, concurrency);
  }
  const made = await imageProvider(o, local);
  process.stderr.write(`starting ${concurrency} slot(s) with ${names.join(", ")} (${provider}, image ${o.image})\n`);
  return openPool(made, names, concurrency);
}
