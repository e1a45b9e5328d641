#!/usr/bin/env -S MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=65536 MALLOC_TRIM_THRESHOLD_=131072 node --single-threaded-gc --max-semi-space-size=2
import { Command, InvalidArgumentError as CliArgumentError, Option } from "commander";
import { DAEMON_MALLOC_ENV, DAEMON_NODE_FLAGS, hasNodeFlags, loadTlsFiles, PINCER_VERSION, readTokenFile, validToken } from "@pincer/shared";
import { closeInheritedFds } from "./inheritedFds.js";
import { createLogger } from "./logger.js";
import { heapControl, heapControlMissing, raiseMmapThreshold, takeMallocEnv } from "./memory.js";
import { startDaemon, type DaemonOptions } from "./server.js";
import type { CaptureMethod } from "./drivers/screen.js";
import { createAuditSink } from "./security/audit.js";
import { CONFIG_FILE_KEYS, envFlag, readConfigFile, splitList } from "./security/config.js";
import { parseBytes, type ExecMode } from "./security/policy.js";
import { takeStartVariable } from "./security/environ.js";
import { closeMemoryToOtherProcesses } from "./security/memoryAccess.js";

// First, while this process may still write its own /proc/self/mem: PINCER_TOKEN out of what its
// commands inherit and what /proc/<pid>/environ shows; then its memory, where the token will be,
// closed to those commands (they run as its user).
const envToken = takeStartVariable("PINCER_TOKEN");
const memoryOpen = closeMemoryToOtherProcesses();

/** Commander wants its own error type from parsers, to print "option '--x' argument ... is invalid". */
function cli<T>(parse: (value: string) => T): (value: string) => T {
  return (value) => {
    try {
      return parse(value);
    } catch (err) {
      throw new CliArgumentError((err as Error).message);
    }
  };
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CliArgumentError("must be an integer in 0..65535 (0 picks a free port)");
  return port;
}

function parseCount(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 1) throw new Error("must be a whole number of at least 1");
  return n;
}

const bytes = (flag: string) => cli((v) => parseBytes(v, flag));

/** On SIGTERM, running calls get this long to end before they are cancelled, in ms. */
const STOP_GRACE_MS = 150;
/** On SIGTERM, the process exits within this long whatever is still stopping, in ms. */
const STOP_DEADLINE_MS = 600;

