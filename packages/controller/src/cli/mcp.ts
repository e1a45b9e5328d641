import { Option, type Command } from "commander";
import { connect } from "../env/index.js";
import { UnauthenticatedError, UnavailableError } from "@pincer/shared";
import { connectOptionsOf, machineSpecOf, type DefaultCredentials, type MachineSpec } from "../machines/credentials.js";
import { machineProblem } from "../machines/remoteProvider.js";
import { addCredentialOptions, credentialFlags } from "./credentials.js";
import { createMcpServer } from "../mcp/server.js";
import { LineTransport } from "../mcp/stdioTransport.js";

/** Options of `pincer mcp`. */
export interface McpCommandOptions {
  /** "host:port" of the daemon, or "name=host:port" as `run` and `check` take it (the name is not used). */
  env: string;
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
export async function runMcpServer(o: McpCommandOptions & DefaultCredentials): Promise<void> {
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
    .requiredOption("--env <name=host:port>", "the machine's pincer-daemon, as run takes it (a bare host:port works too)")
    .option("--local-root <dir>", "controller folder for upload_file and download_file (left out without it)")
    .addOption(new Option("--computer-use <vocabulary>", "add a computer tool in this computer-use vocabulary").choices(["anthropic", "openai"]))
    .action(async (o: McpCommandOptions & Record<string, unknown>) => {
      await runMcpServer({ ...o, ...credentialFlags(o) });
    });
  addCredentialOptions(cmd);
}
