import { randomBytes } from "node:crypto";
import { chmod, chown, mkdtemp, rm, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { TimeoutError, FailedPreconditionError, InvalidArgumentError } from "@pincer/shared";
import type Docker from "dockerode";
import { connect, type RemoteEnv } from "../env/index.js";
import { onPath, openEngine, removeContainer, sweepOrphanContainers, type DockerEngine } from "./dockerEngine.js";
import { removeDeadDirs } from "./hostProcess.js";
import { GUEST_PORT, GUEST_TOKEN_FILE } from "./guestContract.js";
import type { MachineProvider, ProvidedMachine } from "./provider.js";
import { Spares } from "./spares.js";

/** The daemon's port inside a container, published on 127.0.0.1 at a port the engine picks. */
const GUEST_TCP = `${GUEST_PORT}/tcp`;
/** The uid and gid of `user`, the daemon's user in every Pincer image. */
const GUEST_UID = 1000;

/** Options of {@link containerProvider}. */
export interface ContainerProviderOptions {
  /** The container image (a tag such as `localhost/pincer-minimal:0123456789abcdef`; see `pincer image build`). */
  image: string;
  /** The engine's socket or URL. @default found or started by {@link openEngine} */
  engine?: string;
  /** The X screen, `WIDTHxHEIGHT` or `WIDTHxHEIGHTxDEPTH`. @default the image's (1280x800x24) */
  screen?: string;
  /**
   * The OCI runtime (runc, crun, …). @default the engine's, except runc where Podman's default is crun
   * on a cgroups v1 host and runc is installed (crun 1.8 fails there: "cgroups in hybrid mode not supported")
   */
  runtime?: string;
  /**
   * Resource limits per container, soft = hard. The defaults work where the engine's default nofile
   * (1048576) cannot be raised, as in unprivileged hosts and CI runners.
   * @default { nofile: 20000, nproc: 32768 }
   */
  ulimits?: Readonly<Record<string, number>>;
  /** Memory limit per container, in MiB. @default none */
  memoryMb?: number;
  /** How long a container may take from start to its daemon answering, in milliseconds. @default 60_000 */
  readyTimeoutMs?: number;
  /**
   * Start the next container of each slot and name while a task runs, so that a reset only swaps
   * containers. Costs an idle container (≈ 100 MB) per machine. @default true
   */
  spare?: boolean;
  /** Where to say which engine and runtime are used. */
  log?: (line: string) => void;
}

/** A {@link MachineProvider} that can also remove every container it made at once. */
export interface ContainerProvider extends MachineProvider {
  /** Removes every container it made, their token files, and stops a Podman service it started. */
  close(): Promise<void>;
}

/** One container the provider made, with what it needs to replace and remove it. */
interface Made {
  id: string;
  name: string;
  envName: string;
  slot: number;
  tokenFile: string;
  env: RemoteEnv;
  /** Lets the engine close once this container is gone. */
  leave?: () => Promise<void>;
}

/** `PINCER_SCREEN` for a `--screen` value. */
function screenOf(screen: string | undefined): string | undefined {
  if (screen === undefined) return undefined;
  const m = /^(\d{2,5})x(\d{2,5})(?:x(8|16|24|32))?$/.exec(screen);
  if (!m) throw new InvalidArgumentError(`screen ${JSON.stringify(screen)}: write WIDTHxHEIGHT, e.g. 1280x800`);
  return `${m[1]}x${m[2]}x${m[3] ?? 24}`;
}

/** The runtime to ask for: the option, else runc where the engine's crun cannot work (see {@link ContainerProviderOptions.runtime}). */
export function chooseRuntime(engine: Pick<DockerEngine, "kind" | "defaultRuntime" | "cgroupVersion">, runtime?: string): string | undefined {
  if (runtime) return runtime;
  if (engine.kind === "podman" && engine.defaultRuntime === "crun" && engine.cgroupVersion === "1" && onPath("runc")) return "runc";
  return undefined;
}

/** The last lines a container printed, for an error message. */
function tail(lines: readonly string[]): string {
  return lines.length > 0 ? `; its last lines:\n${lines.join("\n")}` : "; it printed nothing";
}

/**
 * Follows a started container's output until the daemon prints its `listening` line (sooner than
 * gRPC's reconnect backoff would notice the port), the container exits, or `timeoutMs` passes.
 */
async function waitForListening(container: Docker.Container, name: string, timeoutMs: number, signal?: AbortSignal): Promise<void> {
  const lines: string[] = [];
  const stream = (await container.logs({ follow: true, stdout: true, stderr: true })) as unknown as NodeJS.ReadableStream & { destroy(): void };
  const text = new PassThrough();
  container.modem.demuxStream(stream, text, text);
  let rest = "";
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new TimeoutError(`container ${name}: its daemon did not start within ${timeoutMs} ms${tail(lines)}`)), timeoutMs);
      const abort = () => reject(signal!.reason);
      if (signal?.aborted) abort();
      signal?.addEventListener("abort", abort, { once: true });
      const done = (fn: () => void) => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", abort);
        fn();
      };
      text.on("data", (d: Buffer) => {
        const parts = (rest + d.toString()).split("\n");
        rest = parts.pop()!;
        lines.push(...parts.map((l) => l.trimEnd()));
        lines.splice(0, Math.max(0, lines.length - 30));
        if (parts.some((l) => /pincer-daemon listening on/.test(l))) done(resolve);
      });
      stream.on("end", async () => {
        const state = await container.inspect().catch(() => undefined);
        const how = state ? `exited with ${state.State.ExitCode}` : "is gone";
        done(() => reject(new FailedPreconditionError(`container ${name} ${how} before its daemon was ready${tail([...lines, rest].filter(Boolean))}`)));
      });
      stream.on("error", (err: Error) => done(() => reject(err)));
    });
  } finally {
    stream.destroy();
  }
}

