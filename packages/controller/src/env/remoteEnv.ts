import { readFileSync } from "node:fs";
import * as grpc from "@grpc/grpc-js";
import { InvalidArgumentError, TimeoutError, UnavailableError } from "@pincer/shared";
import { createClipboardApi, type ClipboardApi } from "./clipboard.js";
import { createFilesApi, type FilesApi } from "./files.js";
import { createKeyboardApi, type KeyboardApi } from "./keyboard.js";
import type { RpcInterceptor } from "./interceptors.js";
import { InFlightCalls, watchLink } from "./linkHealth.js";
import { createMouseApi, type MouseApi } from "./mouse.js";
import { createProcessApi, type ProcessApi } from "./process.js";
import { createPromiseClient, type RpcChannel } from "./rpc.js";
import { createScreenApi, type ScreenApi } from "./screen.js";
import { type AccessibilityApi, createAccessibilityApi } from "./accessibility.js";
import { createSystemApi, type SystemApi, type SystemInfo } from "./system.js";
import type { Env } from "./env.js";
import type { CallOptions } from "./types.js";
import { createWindowsApi, type WindowsApi } from "./windows.js";

/** Options of {@link connect}. */
export interface ConnectOptions {
  /** Deadline of each call that does not give its own `timeoutMs`, in milliseconds. @default 30_000 */
  defaultTimeoutMs?: number;
  /** Largest reply accepted, in bytes (screenshots are the big ones). @default 80 MiB */
  maxReceiveMessageBytes?: number;
  /**
   * The daemon's bearer token (its --token-file or PINCER_TOKEN), sent with every call as
   * `authorization: Bearer <token>`. Over plaintext only to loopback addresses is it private.
   */
  token?: string;
  /** A file holding the token (read once, at connect; surrounding whitespace ignored). */
  tokenFile?: string;
  /** Connect with TLS. `true`: TLS with the system's trusted CAs. */
  tls?: true | TlsConnectOptions;
  /**
   * How often the connection is checked: an HTTP/2 ping to the daemon, and, while calls are under
   * way, a new connection to its address (opened and closed at once) to tell a machine that is busy
   * from one that is gone (see `keepaliveTimeoutMs`). @default 10_000
   */
  keepaliveMs?: number;
  /**
   * A machine counts as gone when nothing accepts a connection at its address within this long:
   * the calls under way then fail with UnavailableError at once instead of waiting out their
   * deadlines. A daemon that is merely slow to answer (a loaded host) is still accepted by its
   * machine's kernel, and its calls keep waiting within their deadlines. @default 5_000
   */
  keepaliveTimeoutMs?: number;
  /**
   * The connection is given up (its calls fail with UnavailableError) when the daemon leaves a ping
   * unanswered this long although its machine still accepts connections: a daemon stopped or
   * wedged that long, or a path that lost this connection's state. @default 60_000
   */
  unresponsiveTimeoutMs?: number;
  /** Longest wait between attempts to reconnect after the connection failed. @default 5_000 */
  maxReconnectBackoffMs?: number;
  /**
   * Longest a connection attempt may stay unanswered before it is given up and started afresh.
   * grpc-js waits for the daemon's HTTP/2 settings without a limit, so an attempt made while a link
   * dropped packets would otherwise hang until TCP gives up, long after the link came back.
   * @default 10_000
   */
  connectTimeoutMs?: number;
  /**
   * Steps around every call of this env, unary and streaming, outermost first: logging, metrics,
   * metadata of your own (see {@link RpcInterceptor}). They come before the built-in ones, so they
   * see each call as its caller made it and the typed error it ends with. @default none
   */
  interceptors?: readonly RpcInterceptor[];
}

/** TLS to the daemon. Each value is a PEM string or Buffer, or a path to a PEM file. */
export interface TlsConnectOptions {
  /** CA that signed the daemon's certificate. @default the system's trusted CAs */
  ca?: string | Buffer;
  /** Client certificate, for a daemon started with --tls-client-ca (mutual TLS). */
  cert?: string | Buffer;
  /** Private key of `cert`. */
  key?: string | Buffer;
  /** Name to check the daemon's certificate against, when it differs from the address's host. */
  serverName?: string;
}

function pem(value: string | Buffer | undefined, what: string): Buffer | null {
  if (value === undefined) return null;
  if (Buffer.isBuffer(value)) return value;
  if (value.includes("-----BEGIN")) return Buffer.from(value);
  try {
    return readFileSync(value);
  } catch (err) {
    throw new InvalidArgumentError(
      `connect: tls.${what}: cannot read ${value} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}): give a PEM file, or its contents`,
    );
  }
}

function connectToken(opts: ConnectOptions): string | undefined {
  if (opts.token !== undefined && opts.tokenFile !== undefined) throw new InvalidArgumentError("connect: give token or tokenFile, not both");
  if (opts.tokenFile === undefined) return opts.token;
  try {
    return readFileSync(opts.tokenFile, "utf8").trim();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new InvalidArgumentError(
      `connect: tokenFile: cannot read ${opts.tokenFile} (${code}): ` +
        "give the file that holds the daemon's token (pincer-daemon --token-file), or the token itself as token",
    );
  }
}

