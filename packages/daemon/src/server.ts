import * as grpc from "@grpc/grpc-js";
import { HealthImplementation } from "grpc-health-check";
import { DESCRIPTOR_SET_BASE64, decodeIntoPool, fullServiceName, serviceNames, type ServiceName } from "@pincer/shared";
import { chooseDriverSet, openDriverSet } from "./drivers/driverSets.js";
import type { DriverSet, DriverSetName } from "./drivers/drivers.js";
import { EXECA_GAP } from "./drivers/execaSpawner.js";
import type { CaptureMethod } from "./drivers/screen.js";
import { createLogger, type Logger } from "./logger.js";
import { inputService } from "./services/input.js";
import type { DefinedService } from "./services/rpc.js";
import { frameChunksInPlace } from "./framing.js";
import { heapControl, IdleCollector } from "./memory.js";
import { screenService } from "./services/screen.js";
import { addReflection } from "./services/reflection.js";
import { accessibilityService } from "./services/accessibility.js";
import { systemService } from "./services/system.js";
import { filesService } from "./services/files.js";
import { defaultJournalDir, UploadJournal } from "./services/uploadJournal.js";
import { MAX_OUTPUT_BYTES, processService } from "./services/process.js";
import { ProcessTable } from "./drivers/processes.js";
import { raiseConnectionWindow, raiseStreamWindow } from "./flowControl.js";
import { startOwnXServer, type OwnXServer } from "./drivers/xvfb.js";
import { paintWallpaper } from "./drivers/wallpaper.js";
import { openXConnection } from "./drivers/xConnection.js";
import { checkedSpawner } from "./drivers/spawner.js";
import { type AccessibilityBuses, accessibilityBusPrograms, applyBusEnvironment, startAccessibilityBuses } from "./drivers/accessibilityBus.js";
import { auditInterceptor, type AuditSink } from "./security/audit.js";
import { fileRoot } from "./security/jail.js";
import { authInterceptor, denyInterceptor, HEALTH_PREFIX, keepDuplicateAuthorization } from "./security/auth.js";
import { exposureWarnings } from "./security/config.js";
import { ConnectionGuard, type ConnectionLimits, type ConnectionSettings, connectionSettings } from "./security/connections.js";
import { capEchoedHeaders } from "./security/headers.js";
import { DEFAULT_LIMITS, ExecAllowlist, realFileRoot, type ExecMode, type Limits } from "./security/policy.js";
import { serverCredentials, type TlsOptions } from "@pincer/shared";

export interface DaemonOptions {
  /** Interface to listen on. @default "127.0.0.1" */
  host?: string;
  /** TCP port; 0 picks a free one. @default 50051 */
  port?: number;
  /**
   * Listen on this unix socket instead of `host` and `port`: only processes that can open its
   * folder can connect (the local sandbox's daemon listens so, its folder open to the runner only).
   */
  socket?: string;
  /** X display to drive (":1"). @default process.env.DISPLAY */
  display?: string;
  /** How screenshots are read by the native drivers. @default "auto" (MIT-SHM, else GetImage, else screenshot-desktop) */
  captureMethod?: CaptureMethod;
  /**
   * The drivers that do the work: `native` (XTEST, MIT-SHM, the native spawner; Linux with X11) or
   * `portable` (nut-js, sharp, execa; any desktop nut-js supports). @default native on Linux, portable elsewhere
   */
  drivers?: "native" | "portable" | "auto";
  /** Start and own an Xvfb of this size ("1920x1080x24") and drive it; stopped by close(). */
  xvfb?: string;
  /** Display number of the own Xvfb (`xvfb`); the first free one when not given. */
  xvfbDisplay?: number;
  /**
   * With `xvfb`: start a private D-Bus session bus and the AT-SPI accessibility bus on it, and put
   * them into this process's environment (DBUS_SESSION_BUS_ADDRESS, XDG_RUNTIME_DIR), where the
   * Accessibility service and every command run find them; stopped by close().
   */
  accessibilityBus?: boolean;
  /**
   * With `xvfb`: the screen's background, drawn before the daemon serves: `true` for Pincer's own
   * (a gradient and a bar along the bottom), or an image file scaled to cover the screen.
   * @default a black screen
   */
  wallpaper?: string | true;
  logger?: Logger;
  /** Who may call. With no token and no mutual TLS, anyone who reaches the port may. */
  security?: SecurityOptions;
  /** What callers may do once in. */
  policy?: PolicyOptions;
  /** One line per call. @default none (the CLI always gives one: stderr or --audit-file) */
  audit?: { sink: AuditSink; debug?: boolean };
}

