import { spawn, type ChildProcess } from "node:child_process";
import { accessSync, constants, existsSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { FailedPreconditionError, InvalidArgumentError, sleep } from "@pincer/shared";
import Docker from "dockerode";
import { processAlive } from "@pincer/shared";
import { removeDeadDirs } from "./hostProcess.js";

/** A Docker Engine API endpoint Pincer talks to: Docker, or Podman's API service. */
export interface DockerEngine {
  docker: Docker;
  /** Which engine, its version and where it listens, e.g. "Podman 4.3.1 at unix:///run/podman/podman.sock". */
  description: string;
  /** "podman" when the engine says it is Podman, else "docker". */
  kind: "docker" | "podman";
  /** The engine's OCI runtime when it says (runc, crun, …). */
  defaultRuntime?: string;
  /** "1" or "2", as the engine reports the host's cgroup version. */
  cgroupVersion?: string;
  /** Stops the Podman service Pincer started for this engine, if it did; otherwise nothing. */
  close(): Promise<void>;
}

/** Options of {@link openEngine}. */
export interface OpenEngineOptions {
  /**
   * The engine's socket or URL: a socket path, `unix:///path`, `tcp://host:port` or `http://host:port`.
   * @default $DOCKER_HOST, else the first of /var/run/docker.sock, /run/podman/podman.sock and
   * $XDG_RUNTIME_DIR/podman/podman.sock that answers, else a Podman API service Pincer starts itself
   */
  address?: string;
  /** Where to say which engine is used. */
  log?: (line: string) => void;
  /** How long a candidate may take to answer a ping, in milliseconds. @default 3_000 */
  pingTimeoutMs?: number;
}

/** dockerode's connection settings for an address given by a person. */
function dockerOptionsOf(address: string): Docker.DockerOptions {
  if (address.startsWith("/")) return { socketPath: address };
  const m = /^(unix|tcp|http|https):\/\/(.+)$/.exec(address);
  if (!m) throw new InvalidArgumentError(`container engine ${JSON.stringify(address)}: give a socket path, unix:///path, tcp://host:port or http://host:port`);
  if (m[1] === "unix") return { socketPath: m[2]! };
  const url = new URL(`${m[1] === "https" ? "https" : "http"}://${m[2]}`);
  return { host: url.hostname, port: url.port || (m[1] === "https" ? 2376 : 2375), protocol: m[1] === "https" ? "https" : "http" };
}

/** Whether the engine answers a ping within `timeoutMs`. */
async function answers(docker: Docker, timeoutMs: number): Promise<boolean> {
  try {
    // dockerode takes an AbortSignal here; its types do not say so.
    const ping = docker as unknown as { ping(opts: { abortSignal: AbortSignal }): Promise<unknown> };
    await ping.ping({ abortSignal: AbortSignal.timeout(timeoutMs) });
    return true;
  } catch {
    return false;
  }
}

/** The full path of `name` on $PATH, if it is there and executable. */
export function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin").split(delimiter)) {
    const file = join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {}
  }
  return undefined;
}

/** What the engine says it is, for the log and the run manifest. */
async function describe(docker: Docker, where: string, close: () => Promise<void>): Promise<DockerEngine> {
  const [version, info] = await Promise.all([docker.version(), docker.info() as Promise<Record<string, unknown>>]);
  const podman = version.Components?.find((c) => /podman/i.test(c.Name));
  const kind = podman ? "podman" : "docker";
  const name = podman ? `Podman ${podman.Version}` : `Docker ${version.Version}`;
  const runtime = typeof info.DefaultRuntime === "string" ? info.DefaultRuntime : undefined;
  const cgroups = typeof info.CgroupVersion === "string" ? info.CgroupVersion : undefined;
  return {
    docker,
    kind,
    description: `${name} (API ${version.ApiVersion}) at ${where}`,
    ...(runtime ? { defaultRuntime: runtime } : {}),
    ...(cgroups ? { cgroupVersion: cgroups } : {}),
    close,
  };
}

/**
 * Starts `podman system service` on a socket in a private folder, for as long as this process
 * runs. It is started through `setpriv --pdeathsig KILL` where available, so that the kernel kills
 * it when this process dies, even by SIGKILL.
 */
async function startPodmanService(podman: string, log: (line: string) => void): Promise<DockerEngine> {
  await removeDeadDirs("pincer-podman-");
  const dir = await mkdtemp(join(tmpdir(), `pincer-podman-${process.pid}-`));
  const socket = join(dir, "podman.sock");
  const setpriv = onPath("setpriv");
  const argv = [...(setpriv ? [setpriv, "--pdeathsig", "KILL"] : []), podman, "system", "service", "--time=0", `unix://${socket}`];
  // Its temporary files in the private folder, removed with it: Podman 4.3 leaves a copy of every
  // image imported through the API (api_load.tar*, gigabytes each) in $TMPDIR, /var/tmp by default.
  const tmp = join(dir, "tmp");
  await mkdir(tmp);
  const child = spawn(argv[0]!, argv.slice(1), { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, TMPDIR: tmp } });
  let stderr = "";
  child.stderr!.on("data", (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once("close", () => resolve()));
  // Without setpriv, a normal exit of this process still stops the service.
  const onExit = () => child.kill("SIGKILL");
  if (!setpriv) process.once("exit", onExit);
  const close = async () => {
    process.off("exit", onExit);
    await stopChild(child, exited);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const docker = new Docker({ socketPath: socket });
    await waitForService(docker, child, () => stderr);
    const engine = await describe(docker, `unix://${socket}`, close);
    log(`container engine: ${engine.description}, a Podman API service Pincer started (pid ${child.pid}) and stops at the end`);
    return engine;
  } catch (err) {
    await close();
    throw err;
  }
}