/** The host port the engine published the daemon's port at. */
async function publishedPort(container: Docker.Container, name: string): Promise<number> {
  const info = await container.inspect();
  const port = info.NetworkSettings.Ports?.[GUEST_TCP]?.[0]?.HostPort;
  if (!port) throw new FailedPreconditionError(`container ${name} has no published port for ${GUEST_TCP}; the engine did not publish it`);
  return Number(port);
}

/** Writes a container's token where only root and the daemon's user can read it (uid 1000, 0400). */
async function writeToken(file: string, token: string): Promise<void> {
  await writeFile(file, token, { mode: 0o600, flag: "wx" });
  try {
    await chown(file, GUEST_UID, GUEST_UID);
    await chmod(file, 0o400);
  } catch {
    // Not root (a rootless engine): the folder (0700) keeps others of this computer out.
    await chmod(file, 0o444);
  }
}

/** What a container is made with, apart from its name, labels and token. */
interface ContainerSettings {
  image: string;
  screen?: string;
  runtime?: string;
  ulimits: Readonly<Record<string, number>>;
  memoryMb?: number;
}

/** Creates and starts a container for `envName` in `slot`, with the token mounted; resolves to its id. */
async function createContainer(docker: Docker, s: ContainerSettings, name: string, labels: Record<string, string>, tokenFile: string): Promise<string> {
  const container = await docker.createContainer({
    name,
    Image: s.image,
    Labels: labels,
    Env: [`PINCER_TOKEN_FILE=${GUEST_TOKEN_FILE}`, ...(s.screen ? [`PINCER_SCREEN=${s.screen}`] : [])],
    ExposedPorts: { [GUEST_TCP]: {} },
    HostConfig: {
      PortBindings: { [GUEST_TCP]: [{ HostIp: "127.0.0.1", HostPort: "" }] },
      Binds: [`${tokenFile}:${GUEST_TOKEN_FILE}:ro`],
      // Reaps the orphans of the apps a task starts (Podman 4.3 ignores its init = true setting).
      Init: true,
      Ulimits: Object.entries(s.ulimits).map(([Name, n]) => ({ Name, Soft: n, Hard: n })),
      ...(s.memoryMb ? { Memory: s.memoryMb * 1024 * 1024 } : {}),
      ...(s.runtime ? { Runtime: s.runtime } : {}),
    },
  });
  try {
    await container.start();
  } catch (err) {
    await removeContainer(docker, container.id).catch(() => undefined);
    throw err;
  }
  return container.id;
}

/** An open engine and the private folder the provider's token files are in. */
interface Opened {
  engine: DockerEngine;
  tokenDir: string;
}