const program = new Command("pincer-daemon")
  .description("Exposes this machine's mouse, keyboard, screen, files and processes to Pincer controllers over gRPC.")
  .version(PINCER_VERSION)
  .addOption(new Option("--config <file>", 'JSON file with any of the settings below (keys in camelCase, e.g. "fileRoot")').env("PINCER_CONFIG"))
  .addOption(
    new Option("--host <host>", "interface to listen on; any but loopback needs a token or mutual TLS, or --insecure").env("PINCER_HOST").default("127.0.0.1"),
  )
  .addOption(new Option("--port <port>", "TCP port; 0 picks a free one").env("PINCER_PORT").argParser(parsePort).default(50051))
  .addOption(
    new Option("--socket <path>", "listen on this unix socket instead of --host/--port (its folder's permissions decide who may connect)").env("PINCER_SOCKET"),
  )
  .addOption(new Option("--display <display>", "X display to drive, e.g. :1 (default: $DISPLAY)").env("PINCER_DISPLAY"))
  .addOption(new Option("--xvfb <WxHxD>", "start and own an Xvfb of this size (e.g. 1920x1080x24) and drive it; stopped on exit").env("PINCER_XVFB"))
  .addOption(
    new Option("--xvfb-display <n>", "display number of the --xvfb server (default: the first free one)").argParser((v: string) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 0 || n > 65_535) throw new Error(`--xvfb-display ${v}: give a display number, e.g. 100`);
      return n;
    }),
  )
  .addOption(
    new Option(
      "--accessibility-bus",
      "with --xvfb: start a private D-Bus session bus and the AT-SPI accessibility bus for it (Accessibility/GetTree; commands run get them)",
    ).env("PINCER_ACCESSIBILITY_BUS"),
  )
  .addOption(
    new Option(
      "--wallpaper [image]",
      "with --xvfb: draw a desktop background before serving: Pincer's own (a gradient and a bar along the bottom), or this image file",
    ).env("PINCER_WALLPAPER"),
  )
  .addOption(
    new Option(
      "--drivers <set>",
      "what does the work: native (XTEST, X shared memory, the native spawner; Linux with X11) or portable " +
        "(nut-js, sharp, execa; any desktop nut-js supports); auto: native on Linux, portable elsewhere",
    )
      .choices(["auto", "native", "portable"])
      .env("PINCER_DRIVERS")
      .default("auto"),
  )
  .addOption(
    new Option(
      "--capture <method>",
      "how screenshots are read: auto (X shared memory, else getimage), getimage (GetImage over the X connection) or screenshot-desktop (ImageMagick, slow)",
    )
      .choices(["auto", "getimage", "nut-js", "screenshot-desktop"])
      .env("PINCER_CAPTURE")
      .default("auto"),
  )
  .addOption(
    new Option("--token-file <file>", "file holding the bearer token every call must carry (or set PINCER_TOKEN to the token itself)").env("PINCER_TOKEN_FILE"),
  )
  .addOption(new Option("--health-auth", "require the token for grpc.health.v1 health checks too (by default they need none)").env("PINCER_HEALTH_AUTH"))
  .addOption(new Option("--tls-cert <file>", "serve TLS with this PEM certificate (chain)").env("PINCER_TLS_CERT"))
  .addOption(new Option("--tls-key <file>", "PEM private key of --tls-cert").env("PINCER_TLS_KEY"))
  .addOption(new Option("--tls-client-ca <file>", "mutual TLS: accept only clients with a certificate signed by this PEM CA").env("PINCER_TLS_CLIENT_CA"))
  .addOption(new Option("--insecure", "allow listening beyond loopback with no token and no mutual TLS (warns loudly)").env("PINCER_INSECURE"))
  .addOption(
    new Option("--file-root <dir>", "every file path and process working directory must resolve (after .. and symlinks) inside this directory").env(
      "PINCER_FILE_ROOT",
    ),
  )
  .addOption(new Option("--no-exec", "refuse every Process call (run, start, launch, signal, list)").env("PINCER_NO_EXEC"))
  .addOption(
    new Option(
      "--allow-node-spawner",
      "start even without the native spawner (no C compiler at install): processes that call setsid or daemon(3) then outlive every stop",
    ).env("PINCER_ALLOW_NODE_SPAWNER"),
  )
  .addOption(
    new Option("--exec-allow <programs>", "run only these programs: comma-separated names (found on PATH) or absolute paths; shell command lines need sh")
      .env("PINCER_EXEC_ALLOW")
      .argParser(splitList),
  )
  .addOption(
    new Option("--max-upload-bytes <size>", "largest file one upload may write, e.g. 500M (default: no limit)")
      .env("PINCER_MAX_UPLOAD_BYTES")
      .argParser(bytes("--max-upload-bytes")),
  )
  .addOption(new Option("--max-processes <n>", "most commands running at once").env("PINCER_MAX_PROCESSES").argParser(cli(parseCount)).default(64))
  .addOption(
    new Option("--max-output-bytes <size>", "most bytes Process/Run keeps of stdout and of stderr (at most 32M)")
      .env("PINCER_MAX_OUTPUT_BYTES")
      .argParser(bytes("--max-output-bytes"))
      .default(32 * 1024 * 1024, "32M"),
  )
  .addOption(
    new Option("--max-message-bytes <size>", "largest request message accepted")
      .env("PINCER_MAX_MESSAGE_BYTES")
      .argParser(bytes("--max-message-bytes"))
      .default(8 * 1024 * 1024, "8M"),
  )
  .addOption(
    new Option(
      "--handshake-timeout-ms <ms>",
      "close a connection that has no call let in (past the token, when there is one) within this long: TLS, HTTP/2 set-up and the call's headers",
    )
      .env("PINCER_HANDSHAKE_TIMEOUT_MS")
      .argParser(cli(parseCount))
      .default(10_000),
  )
  .addOption(
    new Option("--max-unauthenticated-connections <n>", "most connections open at once with no call let in yet; the oldest is closed for a new one")
      .env("PINCER_MAX_UNAUTHENTICATED_CONNECTIONS")
      .argParser(cli(parseCount))
      .default(128, "128, at most half the open-files limit"),
  )
  .addOption(
    new Option("--idle-timeout-ms <ms>", "close a connection with no call for this long (clients reconnect when they need to)")
      .env("PINCER_IDLE_TIMEOUT_MS")
      .argParser(cli(parseCount))
      .default(300_000),
  )
  .addOption(new Option("--audit-file <file>", "append the audit log (one JSON line per call) to this file instead of stderr").env("PINCER_AUDIT_FILE"))
  .addOption(
    new Option("--audit-debug", "also log each call's first request message (may hold typed text, paths, commands, file bytes)").env("PINCER_AUDIT_DEBUG"),
  )
  .addOption(new Option("--quiet", "log warnings and errors only (the audit log and the security line stay)").env("PINCER_QUIET"))
  .addOption(
    new Option(
      "--exit-with-stdin",
      "stop (as on SIGTERM) when stdin closes: a parent that keeps a pipe to it open cannot die, even by SIGKILL, and leave the daemon behind",
    ),
  )
  .addHelpText(
    "after",
    `
Precedence: command-line flags, then PINCER_* environment variables, then the --config file, then defaults.
PINCER_TOKEN=<token> gives the token itself (never as a flag: 'ps' would show it); it is removed from
the environment of the commands the daemon runs and erased from /proc/<pid>/environ (Linux).
Generate one with: openssl rand -hex 32
Config file keys: ${CONFIG_FILE_KEYS.join(", ")}.
Boolean environment variables take 1/0 (true/false, yes/no). Sizes take bytes or K, M, G (binary).

Examples:
  pincer-daemon                                             # 127.0.0.1:50051, $DISPLAY
  pincer-daemon --xvfb 1920x1080x24                         # headless: its own X server
  pincer-daemon --xvfb 1920x1080x24 --accessibility-bus     # … with an accessibility bus for Accessibility/GetTree
  pincer-daemon --xvfb 1920x1080x24 --wallpaper             # … showing a desktop background instead of black
  PINCER_TOKEN=$(cat token) pincer-daemon --host 0.0.0.0 --tls-cert c.pem --tls-key k.pem
  pincer-daemon --host 0.0.0.0 --token-file /etc/pincer/token --file-root /srv/tasks --exec-allow ls,python3`,
  )
  // `npx pincer-daemon -- --help` hands the `--` on; the daemon takes no arguments, so a leading one ends nothing.
  .parse(process.argv[2] === "--" ? [...process.argv.slice(0, 2), ...process.argv.slice(3)] : process.argv);

