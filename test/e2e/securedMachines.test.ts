import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ROOT, runPincer } from "../fixtures/cli.js";
import { makeTestCerts, type TestCerts } from "../fixtures/certs.js";
import { spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";

// The two-machine example against two secured daemons: "desktop" with a token and TLS, "server"
// with a token and mutual TLS. The CLI reaches them from a machines file and from flags, and says
// which flag fixes a wrong token, a wrong CA, a missing client certificate or plaintext.

const TASK = "examples/multi/hand-over.task.ts";
const CLI = join(ROOT, "packages/controller/src/cli/main.ts");

let certs: TestCerts;
let dir: string;
let desktop: RunningDaemon;
let server: RunningDaemon;
let tokenFile: string;

/** `pincer` with PINCER_TOKEN unset unless `env` sets it. */
const pincer = (args: string[], env: NodeJS.ProcessEnv = {}) => runPincer(args, { env: { ...process.env, PINCER_TOKEN: "", ...env } });

beforeAll(async () => {
  certs = makeTestCerts();
  dir = mkdtempSync(join(tmpdir(), "pincer-secured-"));
  tokenFile = join(dir, "token");
  writeFileSync(tokenFile, `${"7".repeat(64)}\n`, { mode: 0o600 });
  const tlsArgs = ["--token-file", tokenFile, "--tls-cert", certs.serverCert, "--tls-key", certs.serverKey];
  [desktop, server] = await Promise.all([spawnDaemon({ args: tlsArgs }), spawnDaemon({ args: [...tlsArgs, "--tls-client-ca", certs.caCert] })]);
});

afterAll(async () => {
  await Promise.all([desktop?.close(), server?.close()]);
  certs?.remove();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A TCP port nothing listens on (it was free a moment ago). */
function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer().listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => res(port));
    });
    srv.once("error", rej);
  });
}

/** The run's summary of the task, read from the only run folder under `out`. */
function summaryIn(out: string): { results: { state: string; score: number } } {
  const [runId] = readdirSync(out);
  return JSON.parse(readFileSync(join(out, runId!, "multi", "hand-over", "attempt-1", "summary.json"), "utf8"));
}

describe("pincer run against secured daemons", () => {
  test("from a machines file: token and TLS for one machine, token and mutual TLS for the other", async () => {
    const machines = join(dir, "machines.json");
    writeFileSync(
      machines,
      JSON.stringify({
        desktop: { address: desktop.address, tokenFile: "token", tls: { ca: certs.caCert } },
        server: [{ address: server.address, tokenFile: "token", tls: { ca: certs.caCert, cert: certs.clientCert, key: certs.clientKey } }],
      }),
    );
    const out = join(dir, "out-file");
    const r = await pincer(["run", TASK, "--machines", machines, "--out", out, "--strict"]);
    expect(r.code, r.stderr).toBe(0);
    expect(summaryIn(out).results).toMatchObject({ state: "passed", score: 1 });
  });

  test("from flags, and PINCER_TOKEN instead of --token-file", async () => {
    const flags = ["--tls-ca", certs.caCert, "--tls-cert", certs.clientCert, "--tls-key", certs.clientKey];
    const envs = ["--env", `desktop=${desktop.address}`, "--env", `server=${server.address}`];
    const out = join(dir, "out-flags");
    const r = await pincer(["run", TASK, ...envs, ...flags, "--token-file", tokenFile, "--out", out, "--strict"]);
    expect(r.code, r.stderr).toBe(0);
    expect(summaryIn(out).results.state).toBe("passed");
    const viaEnv = await pincer(["run", TASK, ...envs, ...flags, "--out", join(dir, "out-env")], { PINCER_TOKEN: "7".repeat(64) });
    expect(viaEnv.code, viaEnv.stderr).toBe(0);
  });

  test("each refusal names its fix, before any task runs", async () => {
    const envs = ["--env", `desktop=${desktop.address}`, "--env", `server=${server.address}`];
    const wrongToken = join(dir, "wrong-token");
    writeFileSync(wrongToken, `${"8".repeat(64)}\n`);
    const client = ["--tls-cert", certs.clientCert, "--tls-key", certs.clientKey];
    const cases: Array<[string, string[], RegExp]> = [
      ["wrong token", [...envs, "--tls-ca", certs.caCert, ...client, "--token-file", wrongToken], /refused the token \(the token is wrong\).*--token-file/],
      ["wrong CA", [...envs, "--tls-ca", certs.otherCaCert, ...client, "--token-file", tokenFile], /not signed by the CA given.*--tls-ca/],
      ["plaintext to TLS", [...envs, "--token-file", tokenFile], /speaks TLS and was asked in plaintext: pass --tls-ca/],
      [
        "no client certificate",
        [...envs, "--tls-ca", certs.caCert, "--token-file", tokenFile],
        /server \(slot 1\):.*requires a client certificate.*--tls-cert and --tls-key/,
      ],
    ];
    for (const [what, args, expected] of cases) {
      const out = join(dir, `out-${what.replace(/ /g, "-")}`);
      const r = await pincer(["run", TASK, ...args, "--out", out]);
      expect(r.code, what).not.toBe(0);
      expect(r.stderr, what).toMatch(expected);
      expect(r.stderr, what).toContain("cannot use these machines");
      // Nothing ran: the problem was found before the first task.
      expect(() => readdirSync(out), what).toThrow();
    }
  });
});

