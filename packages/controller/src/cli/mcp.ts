import { InvalidArgumentError as CliArgumentError, Option, type Command } from "commander";
import { connect } from "../env/index.js";
import { UnauthenticatedError, UnavailableError } from "@pincer/shared";
import { connectOptionsOf, machineSpecOf, type DefaultCredentials, type MachineSpec } from "../machines/credentials.js";
import { machineProblem } from "../machines/remoteProvider.js";
import { addCredentialOptions, credentialFlags } from "./credentials.js";
import { createMcpServer } from "../mcp/server.js";
import { LineTransport } from "../mcp/stdioTransport.js";
import { bridgeToHttp } from "../mcp/httpBridge.js";

/** Options of `pincer mcp`. */
export interface McpCommandOptions {
  /** "host:port" of the daemon, or "name=host:port" as `run` and `check` take it (the name is not used). */
  env?: string;
  /** Instead of a machine: relay stdio to this streamable-HTTP MCP endpoint (an agent program's attempt), with PINCER_MCP_TOKEN. */
  connect?: string;
  /** File holding the daemon's bearer token. */
  tokenFile?: string;
  localRoot?: string;
  computerUse?: "anthropic" | "openai";
}

/**
 * Why `address` cannot be used, with the option that fixes it, when `err` says the daemon is down or
 * refused the handshake or the token; undefined for any other error.
 */
async function unusableMachine(err: Error, spec: MachineSpec, address: string): Promise<string | undefined> {
  if (!(err instanceof UnauthenticatedError || err instanceof UnavailableError)) return undefined;
  return `pincer mcp: cannot use the machine at ${address}: ${await machineProblem(err, spec, address)}`;
}

/**
 * Serves one machine's actions over MCP on stdin/stdout until the client closes the connection.
 * stdout carries only the protocol; messages go to stderr. A daemon that is down or refuses the
 * credentials does not stop the server: each call that needs the machine says what is wrong and
 * which option fixes it, and works once the daemon accepts.
 */
export async function runMcpServer(o: McpCommandOptions & DefaultCredentials & { env: string }): Promise<void> {
  // name=host:port, as run and check take --env; a bare host:port still works.
  const address = o.env.replace(/^[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*=/, "");
  const spec = machineSpecOf(address, o);
  const env = connect(address, connectOptionsOf(spec));
  try {
    const explainFailure = (err: Error) => unusableMachine(err, spec, address);
    const server = createMcpServer({
      env,
      explainFailure,
      ...(o.localRoot !== undefined ? { localRoot: o.localRoot } : {}),
      ...(o.computerUse ? { computerUse: o.computerUse } : {}),
    });
    const closed = new Promise<void>((resolve) => {
      server.server.onclose = resolve;
      process.stdin.once("end", resolve);
    });
    await server.connect(new LineTransport({ onRefused: (why) => process.stderr.write(`pincer mcp: a message was refused: ${why}\n`) }));
    process.stderr.write(`pincer mcp: serving ${address} over stdio\n`);
    env.system.info({ timeoutMs: 5_000, waitForReady: false }).then(
      (info) => process.stderr.write(`pincer mcp: ${address} is ${info.hostname}, display ${info.display || "none"}\n`),
      async (err: unknown) => {
        const why = err instanceof Error ? await explainFailure(err) : undefined;
        process.stderr.write(`${why ?? `pincer mcp: ${address}: ${String(err)}`} (tool calls will say so until it is fixed)\n`);
      },
    );
    await closed;
    await server.close().catch(() => undefined);
  } finally {
    env.close();
  }
}

/** Adds `pincer mcp` to the CLI. */
export function registerMcpCommand(program: Command): void {
  const cmd = program
    .command("mcp")
    .description("serve one machine's actions (and a screenshot tool and resource) to an MCP client over stdio")
    .option("--env <name=host:port>", "the machine's pincer-daemon, as run takes it (a bare host:port works too)")
    .option("--connect <url>", "instead of a machine: relay stdio to an agent program's attempt endpoint (PINCER_MCP_URL; token in PINCER_MCP_TOKEN)")
    .option("--local-root <dir>", "controller folder for upload_file and download_file (left out without it)")
    .addOption(new Option("--computer-use <vocabulary>", "add a computer tool in this computer-use vocabulary").choices(["anthropic", "openai"]))
    .action(async (o: McpCommandOptions & Record<string, unknown>) => {
      if (o.connect !== undefined) {
        if (o.env !== undefined) throw new CliArgumentError("pincer mcp: give --env (a machine) or --connect (an attempt's endpoint), not both");
        await bridgeToHttp(o.connect, process.env.PINCER_MCP_TOKEN);
        return;
      }
      if (o.env === undefined)
        throw new CliArgumentError("pincer mcp: give the machine with --env name=host:port (or --connect URL for an attempt's endpoint)");
      await runMcpServer({ ...o, env: o.env, ...credentialFlags(o) });
    });
  addCredentialOptions(cmd);
}
