import { readFileSync } from "node:fs";
import * as tls from "node:tls";
import { dirname, isAbsolute, resolve } from "node:path";
import { InvalidArgumentError } from "@pincer/shared";
import { parse as parseYaml } from "yaml";
import type { ConnectOptions, TlsConnectOptions } from "../env/index.js";
import { machinesFileProblems, machinesFileSchema } from "./machinesFileSchema.js";

/** How to reach one machine: its daemon's address and the credentials that daemon asks for. */
export interface MachineSpec {
  /** "host:port" of its pincer-daemon. */
  address: string;
  /** File holding the daemon's token. */
  tokenFile?: string;
  /** TLS to the daemon (`true`: with the system's trusted CAs). File paths in a machines file are relative to it. */
  tls?: true | TlsConnectOptions;
  /** A command (a /bin/sh line, run through the daemon) that returns the machine to its clean state. */
  reset?: string;
}

/** Credentials for every machine that does not give its own (the CLI fills them from its --token-file and --tls-* flags). */
export interface DefaultCredentials {
  tokenFile?: string;
  tls?: boolean;
  tlsCa?: string;
  tlsCert?: string;
  tlsKey?: string;
  tlsServerName?: string;
}

/** The TLS part of the defaults, or undefined when they give none. */
function defaultTls(f: DefaultCredentials): MachineSpec["tls"] {
  const files = {
    ...(f.tlsCa ? { ca: f.tlsCa } : {}),
    ...(f.tlsCert ? { cert: f.tlsCert } : {}),
    ...(f.tlsKey ? { key: f.tlsKey } : {}),
    ...(f.tlsServerName ? { serverName: f.tlsServerName } : {}),
  };
  if (Object.keys(files).length > 0) return files;
  return f.tls ? true : undefined;
}

/** A machine given as a bare address, with the default credentials. */
export function machineSpecOf(address: string, f: DefaultCredentials): MachineSpec {
  const t = defaultTls(f);
  return { address, ...(f.tokenFile ? { tokenFile: f.tokenFile } : {}), ...(t ? { tls: t } : {}) };
}

/**
 * The options of `connect` for a machine. The token comes from its token file, else from
 * PINCER_TOKEN in the controller's environment.
 */
export function connectOptionsOf(m: MachineSpec, env: NodeJS.ProcessEnv = process.env): ConnectOptions {
  return {
    ...(m.tokenFile ? { tokenFile: m.tokenFile } : env.PINCER_TOKEN ? { token: env.PINCER_TOKEN.trim() } : {}),
    ...(m.tls ? { tls: m.tls } : {}),
  };
}

/**
 * Reads a machines file (JSON, or YAML by its .yaml/.yml extension): per environment name, one
 * machine or a list of them (slot i uses the i-th of each name), each with its address, token file,
 * TLS files and reset command. Relative file paths are relative to the machines file.
 *
 * ```json
 * { "desktop": [{ "address": "10.0.0.2:50051", "tokenFile": "desktop.token", "tls": { "ca": "ca.pem" } }],
 *   "server":  [{ "address": "10.0.0.3:50051", "tls": { "ca": "ca.pem", "cert": "me.pem", "key": "me.key" } }] }
 * ```
 */
