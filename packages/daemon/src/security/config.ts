import { readFileSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import { isIP } from "node:net";
import { userInfo } from "node:os";
import { parseBytes } from "./policy.js";

/** True for addresses only this machine can reach. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  if (h === "localhost" || h === "::1") return true;
  if (isIP(h) === 4) return h.startsWith("127.");
  return /^::ffff:127\./.test(h);
}

/** What decides whether the daemon may listen where it was told to. */
export interface Exposure {
  host: string;
  token: boolean;
  tls: boolean;
  mtls: boolean;
  insecure: boolean;
}

/**
 * Refuses to listen on an interface other machines can reach without a token or mutual TLS,
 * unless --insecure; returns the warnings to log loudly and to report in System/GetInfo.
 */
export function exposureWarnings(e: Exposure): string[] {
  if (isLoopback(e.host)) return [];
  const where = `${e.host}`;
  if (!e.token && !e.mtls) {
    if (!e.insecure) {
      throw new Error(
        `refusing to listen on ${where} without authentication: anyone who can reach the port could run commands and read and write files. ` +
          `Give a token (--token-file FILE, or the PINCER_TOKEN environment variable), or mutual TLS (--tls-cert, --tls-key, --tls-client-ca), ` +
          `or --insecure if every machine that can reach ${where} is trusted.`,
      );
    }
    return [
      `INSECURE: listening on ${where} with no authentication (--insecure): anyone who can reach this port can run commands, ` +
        `read and write files and drive the screen as user ${userInfo().username}`,
    ];
  }
  if (e.token && !e.tls) {
    return [`the token travels in plain text on ${where}: anyone on the network path can read it; add --tls-cert and --tls-key`];
  }
  return [];
}

/** Option names (as commander stores them) that a config file may set, and how to read each. */
type Kind = "string" | "path" | "boolean" | "int" | "bytes" | "list" | "pathOrBoolean";
const CONFIG_KEYS: Record<string, { kind: Kind; attr?: string; invert?: boolean }> = {
  host: { kind: "string" },
  port: { kind: "int" },
  display: { kind: "string" },
  capture: { kind: "string" },
  drivers: { kind: "string" },
  quiet: { kind: "boolean" },
  xvfb: { kind: "string" },
  accessibilityBus: { kind: "boolean" },
  wallpaper: { kind: "pathOrBoolean" },
  tokenFile: { kind: "path" },
  healthAuth: { kind: "boolean" },
  tlsCert: { kind: "path" },
  tlsKey: { kind: "path" },
  tlsClientCa: { kind: "path" },
  insecure: { kind: "boolean" },
  fileRoot: { kind: "path" },
  noExec: { kind: "boolean", attr: "exec", invert: true },
  execAllow: { kind: "list" },
  allowNodeSpawner: { kind: "boolean" },
  maxUploadBytes: { kind: "bytes" },
  maxProcesses: { kind: "int" },
  maxOutputBytes: { kind: "bytes" },
  maxMessageBytes: { kind: "bytes" },
  handshakeTimeoutMs: { kind: "int" },
  maxUnauthenticatedConnections: { kind: "int" },
  idleTimeoutMs: { kind: "int" },
  auditFile: { kind: "path" },
  auditDebug: { kind: "boolean" },
};

/** The keys a config file may hold, for --help and error messages. */
export const CONFIG_FILE_KEYS = Object.keys(CONFIG_KEYS);

/**
 * Reads a JSON config file into option values keyed like commander's (camelCase, `noExec` becomes
 * `exec: false`). Relative paths in it are relative to the file. Unknown keys and wrong types are
 * errors that name the key, so a typo cannot silently leave a policy off. A token itself is not
 * accepted here: use `tokenFile`, so the config file can stay world-readable.
 */
export function readConfigFile(path: string): Record<string, unknown> {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (err) {
    throw new Error(`--config ${path}: ${(err as Error).message}`);
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw new Error(`--config ${path}: must hold one JSON object`);
  const base = dirname(resolve(path));
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    const spec = CONFIG_KEYS[key];
    const where = `--config ${path}: ${key}`;
    if (!spec) {
      const hint = key === "token" ? " (put the token in a file and give tokenFile)" : `; known keys: ${CONFIG_FILE_KEYS.join(", ")}`;
      throw new Error(`${where}: unknown key${hint}`);
    }
    let v: unknown;
    switch (spec.kind) {
      case "string":
      case "path":
        if (typeof value !== "string" || !value) throw new Error(`${where}: must be a non-empty string`);
        v = spec.kind === "path" && !isAbsolute(value) ? resolve(base, value) : value;
        break;
      case "pathOrBoolean":
        if (typeof value === "boolean") v = value;
        else if (typeof value === "string" && value) v = isAbsolute(value) ? value : resolve(base, value);
        else throw new Error(`${where}: must be true, false or a file's path`);
        break;
      case "boolean":
        if (typeof value !== "boolean") throw new Error(`${where}: must be true or false`);
        v = spec.invert ? !value : value;
        break;
      case "int":
        if (!Number.isSafeInteger(value) || (value as number) < 0) throw new Error(`${where}: must be a whole number`);
        v = value;
        break;
      case "bytes":
        if (typeof value !== "number" && typeof value !== "string") throw new Error(`${where}: must be a byte count or a size such as "100M"`);
        v = parseBytes(value, where);
        break;
      case "list":
        if (typeof value === "string") v = splitList(value);
        else if (Array.isArray(value) && value.every((x) => typeof x === "string")) v = value;
        else throw new Error(`${where}: must be a list of strings or a comma-separated string`);
        break;
    }
    out[spec.attr ?? key] = v;
  }
  return out;
}

export function splitList(value: string): string[] {
  return value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Boolean environment variables: "1", "true", "yes", "on" set the flag; "0", "false", "no", "off", "" do not. */
export function envFlag(value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  const v = value.trim().toLowerCase();
  if (["1", "true", "yes", "on"].includes(v)) return true;
  if (["0", "false", "no", "off", ""].includes(v)) return false;
  throw new Error(`${JSON.stringify(value)} is not a boolean; use 1 or 0`);
}