type Opts = {
  config?: string;
  host: string;
  port: number;
  socket?: string;
  display?: string;
  xvfb?: string;
  xvfbDisplay?: number;
  accessibilityBus?: boolean;
  wallpaper?: string | true;
  capture: CaptureMethod;
  drivers: "auto" | "native" | "portable";
  tokenFile?: string;
  healthAuth?: boolean;
  tlsCert?: string;
  tlsKey?: string;
  tlsClientCa?: string;
  insecure?: boolean;
  fileRoot?: string;
  exec: boolean;
  execAllow?: string[];
  allowNodeSpawner?: boolean;
  maxUploadBytes?: number;
  maxProcesses: number;
  maxOutputBytes: number;
  maxMessageBytes: number;
  handshakeTimeoutMs: number;
  maxUnauthenticatedConnections: number;
  idleTimeoutMs: number;
  auditFile?: string;
  auditDebug?: boolean;
  quiet?: boolean;
  exitWithStdin?: boolean;
};

const BOOLEAN_ENV: Record<string, string> = {
  healthAuth: "PINCER_HEALTH_AUTH",
  accessibilityBus: "PINCER_ACCESSIBILITY_BUS",
  insecure: "PINCER_INSECURE",
  exec: "PINCER_NO_EXEC",
  auditDebug: "PINCER_AUDIT_DEBUG",
  allowNodeSpawner: "PINCER_ALLOW_NODE_SPAWNER",
  quiet: "PINCER_QUIET",
};