export interface SecurityOptions {
  /** Bearer token every call must carry (`authorization: Bearer <token>`). */
  token?: string;
  /** Health checks without the token. @default true */
  healthWithoutToken?: boolean;
  /** TLS, and mutual TLS when `clientCa` is given. @default plaintext */
  tls?: TlsOptions;
  /** Allow listening on a non-loopback interface with no token and no mutual TLS. @default false */
  insecure?: boolean;
  /** Bounds on connections that have not had a call let in (see {@link ConnectionGuard}). */
  connections?: Partial<ConnectionLimits> & {
    /** A connection with no call for this long is closed (an HTTP/2 GOAWAY; clients reconnect when they need to). @default 300_000 */
    idleTimeoutMs?: number;
  };
}

export interface PolicyOptions {
  /** Every file path and process working directory must resolve inside this directory. */
  fileRoot?: string;
  /** @default "all" */
  exec?: ExecMode;
  /**
   * Start commands through the Node spawner when the native one was not built (or PINCER_SPAWNER=node),
   * accepting that processes which leave their process group outlive every stop. @default false (refuse to start)
   */
  allowNodeSpawner?: boolean;
  limits?: Partial<Limits>;
}

/** The effective security settings, as the startup line states them. */
export interface SecuritySummary {
  bind: string;
  auth: "none" | "token" | "mtls" | "token+mtls";
  tls: boolean;
  mtls: boolean;
  healthWithoutToken: boolean;
  insecure: boolean;
  fileRoot: string | null;
  exec: "all" | "none" | { allow: string[] };
  limits: { maxUploadBytes: number | null; maxProcesses: number; maxOutputBytes: number; maxMessageBytes: number };
  connections: ConnectionSettings;
  warnings: string[];
}

export interface Daemon {
  /** "host:port" the daemon listens on, with the real port when 0 was asked; "unix:/path" on a socket. */
  readonly address: string;
  readonly port: number;
  /** The X display driven (":N"), the daemon's own when `xvfb` was given. */
  readonly display: string;
  /** The Xvfb this daemon owns, if any; `exited` resolves if it dies or is stopped. */
  readonly xserver?: { pid: number; exited: Promise<unknown> };
  /** The accessibility bus this daemon owns, if any; `exited` resolves, saying what, if its session bus or launcher dies or is stopped. */
  readonly accessibilityBus?: { sessionBusAddress: string; exited: Promise<string> };
  readonly security: SecuritySummary;
  /** Stops accepting calls, waits for running ones up to `graceMs`, then cancels them. */
  close(graceMs?: number): Promise<void>;
}