/** The machines of one {@link containerProvider}: its engine, its containers and their spares. */
class ContainerMachines {
  readonly made = new Map<ProvidedMachine, Made>();
  /** Machines whose container a failed reset removed without starting the next: the next reset starts one. */
  readonly lost = new Map<ProvidedMachine, { envName: string; slot: number }>();
  /** A fresh container started ahead, by "slot/env name"; used containers being removed behind a reset. */
  readonly spares = new Spares<Made>({
    start: (key, signal) => {
      const [slot, ...name] = key.split("/");
      return this.start(name.join("/"), Number(slot), signal);
    },
    answers: async (m) => {
      await m.env.system.info({ timeoutMs: 5_000 });
      return true;
    },
    stop: (m) => this.remove(m),
  });
  /** The engine's description, once open. */
  described?: string;
  #engine?: Promise<Opened>;
  /** Containers made or being made, and resets under way: the engine stays open while any. */
  #users = 0;

  constructor(
    readonly opts: ContainerProviderOptions,
    readonly settings: ContainerSettings,
    readonly log: (line: string) => void,
  ) {}

  /** Opens the engine once: picks the runtime, checks the image, removes what dead controllers left. */
  open(): Promise<Opened> {
    this.#engine ??= (async () => {
      const e = await openEngine({ ...(this.opts.engine ? { address: this.opts.engine } : {}), log: this.log });
      try {
        const runtime = chooseRuntime(e, this.opts.runtime);
        if (runtime && !this.opts.runtime) this.log(`container provider: runtime ${runtime} (${e.description} defaults to crun, which fails on cgroups v1)`);
        if (runtime) this.settings.runtime = runtime;
        this.described = e.description;
        if (!(await hasImage(e, this.settings.image)))
          throw new FailedPreconditionError(`${e.description} has no image ${this.settings.image}; build it with \`pincer image build --format container\``);
        await sweepOrphanContainers(e.docker, this.log);
        await removeDeadDirs("pincer-tokens-");
        return { engine: e, tokenDir: await mkdtemp(join(tmpdir(), `pincer-tokens-${process.pid}-`)) };
      } catch (err) {
        await e.close();
        throw err;
      }
    })();
    this.#engine.catch(() => (this.#engine = undefined));
    return this.#engine;
  }

  /** Counts a user of the engine until the returned function is called; the last one out closes it. */
  hold(): () => Promise<void> {
    this.#users++;
    let done = false;
    return async () => {
      if (done) return;
      done = true;
      if (--this.#users > 0 || !this.#engine) return;
      const opened = this.#engine;
      this.#engine = undefined;
      const { engine, tokenDir } = await opened;
      await Promise.all([engine.close(), rm(tokenDir, { recursive: true, force: true })]);
    };
  }

  /** Starts a container and waits for its daemon; it holds the engine until {@link remove}. */
  async start(envName: string, slot: number, signal?: AbortSignal): Promise<Made> {
    const leave = this.hold();
    try {
      const { engine, tokenDir } = await this.open();
      const m = await startMachine(engine.docker, this.settings, tokenDir, envName, slot, this.opts.readyTimeoutMs ?? 60_000, signal);
      return { ...m, leave };
    } catch (err) {
      await leave();
      throw err;
    }
  }

  /** Removes a container and its token file. */
  async remove(m: Made): Promise<void> {
    m.env.close();
    try {
      const { engine } = await this.open();
      await Promise.all([removeContainer(engine.docker, m.id), rm(m.tokenFile, { force: true })]);
    } finally {
      await m.leave?.();
    }
  }

  /** Hands a container out as a machine, and starts the spare that will replace it. */
  provide(m: Made): ProvidedMachine {
    const machine: ProvidedMachine = { env: m.env, address: `${m.env.address} (container ${m.name})`, fresh: true };
    this.made.set(machine, m);
    if (this.opts.spare !== false) this.spares.prepare(`${m.slot}/${m.envName}`);
    return machine;
  }

  /**
   * A fresh container for the machine's slot and name: its spare, the used one then removed behind
   * the reset; else the used one removed first (starting while removing is slower on Podman) and a
   * new one started. A reset that fails leaves the machine this provider's: the next reset removes
   * what is left of it, or starts the container that failed to start.
   */
  async reset(machine: ProvidedMachine, signal?: AbortSignal): Promise<ProvidedMachine> {
    const used = this.made.get(machine);
    const place = used ?? this.lost.get(machine);
    if (!place) throw new FailedPreconditionError(`reset: ${machine.address} is not a container this provider made (or it was released)`);
    const leave = this.hold();
    try {
      if (used) {
        const spare = await this.spares.take(`${used.slot}/${used.envName}`);
        if (spare) {
          this.made.delete(machine);
          this.spares.retire(used);
          return this.provide(spare);
        }
        await this.remove(used);
        this.made.delete(machine);
        this.lost.set(machine, { envName: used.envName, slot: used.slot });
      }
      const next = this.provide(await this.start(place.envName, place.slot, signal));
      this.lost.delete(machine);
      return next;
    } finally {
      await leave();
    }
  }

  /** Removes a machine's container and the spare of its slot and name. */
  async release(machine: ProvidedMachine): Promise<void> {
    const lost = this.lost.get(machine);
    this.lost.delete(machine);
    if (lost) await this.spares.drop(`${lost.slot}/${lost.envName}`);
    const m = this.made.get(machine);
    if (!m) return;
    this.made.delete(machine);
    await Promise.all([this.remove(m), this.spares.drop(`${m.slot}/${m.envName}`)]);
  }
}