/** Flags > environment > config file > defaults. Commander does the first two; this adds the file. */
function effectiveOptions(): Opts {
  // Commander turns a boolean flag on whenever its variable is set, even to "0"; read the value.
  for (const [key, name] of Object.entries(BOOLEAN_ENV)) {
    if (program.getOptionValueSource(key) !== "env") continue;
    const on = envFlag(process.env[name]);
    if (!on) program.setOptionValueWithSource(key, key === "exec", "default");
  }
  // PINCER_WALLPAPER=1 asks for Pincer's own wallpaper, =0 for none; any other value is an image file.
  if (program.getOptionValueSource("wallpaper") === "env") {
    const raw = process.env.PINCER_WALLPAPER ?? "";
    const flag = /^(1|0|true|false|yes|no|on|off|)$/i.test(raw.trim()) ? envFlag(raw) : undefined;
    if (flag !== undefined) program.setOptionValueWithSource("wallpaper", flag || undefined, flag ? "env" : "default");
  }
  const configPath = program.opts<Opts>().config;
  if (configPath) {
    for (const [key, value] of Object.entries(readConfigFile(configPath))) {
      const source = program.getOptionValueSource(key);
      if (source === "cli" || source === "env") continue;
      program.setOptionValueWithSource(key, value, "config");
    }
  }
  return program.opts<Opts>();
}

/** The token from --token-file / PINCER_TOKEN_FILE / the config file, or from PINCER_TOKEN. */
function token(o: Opts, warn: (msg: string) => void): string | undefined {
  const fromEnv = envToken.value;
  if (fromEnv !== undefined && !envToken.erased) {
    warn("PINCER_TOKEN could not be erased from /proc/<pid>/environ, where the daemon's user and root can read it; prefer --token-file");
  }
  const fileSource = program.getOptionValueSource("tokenFile");
  if (fromEnv !== undefined && o.tokenFile) {
    if (fileSource === "env") throw new Error("PINCER_TOKEN and PINCER_TOKEN_FILE are both set; keep one");
    if (fileSource === "cli") return read(o.tokenFile);
    return validToken(fromEnv, "PINCER_TOKEN");
  }
  if (fromEnv !== undefined) return validToken(fromEnv, "PINCER_TOKEN");
  if (o.tokenFile) return read(o.tokenFile);
  return undefined;

  function read(path: string): string {
    const { token, warning } = readTokenFile(path);
    if (warning) warn(warning);
    return token;
  }
}

function daemonOptions(o: Opts, log: ReturnType<typeof createLogger>): DaemonOptions {
  if (!o.exec && o.execAllow) throw new Error("--no-exec and --exec-allow exclude each other");
  if (!["auto", "getimage", "nut-js", "screenshot-desktop"].includes(o.capture))
    throw new Error(`capture: ${JSON.stringify(o.capture)} is not auto, getimage or screenshot-desktop`);
  const exec: ExecMode = !o.exec ? "none" : o.execAllow ? { allow: o.execAllow } : "all";
  return {
    host: o.host,
    port: o.port,
    ...(o.socket ? { socket: o.socket } : {}),
    display: o.display,
    xvfb: o.xvfb,
    ...(o.xvfbDisplay !== undefined ? { xvfbDisplay: o.xvfbDisplay } : {}),
    ...(o.accessibilityBus ? { accessibilityBus: true } : {}),
    ...(o.wallpaper ? { wallpaper: o.wallpaper } : {}),
    captureMethod: o.capture,
    drivers: o.drivers,
    logger: log,
    security: {
      token: token(o, (m) => log.warn(m)),
      healthWithoutToken: !o.healthAuth,
      tls: loadTlsFiles({ cert: o.tlsCert, key: o.tlsKey, clientCa: o.tlsClientCa }),
      insecure: !!o.insecure,
      connections: { handshakeTimeoutMs: o.handshakeTimeoutMs, maxUnauthenticated: o.maxUnauthenticatedConnections, idleTimeoutMs: o.idleTimeoutMs },
    },
    policy: {
      fileRoot: o.fileRoot,
      exec,
      allowNodeSpawner: !!o.allowNodeSpawner,
      limits: {
        maxUploadBytes: o.maxUploadBytes ?? Infinity,
        maxProcesses: o.maxProcesses,
        maxOutputBytes: o.maxOutputBytes,
        maxMessageBytes: o.maxMessageBytes,
      },
    },
    audit: { sink: createAuditSink(o.auditFile), debug: !!o.auditDebug },
  };
}