/**
 * Adds the token to every call, unary and streaming. A client interceptor rather than call
 * credentials: grpc-js refuses call credentials on a plaintext channel, and a token over plaintext
 * to a loopback daemon is a supported setup.
 */
function bearerInterceptor(token: string): grpc.Interceptor {
  return (options, nextCall) =>
    new grpc.InterceptingCall(nextCall(options), {
      start(metadata, listener, next) {
        metadata.set("authorization", `Bearer ${token}`);
        next(metadata, listener);
      },
    });
}

function channelOptions(opts: ConnectOptions): grpc.ClientOptions {
  const token = connectToken(opts);
  const serverName = typeof opts.tls === "object" ? opts.tls.serverName : undefined;
  return {
    ...(token ? { interceptors: [bearerInterceptor(token)] } : {}),
    ...(serverName ? { "grpc.ssl_target_name_override": serverName, "grpc.default_authority": serverName } : {}),
    "grpc.max_receive_message_length": opts.maxReceiveMessageBytes ?? 80 * 1024 * 1024,
    "grpc.max_send_message_length": 8 * 1024 * 1024,
    "grpc.enable_retries": 0,
    // Pings keep the connection's state alive in NATs and firewalls on the way. One unanswered for
    // long (unresponsiveTimeoutMs) drops the connection; a machine that is gone is noticed sooner,
    // by the probe of linkHealth.ts. A link that came back is used again within the backoff (grpc's
    // default backoff grows to 120 s).
    "grpc.keepalive_time_ms": opts.keepaliveMs ?? 10_000,
    "grpc.keepalive_timeout_ms": opts.unresponsiveTimeoutMs ?? 60_000,
    "grpc.keepalive_permit_without_calls": 1,
    "grpc.initial_reconnect_backoff_ms": Math.min(1_000, opts.maxReconnectBackoffMs ?? 5_000),
    "grpc.max_reconnect_backoff_ms": opts.maxReconnectBackoffMs ?? 5_000,
    // Channelz bookkeeping costs time on every call and nothing here reads it.
    "grpc.enable_channelz": 0,
    // 64 KiB HTTP/2 windows stall downloads on a WINDOW_UPDATE round trip every 64 KiB.
    "grpc-node.flow_control_window": 16 * 1024 * 1024,
  };
}

function channelCredentials(tls: ConnectOptions["tls"]): grpc.ChannelCredentials {
  if (!tls) return grpc.credentials.createInsecure();
  if (tls === true) return grpc.credentials.createSsl();
  const cert = pem(tls.cert, "cert");
  const key = pem(tls.key, "key");
  if (!cert !== !key) throw new Error("connect: tls.cert and tls.key go together (a client certificate needs its key)");
  return grpc.credentials.createSsl(pem(tls.ca, "ca"), key, cert);
}

/**
 * Replaces the client (calls `replace`) when its channel has been CONNECTING for longer than
 * `timeoutMs`. Polls once a second on an unref'd timer, so it never keeps the process alive.
 */
function connectWatchdog(client: () => grpc.Client, replace: () => void, timeoutMs: number): NodeJS.Timeout {
  let connectingSince: number | undefined;
  const timer = setInterval(
    () => {
      const state = client().getChannel().getConnectivityState(false);
      if (state !== grpc.connectivityState.CONNECTING) {
        connectingSince = undefined;
        return;
      }
      connectingSince ??= Date.now();
      if (Date.now() - connectingSince >= timeoutMs) {
        connectingSince = undefined;
        replace();
      }
    },
    Math.min(1_000, timeoutMs / 2),
  );
  timer.unref();
  return timer;
}

/** How each RemoteEnv dials its daemon: a new client with its address, credentials and channel options. */
const dialers = new WeakMap<RemoteEnv, (own?: boolean) => grpc.Client>();

/**
 * A new grpc-js client of the daemon `env` is connected to, with the same credentials (token, TLS)
 * and channel options, on a connection of its own; undefined when `env` is not a {@link RemoteEnv}.
 * For calls forwarded as raw bytes (`pincer serve --grant-machines`). Close it when done.
 */
export function openDaemonClient(env: Env): grpc.Client | undefined {
  return env instanceof RemoteEnv ? dialers.get(env)?.(true) : undefined;
}

/** The real `env`: a typed gRPC client of one pincer-daemon. Build it with {@link connect}. */
export class RemoteEnv implements Env {
  readonly mouse: MouseApi;
  readonly keyboard: KeyboardApi;
  readonly screen: ScreenApi;
  readonly system: SystemApi;
  readonly files: FilesApi;
  readonly process: ProcessApi;
  readonly clipboard: ClipboardApi;
  readonly windows: WindowsApi;
  readonly accessibility: AccessibilityApi;
  #client: grpc.Client;
  /** Uploads' own connection, made at the first upload (see the constructor). */
  #uploadClient: grpc.Client | undefined;
  readonly #defaultTimeoutMs: number;
  #closed = false;
  readonly #watchdog: NodeJS.Timeout;
  readonly #calls = new InFlightCalls();
  readonly #stopWatchingLink: () => void;