describe("pincer check and pincer mcp against secured daemons", () => {
  test("check: from a machines file, the task's solution passes and doing nothing does not", async () => {
    const machines = join(dir, "machines-check.yaml");
    writeFileSync(
      machines,
      [
        `desktop: { address: "${desktop.address}", tokenFile: token, tls: { ca: "${certs.caCert}" } }`,
        `server: { address: "${server.address}", tokenFile: token, tls: { ca: "${certs.caCert}", cert: "${certs.clientCert}", key: "${certs.clientKey}" } }`,
        "",
      ].join("\n"),
    );
    const r = await pincer(["check", TASK, "--machines", machines]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("ok   multi/hand-over");
    expect(r.stdout).toContain("1 of 1 tasks check out");
  });

  test("mcp: a client runs a command on the mutual-TLS daemon; a wrong CA, a wrong token or no daemon is a tool error naming the fix", async () => {
    const flags = ["--tls-ca", certs.caCert, "--tls-cert", certs.clientCert, "--tls-key", certs.clientKey];
    const mcpClient = async (address: string, args: string[]) => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: ["--conditions=@pincer/source", "--import", "tsx", CLI, "mcp", "--env", address, ...args],
        cwd: ROOT,
        env: { ...(process.env as Record<string, string>), PINCER_TOKEN: "" },
        stderr: "pipe",
      });
      const client = new Client({ name: "pincer-test", version: "0.0.0" });
      await client.connect(transport);
      return client;
    };
    const ok = await mcpClient(server.address, [...flags, "--token-file", tokenFile]);
    try {
      const r = await ok.callTool({ name: "run_command", arguments: { command: "echo over-mtls" } });
      expect(r.isError ?? false).toBe(false);
      expect(JSON.stringify(r.content)).toContain("over-mtls");
    } finally {
      await ok.close();
    }
    const wrongToken = join(dir, "wrong-token-mcp");
    writeFileSync(wrongToken, `${"8".repeat(64)}\n`);
    const closedPort = await freePort();
    const cases: Array<[string, string, string[], RegExp]> = [
      ["wrong CA", server.address, ["--tls-ca", certs.otherCaCert, ...flags.slice(2), "--token-file", tokenFile], /not signed by the CA given.*--tls-ca/],
      ["wrong token", server.address, [...flags, "--token-file", wrongToken], /refused the token \(the token is wrong\).*--token-file/],
      ["no daemon", `127.0.0.1:${closedPort}`, ["--token-file", tokenFile], /is unreachable .*Check that it is running \(pincer-daemon --host/],
    ];
    for (const [what, address, args, expected] of cases) {
      const client = await mcpClient(address, args);
      try {
        // The server starts and stays up; each call says what is wrong and which option fixes it.
        for (const name of ["screenshot", "click"]) {
          const t0 = performance.now();
          const r = await client.callTool({ name, arguments: name === "click" ? { x: 1, y: 1 } : {} });
          expect(r.isError, what).toBe(true);
          const text = (r.content as Array<{ text: string }>)[0]!.text;
          expect(text, what).toMatch(new RegExp(`pincer mcp: cannot use the machine at ${address.replace(/\./g, "\\.")}: `));
          expect(text, what).toMatch(expected);
          // Not the 30 s default deadline: the answer comes in seconds, with room for a loaded machine.
          expect(performance.now() - t0, what).toBeLessThan(20_000);
        }
        expect((await client.listTools()).tools.length, what).toBeGreaterThan(5);
      } finally {
        await client.close();
      }
    }
  });
});
