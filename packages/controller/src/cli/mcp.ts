import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { Option, type Command } from "commander";
import { connect } from "../env/index.js";
import { FailedPreconditionError, UnauthenticatedError, UnavailableError } from "@pincer/shared";
import { connectOptionsOf, diagnoseTls, machineOfFlags, type CredentialFlags } from "../machines/credentials.js";
import { machineProblem } from "../machines/remoteProvider.js";
import { addCredentialOptions, credentialFlags } from "./credentials.js";
import { createMcpServer } from "../mcp/server.js";

/** Options of `pincer mcp`. */
export interface McpCommandOptions {
  /** "host:port" of the daemon. */
  env: string;
  /** File holding the daemon's bearer token. */
  tokenFile?: string;
  localRoot?: string;
  computerUse?: "anthropic" | "openai";
}

/**
 * Serves one machine's actions over MCP on stdin/stdout until the client closes the connection.
 * stdout carries only the protocol; messages go to stderr.
 */
export async function runMcpServer(o: McpCommandOptions & CredentialFlags): Promise<void> {
  const spec = machineOfFlags(o.env, o);
  const env = connect(o.env, connectOptionsOf(spec));
  try {
    // A refused handshake or token is known at the first call: say so, and which flag fixes it,
    // rather than waiting for a daemon that will never accept.
    const refused = await env.system.info({ timeoutMs: 5_000, waitForReady: false }).then(
      () => undefined,
      async (err: unknown) => (err instanceof UnauthenticatedError || (err instanceof UnavailableError && (await diagnoseTls(spec))) ? err : undefined),
    );
    if (refused) throw new FailedPreconditionError(`pincer mcp: cannot use ${o.env}: ${await machineProblem(refused, spec, o.env)}`);
    const info = await env.waitUntilReady({ timeoutMs: 15_000 });
    process.stderr.write(`pincer mcp: serving ${o.env} (${info.hostname}, display ${info.display || "none"}) over stdio\n`);
    const server = createMcpServer({
      env,
      ...(o.localRoot !== undefined ? { localRoot: o.localRoot } : {}),
      ...(o.computerUse ? { computerUse: o.computerUse } : {}),
    });
    const closed = new Promise<void>((resolve) => {
      server.onclose = resolve;
      process.stdin.once("end", resolve);
    });
    await server.connect(new StdioServerTransport());
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
    .requiredOption("--env <host:port>", "the machine's pincer-daemon")
    .option("--local-root <dir>", "controller folder for upload_file and download_file (left out without it)")
    .addOption(new Option("--computer-use <vocabulary>", "add a computer tool in this computer-use vocabulary").choices(["anthropic", "openai"]))
    .action(async (o: McpCommandOptions & Record<string, unknown>) => {
      await runMcpServer({ ...o, ...credentialFlags(o) });
    });
  addCredentialOptions(cmd);
}
