import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { runPincer } from "../fixtures/cli.js";
import { spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";
import { openaiText, openaiToolCalls } from "../fixtures/fakeProviders.js";
import { startXvfb, type XServer } from "../fixtures/xvfb.js";

/**
 * A model server on a bad day, at the wire: each request is answered by the next behaviour of a
 * script — hang (accept and never answer), a body that is not JSON, JSON of another shape, an error
 * status, or a real reply. Everything else is real: `pincer run` from source, a daemon on Xvfb.
 */
type Behaviour = "hang" | { status: number; contentType?: string; body: string };

interface BadServer {
  url: string;
  requests: number;
  /** Connections open now (a hung request the client gave up on is closed by the client). */
  open(): number;
  close(): Promise<void>;
}

async function startBadServer(script: Behaviour[]): Promise<BadServer> {
  const queue = [...script];
  const sockets = new Set<Socket>();
  const state = { requests: 0 };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on("end", () => {
      state.requests += 1;
      const next = queue.shift() ?? { status: 500, body: '{"error":{"message":"script exhausted"}}' };
      if (next === "hang") return;
      res.writeHead(next.status, { "content-type": next.contentType ?? "application/json" });
      res.end(next.body);
    });
  });
  server.on("connection", (s: Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    get requests() {
      return state.requests;
    },
    open: () => [...sockets].filter((s) => !s.destroyed).length,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

const json = (body: unknown): Behaviour => ({ status: 200, body: JSON.stringify((body as { body: unknown }).body) });

let xs: XServer;
let daemon: RunningDaemon;
let work: string;

beforeAll(async () => {
  xs = await startXvfb({ width: 1024, height: 768 });
  daemon = await spawnDaemon({ display: xs.display });
  await daemon.env.waitUntilReady({ timeoutMs: 20_000 });
  work = mkdtempSync(join(tmpdir(), "pincer-model-failures-"));
});

afterAll(async () => {
  await daemon?.close();
  await xs?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

let n = 0;

/** `pincer run` of a one-task dataset (write "ok" into a file) with the openai agent against `url`. */
async function run(url: string, flags: string[]): Promise<{ results: Record<string, unknown>; target: string; ms: number }> {
  const name = `t${++n}`;
  const root = join(work, name);
  const target = join(work, `${name}-out.txt`);
  const dir = join(root, "m", "write-ok");
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "write-ok.json"),
    JSON.stringify({
      id: "write-ok",
      instruction: `Write ok into ${target}.`,
      config: [],
      evaluation: { func: "compare_text_file", arguments: { local_expected: "expected.txt", vm_result: target } },
    }),
  );
  writeFileSync(join(dir, "expected.txt"), "ok");
  const out = join(work, `${name}-results`);
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(OPENAI|ANTHROPIC)_/.test(k)));
  const t0 = performance.now();
  await runPincer(
    ["run", root, "--env", `desktop=${daemon.address}`, "--agent", "openai", "--model", "m", "--base-url", url, "--settle", "off", "--out", out, ...flags],
    { env: { ...base, OPENAI_API_KEY: "sk-test" } },
  );
  const ms = performance.now() - t0;
  const [runId] = readdirSync(out);
  const summary = JSON.parse(readFileSync(join(out, runId!, "m", "write-ok", "attempt-1", "summary.json"), "utf8"));
  return { results: summary.results, target, ms };
}