/** Waits until a starting Podman service answers, or fails when it exits or takes over 30 s. */
async function waitForService(docker: Docker, child: ChildProcess, stderr: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  let failure: Error | undefined;
  child.once("error", (err) => (failure = err));
  while (!(await answers(docker, 1_000))) {
    if (failure) throw new FailedPreconditionError(`cannot start podman system service: ${failure.message}`);
    if (child.exitCode !== null || child.signalCode !== null)
      throw new FailedPreconditionError(`podman system service exited with ${child.exitCode ?? child.signalCode}: ${stderr().trim()}`);
    if (Date.now() > deadline) throw new FailedPreconditionError(`podman system service did not answer within 30 s: ${stderr().trim()}`);
    await sleep(50);
  }
}

/** SIGTERM, then SIGKILL after 5 s; resolves when the child is gone. */
async function stopChild(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
  await exited;
  clearTimeout(timer);
}

/**
 * Finds a Docker Engine API to make containers with: the given address, $DOCKER_HOST, Docker's or
 * Podman's usual sockets (the first that answers a ping), or, with `podman` on $PATH, a private
 * `podman system service` that lives as long as the engine is open. Logs which one it uses.
 * Throws FailedPreconditionError naming what to install or start when there is none.
 */
export async function openEngine(opts: OpenEngineOptions = {}): Promise<DockerEngine> {
  const log = opts.log ?? (() => undefined);
  const pingMs = opts.pingTimeoutMs ?? 3_000;
  const nothing = async () => undefined;
  const use = async (docker: Docker, where: string) => {
    const engine = await describe(docker, where, nothing);
    log(`container engine: ${engine.description}`);
    return engine;
  };
  if (opts.address) {
    const docker = new Docker(dockerOptionsOf(opts.address));
    if (!(await answers(docker, pingMs)))
      throw new FailedPreconditionError(
        `the container engine at ${opts.address} does not answer; start it (e.g. podman system service) or give another address`,
      );
    return use(docker, opts.address);
  }
  const tried: string[] = [];
  if (process.env.DOCKER_HOST) {
    // dockerode reads DOCKER_HOST itself, with DOCKER_TLS_VERIFY and DOCKER_CERT_PATH.
    const docker = new Docker();
    if (await answers(docker, pingMs)) return use(docker, process.env.DOCKER_HOST);
    tried.push(`DOCKER_HOST=${process.env.DOCKER_HOST}`);
  }
  const runtimeDir = process.env.XDG_RUNTIME_DIR;
  for (const socket of ["/var/run/docker.sock", "/run/podman/podman.sock", ...(runtimeDir ? [join(runtimeDir, "podman", "podman.sock")] : [])]) {
    tried.push(socket);
    if (!existsSync(socket)) continue;
    const docker = new Docker({ socketPath: socket });
    if (await answers(docker, pingMs)) return use(docker, `unix://${socket}`);
  }
  const podman = onPath("podman");
  if (podman) return startPodmanService(podman, log);
  throw new FailedPreconditionError(
    `no container engine: nothing answers at ${tried.join(", ")} and podman is not on PATH; ` +
      "install Podman (apt-get install podman runc) or Docker, or give a running engine's socket (--engine or DOCKER_HOST)",
  );
}

/** Removes a container, whether it runs or not; one already gone is fine. */
export async function removeContainer(docker: Docker, id: string): Promise<void> {
  try {
    await docker.getContainer(id).remove({ force: true, v: true });
  } catch (err) {
    if ((err as { statusCode?: number }).statusCode !== 404) throw err;
  }
}

/**
 * Removes the containers earlier Pincer controllers of this computer made and could not remove
 * because they died (their `pincer.controller` label names a process that is gone).
 */
export async function sweepOrphanContainers(docker: Docker, log: (line: string) => void): Promise<void> {
  const host = hostname();
  const list = await docker.listContainers({ all: true, filters: { label: ["pincer=1"] } });
  const orphans = list.filter((c) => {
    const [h, pid] = (c.Labels["pincer.controller"] ?? "").split(":");
    return h === host && pid !== undefined && /^\d+$/.test(pid) && !processAlive(Number(pid));
  });
  if (orphans.length === 0) return;
  await Promise.all(orphans.map((c) => removeContainer(docker, c.Id).catch(() => undefined)));
  log(`container provider: removed ${orphans.length} container(s) left by a controller that died: ${orphans.map((c) => c.Names[0]).join(", ")}`);
}