/** Builds and starts the daemon's gRPC server. */
export async function startDaemon(opts: DaemonOptions = {}): Promise<Daemon> {
  const host = opts.host ?? "127.0.0.1";
  const log = opts.logger ?? createLogger();
  const sec = opts.security ?? {};
  const limits: Limits = { ...DEFAULT_LIMITS, ...opts.policy?.limits };
  const mtls = sec.tls?.clientCa !== undefined;
  // Everything that can refuse the configuration runs before anything starts.
  const warnings = exposureWarnings({ host, token: !!sec.token, tls: !!sec.tls, mtls, insecure: !!sec.insecure });
  const connections = connectionSettings(sec.connections ?? {}, (w) => log.warn(w));
  const fileRoot = opts.policy?.fileRoot ? realFileRoot(opts.policy.fileRoot) : undefined;
  const exec = opts.policy?.exec ?? "all";
  const allowlist = typeof exec === "object" ? new ExecAllowlist(exec.allow) : undefined;
  const driverSet = chooseDriverSet(opts.drivers);
  if (driverSet === "portable" && opts.captureMethod && opts.captureMethod !== "auto") {
    throw new Error(`--capture ${opts.captureMethod} chooses how the native drivers capture; the portable drivers capture through nut-js (drop --capture)`);
  }
  if (exec !== "none" && driverSet === "native") checkedSpawner(!!opts.policy?.allowNodeSpawner, (w) => warnings.push(w));
  if (exec !== "none" && driverSet === "portable") warnings.push(`commands start through execa (--drivers portable): ${EXECA_GAP}`);
  if (limits.maxOutputBytes > MAX_OUTPUT_BYTES || limits.maxOutputBytes < 1) {
    throw new Error(`--max-output-bytes: must be in 1..${MAX_OUTPUT_BYTES} (a Run reply carries stdout and stderr in one message)`);
  }
  if (limits.maxProcesses < 1) throw new Error("--max-processes: must be at least 1 (use --no-exec to refuse all commands)");
  if (limits.maxMessageBytes < 1024) throw new Error("--max-message-bytes: must be at least 1K (uploads need 1M plus a little)");
  if (opts.xvfb && opts.display) throw new Error("--xvfb and --display exclude each other: --xvfb starts its own display");
  if (opts.accessibilityBus && !opts.xvfb) {
    throw new Error(
      "--accessibility-bus needs --xvfb: it starts the buses for the daemon's own display; on an existing desktop, give the daemon " +
        "that session's DBUS_SESSION_BUS_ADDRESS instead",
    );
  }
  if (opts.accessibilityBus) accessibilityBusPrograms();
  if (opts.wallpaper && !opts.xvfb) {
    throw new Error("--wallpaper needs --xvfb: it draws the daemon's own screen; on an existing desktop, its session draws the background");
  }

  const xserver = opts.xvfb ? await startOwnXServer(opts.xvfb, opts.xvfbDisplay !== undefined ? { displayNumber: opts.xvfbDisplay } : {}) : undefined;
  if (xserver) {
    log.info("xvfb started", { display: xserver.display, pid: xserver.pid, screen: opts.xvfb });
    // Should the daemon die without close(), its X server must not outlive it.
    let running = true;
    void xserver.exited.then(() => (running = false));
    process.once("exit", () => {
      if (running) process.kill(xserver.pid, "SIGTERM");
    });
  }
  const display = xserver?.display ?? opts.display ?? process.env.DISPLAY ?? "";
  // Drawn while the rest starts, on a connection of its own, and done before the daemon serves:
  // the first screenshot already shows it.
  const painted = opts.wallpaper ? drawWallpaper(display, opts.wallpaper) : undefined;
  painted?.catch(() => undefined);
  let buses: AccessibilityBuses | undefined;
  try {
    buses = opts.accessibilityBus ? await ownAccessibilityBus(display, log) : undefined;
    return await serve(opts, { host, log, sec, limits, connections, mtls, warnings, fileRoot, exec, allowlist, display, driverSet, xserver, buses, painted });
  } catch (err) {
    await buses?.stop().catch(() => undefined);
    await xserver?.stop();
    throw err;
  }
}

/** Draws the wallpaper on `display` over a connection that is closed after: the root window keeps it. */
async function drawWallpaper(display: string, source: string | true): Promise<void> {
  const x = await openXConnection(display);
  try {
    await paintWallpaper(x, source);
  } finally {
    x.close();
  }
}

/** Starts the buses for the daemon's own display and makes them the daemon's (its environment, so its commands' too). */
async function ownAccessibilityBus(display: string, log: Logger): Promise<AccessibilityBuses> {
  const t0 = performance.now();
  const buses = await startAccessibilityBuses({ display });
  applyBusEnvironment(process.env, buses);
  log.info("accessibility bus started", { sessionBus: buses.sessionBusAddress, a11yBus: buses.a11yBusAddress, ms: Math.round(performance.now() - t0) });
  // Should the daemon die without close(), the buses must not outlive it (at-spi2-registryd never exits by itself).
  process.once("exit", () => buses.killNow());
  return buses;
}

interface Resolved {
  host: string;
  log: Logger;
  sec: SecurityOptions;
  limits: Limits;
  connections: ConnectionSettings;
  mtls: boolean;
  warnings: string[];
  fileRoot?: string;
  exec: ExecMode;
  allowlist?: ExecAllowlist;
  display: string;
  driverSet: DriverSetName;
  xserver?: OwnXServer;
  buses?: AccessibilityBuses;
  /** The wallpaper being drawn: the daemon is not returned (so prints no address) before it is. */
  painted?: Promise<void>;
}