let opts: Opts;
let log = createLogger();
let config: DaemonOptions;
try {
  opts = effectiveOptions();
  log = createLogger({ quiet: opts.quiet });
  config = daemonOptions(opts, log);
} catch (err) {
  process.stderr.write(`pincer-daemon: ${(err as Error).message}\n`);
  process.exit(2);
}

// glibc read the malloc settings when the process started; the commands this daemon runs are the
// machine's programs and get the environment they would have had without them.
const mallocSettings = takeMallocEnv();
// Transfer buffers back on the heap, where they are reused, when the idle trim can give it back.
const mmapThreshold = raiseMmapThreshold(mallocSettings, heapControl());
// Before anything starts a command: what the daemon's parent left open is not the commands' to have.
const inheritedFds = closeInheritedFds();
try {
  const daemon = await startDaemon(config);
  // Always written, --quiet or not, and before the address: what this daemon lets callers do.
  process.stderr.write(
    `${JSON.stringify({
      time: new Date().toISOString(),
      level: "info",
      msg: "security settings",
      ...daemon.security,
      audit: opts.auditFile ?? "stderr",
      auditDebug: !!opts.auditDebug,
    })}\n`,
  );
  // The one line on stdout: tools and tests read the address from it.
  process.stdout.write(`pincer-daemon listening on ${daemon.address}\n`);
  log.info("started", { address: daemon.address, display: daemon.display, version: PINCER_VERSION, nodeFlags: process.execArgv });
  if (inheritedFds.length > 0) log.info("closed descriptors inherited open from the parent (commands must not get them)", { fds: inheritedFds });
  if (!hasNodeFlags(process.execArgv, DAEMON_NODE_FLAGS)) {
    log.info(
      `started without ${DAEMON_NODE_FLAGS.join(" ")}: large transfers use about twice the CPU and memory stays higher; start it as ` +
        `node ${DAEMON_NODE_FLAGS.join(" ")} main.js (the installer, the images and local machines do)`,
    );
  }
  if (memoryOpen) {
    log.warn(`memory: the commands this daemon runs as its user can read it, token included (/proc/<pid>/mem): ${memoryOpen}; or run it as another user`);
  }
  if (mmapThreshold) log.info("heap: large buffers mapped from", { mmapThresholdBytes: mmapThreshold, trimWhenIdle: true });
  const noHeapControl = heapControlMissing();
  if (noHeapControl) log.info(`heap: no malloc_trim (${noHeapControl}); uploads are slower, since their buffers stay off the heap`);
  if (!mallocSettings) {
    const settings = Object.entries(DAEMON_MALLOC_ENV).map(([k, v]) => `${k}=${v}`);
    log.info(`started without ${settings.join(" ")}: memory freed after transfers and screenshots stays resident; start it with them set (its launchers do)`);
  }
  let stopping = false;
  const stop = (signal: string, code = 0) => {
    if (stopping) return;
    stopping = true;
    log.info("stopping", { signal });
    // Whatever is still stopping by then (an X server slow to exit, a loaded machine), the process
    // goes: its exit handlers kill its own Xvfb and buses, and its spawner kills the commands.
    setTimeout(() => {
      log.warn(`not stopped cleanly within ${STOP_DEADLINE_MS} ms; exiting now`);
      process.exit(code);
    }, STOP_DEADLINE_MS);
    daemon.close(STOP_GRACE_MS).then(
      () => process.exit(code),
      () => process.exit(1),
    );
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
  if (opts.exitWithStdin) {
    process.stdin.on("data", () => undefined);
    process.stdin.once("end", () => stop("stdin-closed"));
    process.stdin.once("error", () => stop("stdin-closed"));
  }
  void daemon.xserver?.exited.then(() => {
    if (stopping) return;
    log.error("the daemon's own Xvfb exited; stopping (a service manager will restart both)");
    stop("xvfb-exit", 1);
  });
  void daemon.accessibilityBus?.exited.then((what) => {
    if (stopping) return;
    log.error("the daemon's own accessibility bus exited; stopping (a service manager will restart the daemon)", { exited: what });
    stop("accessibility-bus-exit", 1);
  });
} catch (err) {
  process.stderr.write(`pincer-daemon: cannot start: ${(err as Error).message}\n`);
  process.exit(1);
}
