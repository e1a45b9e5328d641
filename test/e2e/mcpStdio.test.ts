import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { createInterface } from "node:readline";
import { resolve } from "node:path";
import { afterEach, describe, expect, test } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
const CLI = resolve(ROOT, "packages/controller/src/cli/main.ts");

interface Session {
  child: ChildProcessWithoutNullStreams;
  /** The next JSON-RPC message the server writes. */
  next(): Promise<Record<string, unknown>>;
  send(text: string): void;
  exit: Promise<number | null>;
}

let session: Session | undefined;

/** `pincer mcp` spoken to as raw lines, as a hostile or broken client would. No daemon: the server answers without one. */
function startMcp(): Session {
  const child = spawn(process.execPath, ["--conditions=@pincer/source", "--import", "tsx", CLI, "mcp", "--env", "127.0.0.1:9"], { cwd: ROOT });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  child.stdin.on("error", () => undefined); // EPIPE once a server has gone: the test's assertions say so
  const exit = new Promise<number | null>((done) => child.once("exit", (code) => done(code)));
  session = {
    child,
    exit,
    send: (text) => child.stdin.write(text),
    async next() {
      const quiet = new Promise<IteratorResult<string>>((done) => setTimeout(() => done({ done: true, value: "no reply in 20 s" }), 20_000).unref());
      const r = await Promise.race([lines.next(), exit.then((code) => ({ done: true as const, value: `exited with ${code}` })), quiet]);
      if (r.done) throw new Error(`pincer mcp wrote nothing more (${String(r.value)})`);
      return JSON.parse(r.value as string) as Record<string, unknown>;
    },
  };
  return session;
}

afterEach(() => {
  session?.child.kill("SIGKILL");
  session = undefined;
});

const INIT = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "0" } },
};

describe("pincer mcp over stdio: bad lines are answered, never the end of the session", () => {
  test("malformed JSON gets a parse error, a non-JSON-RPC object an invalid request, and the session goes on", async () => {
    const s = startMcp();
    s.send(`${JSON.stringify(INIT)}\n`);
    expect(await s.next()).toMatchObject({ id: 1, result: { serverInfo: { name: "pincer" } } });
    s.send('{"jsonrpc": "2.0", "id": 2, "method": \n');
    expect(await s.next()).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700 } });
    s.send(`${JSON.stringify({ id: 3, hello: "world" })}\n`);
    expect(await s.next()).toMatchObject({ jsonrpc: "2.0", id: 3, error: { code: -32600 } });
    s.send(`${JSON.stringify({ jsonrpc: "2.0", id: 4, method: "ping" })}\n`);
    expect(await s.next()).toMatchObject({ id: 4, result: {} });
  });

  test("a 16 MiB line is refused with an invalid-request error and dropped as it arrives; the server keeps answering", async () => {
    const s = startMcp();
    s.send(`${JSON.stringify(INIT)}\n`);
    await s.next();
    const big = `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"type","arguments":{"text":"${"a".repeat(16 * 1024 * 1024)}"}}}\n`;
    // Written in 1 MiB pieces as a pipe delivers it.
    for (let i = 0; i < big.length; i += 1 << 20) s.send(big.slice(i, i + (1 << 20)));
    const refused = await s.next();
    expect(refused).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600 } });
    expect(String((refused.error as { message: string }).message)).toMatch(/over \d+ bytes/);
    s.send(`${JSON.stringify({ jsonrpc: "2.0", id: 6, method: "ping" })}\n`);
    expect(await s.next()).toMatchObject({ id: 6, result: {} });
    expect(s.child.exitCode).toBeNull();
  });
});
