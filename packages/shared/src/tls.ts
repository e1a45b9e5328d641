import { readFileSync } from "node:fs";
import * as grpc from "@grpc/grpc-js";

/** TLS material in PEM form. */
export interface TlsOptions {
  cert: Buffer;
  key: Buffer;
  /** Mutual TLS: only clients whose certificate this CA signed may connect. */
  clientCa?: Buffer;
}

/** Paths as given on the command line, in the environment or in the config file. */
export interface TlsFiles {
  cert?: string;
  key?: string;
  clientCa?: string;
}

function readPem(path: string, flag: string): Buffer {
  let pem: Buffer;
  try {
    pem = readFileSync(path);
  } catch (err) {
    throw new Error(`${flag} ${path}: ${(err as Error).message}`);
  }
  if (!pem.includes("-----BEGIN")) throw new Error(`${flag} ${path}: not a PEM file (no -----BEGIN line)`);
  return pem;
}

/** Reads the TLS files; undefined when none is given. */
export function loadTlsFiles(files: TlsFiles): TlsOptions | undefined {
  if (!files.cert && !files.key && !files.clientCa) return undefined;
  if (!files.cert || !files.key) {
    throw new Error(`TLS needs both --tls-cert and --tls-key${files.clientCa ? " (--tls-client-ca adds client checks to them)" : ""}`);
  }
  return {
    cert: readPem(files.cert, "--tls-cert"),
    key: readPem(files.key, "--tls-key"),
    ...(files.clientCa ? { clientCa: readPem(files.clientCa, "--tls-client-ca") } : {}),
  };
}

/** Server credentials: plaintext, TLS, or mutual TLS (client certificates required and checked). */
export function serverCredentials(tls: TlsOptions | undefined): grpc.ServerCredentials {
  if (!tls) return grpc.ServerCredentials.createInsecure();
  return grpc.ServerCredentials.createSsl(tls.clientCa ?? null, [{ private_key: tls.key, cert_chain: tls.cert }], tls.clientCa !== undefined);
}