async function serve(opts: DaemonOptions, r: Resolved): Promise<Daemon> {
  const { host, log, sec, xserver, buses } = r;
  const drivers = openDriverSet(r.driverSet, { display: r.display, ...(opts.captureMethod ? { captureMethod: opts.captureMethod } : {}) });
  log.info("drivers", { set: drivers.name, ...drivers.parts });
  drivers.warmUp();
  const guard = new ConnectionGuard(r.connections, log);
  const server = createServer(opts, r, guard);
  // Commands see the display the daemon drives.
  const processes = new ProcessTable(drivers.displayName ? { DISPLAY: drivers.displayName } : {}, drivers.spawner());
  for (const service of pincerServices(r, drivers, processes)) server.addService(service.definition, service.implementation);
  const health = addHealthAndReflection(server);
  // With the heap addon: after a collection the heap's free pages go back to the system too.
  const heap = heapControl();
  const collector = new IdleCollector({ release: () => drivers.releaseMemory(), ...(heap ? { trim: () => heap.trim() } : {}) });

  const streamWindow = raiseStreamWindow(server);
  const framesInPlace = frameChunksInPlace();
  const pooledReceive = decodeIntoPool();
  const bindHost = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
  const target = opts.socket ? `unix:${opts.socket}` : `${bindHost}:${opts.port ?? 50051}`;
  const bound = await new Promise<number>((resolve, reject) =>
    server.bindAsync(target, serverCredentials(sec.tls), (err, p) => (err ? reject(listenError(err, target)) : resolve(p))),
  );
  const port = opts.socket ? 0 : bound;
  const address = opts.socket ? target : `${bindHost}:${port}`;
  if (sec.token && !keepDuplicateAuthorization(server)) {
    log.warn("cannot see duplicate authorization headers (grpc-js internals changed): a call with two is judged by the first");
  }
  if (!guard.attach(server)) {
    log.warn("cannot watch connections (grpc-js internals changed): connections that never authenticate are not closed, and not capped");
  }
  if (!capEchoedHeaders(server)) log.warn("cannot cut long method names out of UNIMPLEMENTED replies (grpc-js internals changed)");
  if (!(streamWindow && raiseConnectionWindow(server))) {
    log.warn("could not raise the HTTP/2 flow-control window (grpc-js internals changed); file transfers will be slower");
  }
  if (!framesInPlace) log.warn("cannot send download chunks without a copy (grpc-js internals changed); downloads take more CPU");
  if (!pooledReceive) log.warn("cannot receive large messages into reused memory (grpc-js internals changed); uploads take more CPU");
  for (const w of r.warnings) log.warn(w);
  try {
    await r.painted;
  } catch (err) {
    server.forceShutdown();
    throw err;
  }
  // A display that cannot be used is said at start, not only by each input or screen call.
  void drivers.screen.screenSize().then(
    () => undefined,
    (err: unknown) => log.warn(`no usable display (input, screen, windows and clipboard calls fail until there is one): ${(err as Error).message}`),
  );

  let closed = false;
  // Once the address is out, so that the daemon's start does not wait for it (see ProcessTable.warmUp).
  const spawnerFailed = (err: unknown) => log.warn("could not start the spawner ahead of the first command", { error: String(err) });
  if (r.exec !== "none") setImmediate(() => closed || processes.warmUp(spawnerFailed));
  return {
    address,
    port,
    display: r.display,
    ...(xserver ? { xserver: { pid: xserver.pid, exited: xserver.exited } } : {}),
    ...(buses ? { accessibilityBus: { sessionBusAddress: buses.sessionBusAddress, exited: buses.exited } } : {}),
    security: securitySummary(r, address),
    async close(graceMs = 2_000) {
      if (closed) return;
      closed = true;
      for (const name of serviceNames()) health.setStatus(fullServiceName(name), "NOT_SERVING");
      await shutdown(server, graceMs);
      collector.close();
      processes.stopAll();
      await drivers.close();
      await buses?.stop().catch((err: unknown) => log.warn("could not stop the accessibility bus", { error: String(err) }));
      await xserver?.stop();
      await opts.audit?.sink.close();
    },
  };
}

/** The gRPC server with its interceptors, not yet listening. */
function createServer(opts: DaemonOptions, r: Resolved, guard: ConnectionGuard): grpc.Server {
  // Interceptors see incoming events first to last: audit (sees every outcome), then the token,
  // then the connection guard (a call that got past the token proves its connection), then the
  // exec switch, so an unauthenticated call is UNAUTHENTICATED whatever else it asks.
  const interceptors: grpc.ServerInterceptor[] = [];
  if (opts.audit) interceptors.push(auditInterceptor(opts.audit.sink, { debug: opts.audit.debug }));
  const { token, healthWithoutToken = true } = r.sec;
  if (token) interceptors.push(authInterceptor({ token, healthWithoutToken }));
  // With a token, a health check that needed none proves nothing about its connection.
  interceptors.push(guard.interceptor((path) => !(token && healthWithoutToken && path.startsWith(HEALTH_PREFIX))));
  if (r.exec === "none") {
    interceptors.push(denyInterceptor(`/${fullServiceName("Process")}/`, "this daemon runs no commands (started with --no-exec)"));
  }
  return new grpc.Server({
    "grpc.max_receive_message_length": r.limits.maxMessageBytes,
    "grpc.max_send_message_length": 80 * 1024 * 1024,
    "grpc.max_connection_idle_ms": r.connections.idleTimeoutMs,
    // Channelz bookkeeping costs time on every call and nothing here reads it.
    "grpc.enable_channelz": 0,
    interceptors,
  });
}