  constructor(
    /** "host:port" of the daemon. */
    readonly address: string,
    opts: ConnectOptions = {},
  ) {
    checkAddress(address);
    this.#defaultTimeoutMs = opts.defaultTimeoutMs ?? 30_000;
    // One client and one HTTP/2 connection for every service of this daemon, but uploads. Those
    // get a connection of their own: Node's HTTP/2 stops reading a connection while one of its
    // writes waits for the socket, so an upload and a download on one connection, each allowed
    // 16 MiB in flight, could fill the socket both ways and hang until their deadlines. On their
    // own connection (a subchannel pool of its own; grpc-js otherwise shares one connection per
    // address) the upload's bytes go one way only.
    const newClient = (own = false) =>
      new grpc.Client(address, channelCredentials(opts.tls), { ...channelOptions(opts), ...(own ? { "grpc.use_local_subchannel_pool": 1 } : {}) });
    this.#client = newClient();
    dialers.set(this, newClient);
    const rpcChannel = (client: () => grpc.Client): RpcChannel => ({
      // Read per call: the client may have been replaced.
      get client() {
        return client();
      },
      address,
      defaultTimeoutMs: this.#defaultTimeoutMs,
      isClosed: () => this.#closed,
      calls: this.#calls,
      interceptors: [...(opts.interceptors ?? [])],
    });
    const channel = rpcChannel(() => this.#client);
    const uploads = rpcChannel(() => (this.#uploadClient ??= newClient(true)));
    // Fresh clients (and connections) for the calls that come next; uploads' at the next upload.
    const replaceClient = () => {
      const old = [this.#client, this.#uploadClient];
      this.#client = newClient();
      this.#uploadClient = undefined;
      for (const client of old) client?.close();
    };
    this.#watchdog = connectWatchdog(() => this.#client, replaceClient, opts.connectTimeoutMs ?? 10_000);
    this.#stopWatchingLink = watchLink(address, this.#calls, {
      intervalMs: opts.keepaliveMs ?? 10_000,
      timeoutMs: opts.keepaliveTimeoutMs ?? 5_000,
      onGone: (why) => {
        this.#calls.failAll(
          (label) =>
            new UnavailableError(
              `${label}: pincer-daemon at ${address} is unreachable (${why}): the machine or the network path to it is down; ` +
                "check that the machine is running and reachable from here",
            ),
        );
        replaceClient();
      },
    });
    const input = createPromiseClient("Input", channel);
    const system = createPromiseClient("System", channel);
    this.mouse = createMouseApi(input);
    this.keyboard = createKeyboardApi(input, this.#defaultTimeoutMs);
    this.screen = createScreenApi(createPromiseClient("Screen", channel));
    this.system = createSystemApi(system);
    this.files = createFilesApi(createPromiseClient("Files", channel), channel, createPromiseClient("Files", uploads));
    this.process = createProcessApi(createPromiseClient("Process", channel));
    this.clipboard = createClipboardApi(system);
    this.windows = createWindowsApi(system);
    this.accessibility = createAccessibilityApi(createPromiseClient("Accessibility", channel));
  }

  /** Waits until the daemon answers (it may still be starting), then returns its info. */
  async waitUntilReady(opts: CallOptions = {}): Promise<SystemInfo> {
    if (this.#closed) throw new UnavailableError(`waitUntilReady: the connection to ${this.address} is closed`);
    const timeoutMs = opts.timeoutMs ?? this.#defaultTimeoutMs;
    const deadline = Date.now() + timeoutMs;
    await new Promise<void>((resolve, reject) => {
      this.#client.waitForReady(deadline, (err) => {
        if (err) {
          reject(
            new TimeoutError(
              `pincer-daemon at ${this.address} did not come up within ${timeoutMs} ms (${err.message}); ` +
                `check that it is running and that the address is right`,
            ),
          );
        } else resolve();
      });
    });
    return this.system.info({ signal: opts.signal, timeoutMs: Math.max(1, deadline - Date.now()) });
  }

  /** Closes the connection. Calls after close fail with UnavailableError. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#watchdog);
    this.#stopWatchingLink();
    this.#client.close();
    this.#uploadClient?.close();
  }
}

/**
 * Refuses an address without a port: gRPC would dial port 443 and fail, or worse, reach another
 * server. Target schemes that grpc-js knows (unix:, dns:, ipv4:, ipv6:, …) pass as they are.
 */
function checkAddress(address: string): void {
  if (/^(unix|unix-abstract|dns|ipv4|ipv6|vsock):/.test(address)) return;
  if (!/^(\[[^\]]+\]|[^:[\]\s]+):\d+$/.test(address)) {
    const example = `${address.replace(/:$/, "") || "127.0.0.1"}:50051`;
    throw new InvalidArgumentError(
      `${JSON.stringify(address)} is not host:port: give the daemon's port, e.g. ${JSON.stringify(example)} (pincer-daemon's default)`,
    );
  }
}

/** Connects to a pincer-daemon at "host:port". The connection opens on the first call. */
export function connect(address: string, opts: ConnectOptions = {}): RemoteEnv {
  return new RemoteEnv(address, opts);
}
