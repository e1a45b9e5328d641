import { Option, type Command } from "commander";
import type { DefaultCredentials } from "../machines/credentials.js";

/**
 * Adds the options that say how to reach secured daemons: a token file and TLS files, used for
 * every machine given by address (a machines file's entries may give their own). PINCER_TOKEN
 * stands in for --token-file.
 */
export function addCredentialOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option("--token-file <file>", "file holding the daemons' token (default: the PINCER_TOKEN environment variable)"))
    .addOption(new Option("--tls", "connect with TLS, trusting the system's CAs (implied by the other --tls-* options)"))
    .addOption(new Option("--tls-ca <file>", "PEM of the CA that signed the daemons' certificates"))
    .addOption(new Option("--tls-cert <file>", "client certificate (PEM), for daemons started with --tls-client-ca"))
    .addOption(new Option("--tls-key <file>", "private key of --tls-cert"))
    .addOption(new Option("--tls-server-name <name>", "name to check the daemons' certificates against, when the address differs"));
}

/** The credential flags of a parsed command. */
export function credentialFlags(o: Record<string, unknown>): DefaultCredentials {
  const pick = (k: string) => (typeof o[k] === "string" ? { [k]: o[k] as string } : {});
  if ((o.tlsCert === undefined) !== (o.tlsKey === undefined)) throw new Error("--tls-cert and --tls-key go together (a client certificate needs its key)");
  return {
    ...pick("tokenFile"),
    ...(o.tls === true ? { tls: true } : {}),
    ...pick("tlsCa"),
    ...pick("tlsCert"),
    ...pick("tlsKey"),
    ...pick("tlsServerName"),
  };
}