export function loadMachinesFile(path: string, flags: DefaultCredentials = {}): Map<string, MachineSpec[]> {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new InvalidArgumentError(`--machines ${path}: cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  let raw: unknown;
  try {
    raw = /\.ya?ml$/i.test(path) ? parseYaml(text) : JSON.parse(text);
  } catch (err) {
    throw new InvalidArgumentError(`--machines ${path}: not valid ${/\.ya?ml$/i.test(path) ? "YAML" : "JSON"}: ${(err as Error).message}`);
  }
  const parsed = machinesFileSchema.safeParse(raw);
  if (!parsed.success) {
    throw new InvalidArgumentError(`--machines ${path}: ${machinesFileProblems(raw).join("; ")}`);
  }
  const base = dirname(resolve(path));
  const file = (p: string | undefined) => (p === undefined ? undefined : isAbsolute(p) ? p : resolve(base, p));
  const byName = new Map<string, MachineSpec[]>();
  for (const [name, value] of Object.entries(parsed.data)) {
    const list = Array.isArray(value) ? value : [value];
    byName.set(
      name,
      list.map((m) => {
        // The flags fill in what a machine does not say itself.
        const fallback = machineSpecOf(m.address, flags);
        const tlsValue =
          m.tls === true || m.tls === undefined
            ? (m.tls ?? fallback.tls)
            : {
                ...m.tls,
                ...(m.tls.ca ? { ca: file(m.tls.ca)! } : {}),
                ...(m.tls.cert ? { cert: file(m.tls.cert)! } : {}),
                ...(m.tls.key ? { key: file(m.tls.key)! } : {}),
              };
        const tokenFile = file(m.tokenFile) ?? fallback.tokenFile;
        return { address: m.address, ...(tokenFile ? { tokenFile } : {}), ...(tlsValue ? { tls: tlsValue } : {}), ...(m.reset ? { reset: m.reset } : {}) };
      }),
    );
  }
  return byName;
}

/** Splits "host:port" (IPv6 in brackets). */
function hostPort(address: string): { host: string; port: number } {
  const m = /^\[?([^\]]+?)\]?:(\d+)$/.exec(address);
  return { host: m?.[1] ?? address, port: Number(m?.[2] ?? 50051) };
}

function pemOf(value: string | Buffer | undefined): Buffer | undefined {
  if (value === undefined || Buffer.isBuffer(value)) return value;
  return value.includes("-----BEGIN") ? Buffer.from(value) : readFileSync(value);
}

/** One TLS handshake with `opts` (ALPN h2, as gRPC); resolves with the error, or undefined when it worked. */
function handshake(address: string, opts: tls.ConnectionOptions, timeoutMs = 5_000): Promise<Error | undefined> {
  const { host, port } = hostPort(address);
  return new Promise((done) => {
    const socket = tls.connect({ host, port, ALPNProtocols: ["h2"], ...opts });
    const finish = (err?: Error) => {
      clearTimeout(timer);
      socket.destroy();
      done(err);
    };
    const timer = setTimeout(() => finish(new Error(`no TLS answer within ${timeoutMs} ms`)), timeoutMs);
    // A server that requires a client certificate refuses it after the handshake (TLS 1.3): give it a moment.
    socket.once("secureConnect", () => setTimeout(() => finish(), 200));
    socket.once("error", finish);
    socket.once("close", () => finish(new Error("the connection closed during the TLS handshake")));
  });
}

/**
 * Why a machine that gRPC could not reach refused the connection, as a sentence naming the flag
 * that fixes it; undefined when the cause is not TLS (nothing listening, a network problem).
 */
export async function diagnoseTls(m: MachineSpec): Promise<string | undefined> {
  const servername = typeof m.tls === "object" ? m.tls.serverName : undefined;
  if (!m.tls) {
    // Does it speak TLS? Then the controller must too.
    const err = await handshake(m.address, { rejectUnauthorized: false, ...(servername ? { servername } : {}) });
    return err
      ? undefined
      : `${m.address} speaks TLS and was asked in plaintext: pass --tls-ca <the CA that signed its certificate> (or --tls for the system's CAs)`;
  }
  const t = m.tls === true ? {} : m.tls;
  const err = await handshake(m.address, {
    ...(t.ca ? { ca: pemOf(t.ca) } : {}),
    ...(t.cert ? { cert: pemOf(t.cert) } : {}),
    ...(t.key ? { key: pemOf(t.key) } : {}),
    ...(servername ? { servername } : {}),
  });
  if (!err) return undefined;
  const msg = err.message;
  if (/wrong version number|packet length too long|closed during the TLS handshake|ECONNRESET/i.test(msg) && !/alert/i.test(msg)) {
    return `${m.address} does not speak TLS (${msg}): leave out the TLS options for it, or start its daemon with --tls-cert and --tls-key`;
  }
  if (/certificate required|alert number 116|unknown ca|alert number 48|bad certificate|alert number 42/i.test(msg)) {
    return (
      `${m.address} requires a client certificate signed by its --tls-client-ca and did not accept ours (${msg.split("\n")[0]}): ` +
      "pass --tls-cert and --tls-key with a certificate that CA signed"
    );
  }
  if (/altnames|Hostname\/IP does not match|ERR_TLS_CERT_ALTNAME/i.test(msg)) {
    return `${m.address}'s certificate is not for this name (${msg}): pass --tls-server-name <the name in its certificate>`;
  }
  if (/verify|self[- ]signed|issuer|certificate/i.test(msg)) {
    return `${m.address}'s certificate is not signed by the CA given (${msg}): pass --tls-ca <the CA that signed the daemon's certificate>`;
  }
  return undefined;
}
