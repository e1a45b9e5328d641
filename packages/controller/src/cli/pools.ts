import { type Command, InvalidArgumentError as CliArgumentError, Option } from "commander";
import { environmentsOf } from "../runner/attempt.js";
import type { MachinePool } from "../machines/provider.js";
import { openPoolFromSpec, type PoolProviderName, type PoolSpec } from "../machines/selectPool.js";
import type { DatasetTask } from "../datasets/loader.js";
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

/** The providers `--provider` names (those of PoolSpec's `provider`). */
const PROVIDERS: readonly PoolProviderName[] = ["local", "remote", "container", "qemu"];

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

/** The flag of each option of a PoolSpec, so that errors name what the user typed. */
const FLAGS: Partial<Record<keyof PoolSpec, string>> = {
  provider: "--provider",
  env: "--env",
  machinesFile: "--machines",
  image: "--image",
  network: "--network",
  drivers: "--drivers",
  engine: "--engine",
  vmMemoryMb: "--vm-memory",
  vmCpus: "--vm-cpus",
  vmSpare: "--vm-spare",
};

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

/** The PoolSpec of a command's options (see {@link openMachinePool}); the options are only read. */
export function poolSpecOf(
  names: readonly string[],
  o: Readonly<MachineCliOptions>,
  concurrency: number,
  local: { width: number; height: number; accessibilityBus?: boolean; needsScreen?: boolean },
): PoolSpec {
  return {
    names,
    concurrency,
    ...(o.provider ? { provider: o.provider as PoolProviderName } : {}),
    env: o.env,
    ...(o.machines ? { machinesFile: o.machines } : {}),
    credentials: credentialFlags(o),
    needsScreen: local.needsScreen ?? false,
    ...(o.image ? { image: o.image } : {}),
    ...(o.engine ? { engine: o.engine } : {}),
    ...(o.vmMemory ? { vmMemoryMb: o.vmMemory } : {}),
    ...(o.vmCpus ? { vmCpus: o.vmCpus } : {}),
    ...(o.vmSpare ? { vmSpare: true } : {}),
    screen: { width: local.width, height: local.height },
    ...(local.accessibilityBus ? { accessibilityBus: true } : {}),
    ...(o.network ? { network: true } : {}),
    ...(o.drivers ? { drivers: o.drivers } : {}),
  };
}

/**
 * The pool a command's options describe, with a machine per slot for each of `names` (remote
 * machines come by the names their options give). `needsScreen`: remote machines must show a
 * screen before the first task (local and image machines always have their own). The choice is
 * the library's ({@link openPoolFromSpec}); this only turns flags into its spec, and its errors
 * name the flags.
 */
export async function openMachinePool(
  names: readonly string[],
  o: MachineCliOptions,
  concurrency: number,
  local: { width: number; height: number; accessibilityBus?: boolean; needsScreen?: boolean },
): Promise<MachinePool> {
  return openPoolFromSpec(poolSpecOf(names, o, concurrency, local), { optionName: (option) => FLAGS[option] ?? option });
}