/**
 * Machines in containers made from a Pincer image through the Docker Engine API (Docker, or
 * Podman's API service, started for the run when nothing else answers): one container per
 * environment name and slot, a new one for every task and attempt. A reset removes the used
 * container and hands out the slot's spare, a container started from the image while the task ran
 * (a new one is started when there is none). The daemon's port is published on 127.0.0.1 and each
 * container has a token of its own, mounted read-only. Containers are labelled `pincer=1`;
 * releasing removes them, and the next provider on this computer removes those a controller that
 * died left behind. The engine (and a Podman service it started) is closed when no container is left.
 */
export function containerProvider(opts: ContainerProviderOptions): ContainerProvider {
  const screen = screenOf(opts.screen);
  const settings: ContainerSettings = {
    image: opts.image,
    ulimits: { nofile: 20_000, nproc: 32_768, ...opts.ulimits },
    ...(screen ? { screen } : {}),
    ...(opts.memoryMb ? { memoryMb: opts.memoryMb } : {}),
  };
  const machines = new ContainerMachines(opts, settings, opts.log ?? (() => undefined));
  return {
    name: "container",
    config: () => ({
      engine: machines.described ?? opts.engine ?? "auto",
      image: opts.image,
      runtime: settings.runtime ?? "engine default",
      ulimits: settings.ulimits,
      spare: opts.spare !== false,
      ...(settings.screen ? { screen: settings.screen } : {}),
      ...(settings.memoryMb ? { memory_mb: settings.memoryMb } : {}),
    }),
    acquire: async (envName, slot, signal) => machines.provide(await machines.start(envName, slot, signal)),
    reset: async (machine, signal) => ({ machine: await machines.reset(machine, signal), method: "new container" }),
    release: (machine) => machines.release(machine),
    close: async () => {
      await Promise.all([...machines.made.keys()].map((m) => machines.release(m)));
      await machines.spares.drain();
    },
  };
}

/** Whether the engine has `image`. */
async function hasImage(e: DockerEngine, image: string): Promise<boolean> {
  try {
    await e.docker.getImage(image).inspect();
    return true;
  } catch (err) {
    if ((err as { statusCode?: number }).statusCode === 404) return false;
    throw err;
  }
}

/** Starts a container and connects to its daemon once it listens; removes it if it never does. */
async function startMachine(
  docker: Docker,
  settings: ContainerSettings,
  tokenDir: string,
  envName: string,
  slot: number,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<Made> {
  const safe = envName.replace(/[^A-Za-z0-9_.-]/g, "-");
  const name = `pincer-${slot + 1}-${safe}-${randomBytes(4).toString("hex")}`;
  const token = randomBytes(32).toString("base64url");
  const tokenFile = join(tokenDir, `${name}.token`);
  await writeToken(tokenFile, token);
  const labels = { pincer: "1", "pincer.slot": String(slot + 1), "pincer.env": envName, "pincer.controller": `${hostname()}:${process.pid}` };
  let id: string | undefined;
  try {
    const t0 = Date.now();
    id = await createContainer(docker, settings, name, labels, tokenFile);
    const container = docker.getContainer(id);
    const [port] = await Promise.all([publishedPort(container, name), waitForListening(container, name, timeoutMs, signal)]);
    const env = connect(`127.0.0.1:${port}`, { token });
    try {
      await env.system.info({ waitForReady: true, timeoutMs: Math.max(1_000, timeoutMs - (Date.now() - t0)), ...(signal ? { signal } : {}) });
    } catch (err) {
      env.close();
      throw err;
    }
    return { id, name, envName, slot, tokenFile, env };
  } catch (err) {
    if (id) await removeContainer(docker, id).catch(() => undefined);
    await rm(tokenFile, { force: true });
    throw err;
  }
}
