import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { runPincer, type CliResult } from "../fixtures/cli.js";
import { spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";
import { anthropicMessage, openaiResponse, openaiToolCalls, startFakeProvider } from "../fixtures/fakeProviders.js";
import { startXvfb, type XServer } from "../fixtures/xvfb.js";

let xs: XServer;
let daemon: RunningDaemon;
let work: string;

beforeAll(async () => {
  xs = await startXvfb({ width: 1280, height: 800 });
  daemon = await spawnDaemon({ display: xs.display });
  await daemon.env.waitUntilReady({ timeoutMs: 20_000 });
  work = mkdtempSync(join(tmpdir(), "pincer-agents-cli-"));
});

afterAll(async () => {
  await daemon?.close();
  await xs?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** `pincer ...` from source, with only the given provider variables set (none inherited). */
function pincer(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(OPENAI|ANTHROPIC)_/.test(k)));
  return runPincer(args, { env: { ...base, ...env } });
}

/** A one-task dataset in the JSON format: write "ok" into a file on the machine. */
function dataset(name: string): { root: string; out: string; target: string } {
  const root = join(work, name);
  const target = join(work, `${name}-out.txt`);
  const dir = join(root, "cli", "write-ok");
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
  return { root, out: join(work, `${name}-results`), target };
}

const trajectoryOf = (out: string) => {
  const [runId] = readdirSync(out);
  return readFileSync(join(out, runId!, "cli", "write-ok", "attempt-1", "trajectory.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
};

const summaryOf = (out: string) => {
  const [runId] = readdirSync(out);
  return JSON.parse(readFileSync(join(out, runId!, "cli", "write-ok", "attempt-1", "summary.json"), "utf8"));
};

describe("pincer run with the model agents", () => {
  test("--agent openai --model M --base-url URL reads OPENAI_API_KEY, runs the model's calls and reports tokens and cost", async () => {
    const ds = dataset("openai");
    const fake = await startFakeProvider([
      openaiToolCalls([{ name: "desktop__run_command", args: { command: `printf ok > ${ds.target}` } }], { prompt: 1000, completion: 50 }),
    ]);
    try {
      const r = await pincer(
        [
          "run",
          ds.root,
          "--env",
          `desktop=${daemon.address}`,
          "--agent",
          "openai",
          "--model",
          "fake-model",
          "--base-url",
          fake.url,
          "--price",
          "2:8",
          "--max-history",
          "10:2",
          "--strict",
          "--out",
          ds.out,
        ],
        { OPENAI_API_KEY: "sk-test-cli" },
      );
      expect(r.code, r.stderr + r.stdout).toBe(0);
      expect(r.stdout).toMatch(/tasks 1: passed 1/);
      expect(fake.requests).toHaveLength(1);
      expect(fake.requests[0]!.headers.authorization).toBe("Bearer sk-test-cli");
      expect(fake.requests[0]!.body.model).toBe("fake-model");
      const s = summaryOf(ds.out);
      expect(s.results).toMatchObject({ state: "passed", agent: "openai", model: "fake-model", input_tokens: 1000, output_tokens: 50, model_requests: 1 });
      expect(s.results.cost_usd).toBeCloseTo((1000 * 2 + 50 * 8) / 1e6, 10);
      // A model agent's screenshots wait for the screen to settle (--settle auto), and the wait is recorded.
      const first = trajectoryOf(ds.out)[0];
      expect(first.settle.desktop).toMatchObject({ settled: true });
      expect(first.settle.desktop.waited_ms).toBeGreaterThanOrEqual(300);
    } finally {
      await fake.close();
    }
  });

  test("--agent anthropic --base-url URL reads ANTHROPIC_API_KEY; --settle off takes screenshots without waiting", async () => {
    const ds = dataset("anthropic");
    const fake = await startFakeProvider([anthropicMessage([{ tool: "desktop__run_command", input: { command: `printf ok > ${ds.target}` } }])]);
    try {
      const r = await pincer(
        [
          "run",
          ds.root,
          "--env",
          `desktop=${daemon.address}`,
          "--agent",
          "anthropic",
          "--model",
          "claude-fake",
          "--base-url",
          fake.origin,
          "--settle",
          "off",
          "--strict",
          "--out",
          ds.out,
        ],
        {
          ANTHROPIC_API_KEY: "sk-ant-cli",
        },
      );
      expect(r.code, r.stderr + r.stdout).toBe(0);
      // --settle off: the screenshots are taken at once.
      expect(trajectoryOf(ds.out)[0].settle).toBeUndefined();
      expect(fake.requests[0]!.headers["x-api-key"] ?? fake.requests[0]!.headers.authorization).toMatch(/sk-ant-cli/);
      expect(summaryOf(ds.out).results).toMatchObject({ state: "passed", agent: "anthropic", model: "claude-fake", input_tokens: 1500, cost_usd: null });
    } finally {
      await fake.close();
    }
  });

  test("--agent openai-cu --model computer-use-preview reaches the Responses API with the computer tool", async () => {
    const ds = dataset("openai-cu");
    const fake = await startFakeProvider([openaiResponse([{ function: "desktop__run_command", args: { command: `printf ok > ${ds.target}` } }])]);
    try {
      const args = ["run", ds.root, "--env", `desktop=${daemon.address}`, "--agent", "openai-cu", "--model", "computer-use-preview"];
      const r = await pincer([...args, "--base-url", fake.url, "--strict", "--out", ds.out], { OPENAI_API_KEY: "sk-test-cu" });
      expect(r.code, r.stderr + r.stdout).toBe(0);
      expect(fake.requests[0]!.url).toBe("/v1/responses");
      expect(fake.requests[0]!.headers.authorization).toBe("Bearer sk-test-cu");
      expect(fake.requests[0]!.body.tools[0]).toEqual({ type: "computer_use_preview", display_width: 1280, display_height: 800, environment: "linux" });
      expect(summaryOf(ds.out).results).toMatchObject({ state: "passed", agent: "openai-cu", model: "computer-use-preview", input_tokens: 2000 });
    } finally {
      await fake.close();
    }
  });

  test("missing settings fail before any machine starts, saying what to set", async () => {
    const ds = dataset("missing");
    const runs = await Promise.all([
      pincer(["run", ds.root, "--agent", "openai"]),
      pincer(["run", ds.root, "--agent", "openai", "--model", "m"]),
      pincer(["run", ds.root, "--agent", "anthropic", "--model", "m"]),
      pincer(["run", ds.root, "--agent", "gemini"]),
    ]);
    const expected = [
      /--agent openai needs --model/,
      /needs OPENAI_API_KEY, or --base-url/,
      /needs ANTHROPIC_API_KEY/,
      /use scripted, openai, openai-json, openai-cu, anthropic, anthropic-cu/,
    ];
    for (const [i, r] of runs.entries()) {
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(expected[i]!);
      expect(r.stderr).not.toMatch(/starting/);
    }
  });
});