describe("model requests are bounded by the attempt, and failed ones are said and counted", () => {
  test("a server that accepts and never answers ends the attempt at the task's time limit, as agent_error naming the URL and the limit", async () => {
    const bad = await startBadServer(["hang", "hang", "hang"]);
    try {
      // Before: a request had 300 s and five retries, and the time limit covered actions only.
      const { results, ms } = await run(bad.url, ["--task-timeout", "6", "--model-timeout", "100"]);
      expect(results).toMatchObject({ state: "agent_error", model_requests: 0, model_failed_requests: 1, model_retries: 0 });
      expect(String(results.error)).toContain("time limit of 6 s");
      expect(String(results.error)).toContain(`the model at ${bad.url} failed: stopped waiting when the attempt's time ran out (1 try, 100 s per try)`);
      // pincer run itself (tsx start, machine checks, report) ends well within the limit plus a few seconds.
      expect(ms).toBeLessThan(6_000 + 25_000);
      expect(bad.requests).toBe(1);
      // Nothing is left waiting on the server: the client closed the request it gave up on.
      expect(bad.open()).toBe(0);
    } finally {
      await bad.close();
    }
  });

  test("a try with no reply within --model-timeout is tried again and the task goes on", async () => {
    const bad = await startBadServer(["hang", json(openaiToolCalls([{ name: "desktop__run_command", args: { command: "true" } }])), json(openaiText("done"))]);
    try {
      const { results } = await run(bad.url, ["--model-timeout", "2", "--task-timeout", "60"]);
      // The agent went on after the retry: its tool call ran and it finished.
      expect(results).toMatchObject({ model_requests: 2, model_failed_requests: 1, model_retries: 1 });
      expect(bad.requests).toBe(3);
    } finally {
      await bad.close();
    }
  });

  test("a body that is not JSON, JSON of another shape and 500s: the message names the URL, the status and the tries; summary.json counts them", async () => {
    const html = { status: 200, contentType: "text/html", body: "<html>not a model</html>" };
    const garbage = await startBadServer([html, html, html]);
    const shape = await startBadServer([json({ body: { hello: "world" } }), json({ body: { hello: "world" } })]);
    const errors = await startBadServer([
      { status: 500, body: '{"error":{"message":"overloaded"}}' },
      { status: 502, body: '{"error":{"message":"bad gateway"}}' },
      { status: 500, body: '{"error":{"message":"overloaded"}}' },
    ]);
    const broken = { status: 200, body: '{"choices": [' };
    const truncated = await startBadServer([broken, broken]);
    try {
      const g = await run(garbage.url, ["--model-retries", "2"]);
      expect(g.results).toMatchObject({ state: "agent_error", model_requests: 0, model_failed_requests: 3, model_retries: 2 });
      expect(String(g.results.error)).toContain(
        `the model at ${garbage.url} failed: an unusable reply: not a chat completion but text: "<html>not a model</html>" (3 tries; --model-retries 2)`,
      );

      const s = await run(shape.url, ["--model-retries", "1"]);
      expect(s.results).toMatchObject({ state: "agent_error", model_requests: 0, model_failed_requests: 2, model_retries: 1 });
      expect(String(s.results.error)).toContain('JSON that is not a chat completion: {"hello":"world"}');
      expect(String(s.results.error)).toContain("(2 tries; --model-retries 1)");

      const e = await run(errors.url, ["--model-retries", "2"]);
      expect(e.results).toMatchObject({ state: "agent_error", model_requests: 0, model_failed_requests: 3, model_retries: 2 });
      expect(String(e.results.error)).toContain(`the model at ${errors.url} failed: HTTP 500`);
      expect(String(e.results.error)).toContain("(3 tries; --model-retries 2)");

      const t = await run(truncated.url, ["--model-retries", "1"]);
      expect(t.results).toMatchObject({ state: "agent_error", model_requests: 0, model_failed_requests: 2, model_retries: 1 });
      expect(String(t.results.error)).toContain("a reply that is not valid JSON");
    } finally {
      await Promise.all([garbage.close(), shape.close(), errors.close(), truncated.close()]);
    }
  });

  test("a status no retry mends (401) ends the call at once, naming it", async () => {
    const bad = await startBadServer([{ status: 401, body: '{"error":{"message":"invalid api key"}}' }]);
    try {
      const { results } = await run(bad.url, ["--model-retries", "3"]);
      expect(results).toMatchObject({ state: "agent_error", model_requests: 0, model_failed_requests: 1, model_retries: 0 });
      expect(String(results.error)).toContain("HTTP 401");
      expect(String(results.error)).toContain("(1 try)");
      expect(bad.requests).toBe(1);
    } finally {
      await bad.close();
    }
  });
});