/**
 * The journal of uploads in progress, after removing the temporary files a daemon killed
 * mid-upload left behind; undefined (with a warning) when its directory cannot be made.
 */
function uploadJournal(log: Logger): UploadJournal | undefined {
  try {
    const journal = new UploadJournal(defaultJournalDir());
    const removed = journal.sweep();
    if (removed.length > 0) log.info("removed temporary files of interrupted uploads", { files: removed });
    return journal;
  } catch (err) {
    log.warn("no upload journal: temporary files of uploads cut by a crash will stay", { error: String(err) });
    return undefined;
  }
}

/** Every service of the contract, with its handlers. */
function pincerServices(r: Resolved, drivers: DriverSet, processes: ProcessTable): DefinedService<ServiceName>[] {
  const { log, limits } = r;
  const journal = uploadJournal(log);
  const services = [
    inputService(drivers.input, log),
    screenService(drivers.screen, log),
    accessibilityService(drivers.displayName, log),
    systemService(drivers, log, r.warnings),
    filesService(log, {
      ...(r.fileRoot ? { jail: fileRoot(r.fileRoot) } : {}),
      ...(journal ? { journal } : {}),
      maxUploadBytes: limits.maxUploadBytes,
    }),
    processService(processes, drivers, log, {
      allowlist: r.allowlist,
      fileRoot: r.fileRoot,
      maxProcesses: limits.maxProcesses,
      maxOutputBytes: limits.maxOutputBytes,
    }),
  ] as DefinedService<ServiceName>[];
  const missing = serviceNames().filter((name) => !services.some((s) => s.name === name));
  if (missing.length > 0) throw new Error(`no implementation of ${missing.join(", ")}`);
  return services;
}

/** The standard health service (every Pincer service SERVING) and reflection over all of them. */
function addHealthAndReflection(server: grpc.Server): HealthImplementation {
  const names = serviceNames().map(fullServiceName);
  const health = new HealthImplementation(Object.fromEntries([["", "SERVING"], ...names.map((s) => [s, "SERVING"])]));
  health.addToServer(server);
  // Reflection serves the descriptors protoc built from proto/ (scripts/gen.ts): every service this
  // server has, the health and reflection services included, with the .proto files' names and comments.
  addReflection(server, Buffer.from(DESCRIPTOR_SET_BASE64, "base64"));
  return health;
}

/** Stops accepting calls, waits for running ones up to `graceMs`, then cancels them. */
function shutdown(server: grpc.Server, graceMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      server.forceShutdown();
      resolve();
    }, graceMs);
    server.tryShutdown(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** The effective security settings, as the startup line states them. */
function securitySummary(r: Resolved, bind: string): SecuritySummary {
  const { sec, limits } = r;
  return {
    bind,
    auth: sec.token ? (r.mtls ? "token+mtls" : "token") : r.mtls ? "mtls" : "none",
    tls: !!sec.tls,
    mtls: r.mtls,
    healthWithoutToken: sec.token ? (sec.healthWithoutToken ?? true) : true,
    insecure: !!sec.insecure,
    fileRoot: r.fileRoot ?? null,
    exec: typeof r.exec === "object" ? { allow: r.exec.allow } : r.exec,
    limits: {
      maxUploadBytes: Number.isFinite(limits.maxUploadBytes) ? limits.maxUploadBytes : null,
      maxProcesses: limits.maxProcesses,
      maxOutputBytes: limits.maxOutputBytes,
      maxMessageBytes: limits.maxMessageBytes,
    },
    connections: r.connections,
    warnings: r.warnings,
  };
}

/** Why the daemon cannot listen on `target`, in words, from grpc-js's "No address added …" error. */
function listenError(err: Error, target: string): Error {
  const code = /\b(EADDRINUSE|EACCES|EADDRNOTAVAIL|ENOENT)\b/.exec(err.message)?.[1];
  const what: Record<string, string> = {
    EADDRINUSE: "the port is in use (another pincer-daemon?): choose another with --port, or --port 0 for any free one",
    EACCES: "not allowed (a port below 1024 needs privileges, or the socket's folder is not writable): choose another --port or --socket",
    EADDRNOTAVAIL: "that address is not one of this machine's: give one of its own with --host (0.0.0.0 for all)",
    ENOENT: "the socket's folder does not exist: create it or choose another --socket",
  };
  return new Error(`cannot listen on ${target}: ${code ? what[code] : err.message}`);
}
