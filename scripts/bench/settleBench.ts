/**
 * Waiting after an action, on real programs: the time from the end of an action to a screenshot,
 * and whether that screenshot already showed the action's effect, for a fixed 2 s sleep (what
 * OSWorld does after every action) against Screen/WaitForSettle. The truth for each trial is a
 * screenshot taken 2.5 s after the policy's: a trial was too early when the two differ.
 */
import type { Env, SettleOptions } from "../../packages/controller/src/index.js";
import { summarize } from "./stats.js";

interface Policy {
  name: string;
  wait(env: Env): Promise<void>;
}

interface Scenario {
  name: string;
  /** Prepares the screen (untimed). */
  before?(env: Env): Promise<void>;
  act(env: Env, trial: number): Promise<void>;
  /** Undoes the action (untimed). */
  after?(env: Env): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function settlePolicy(name: string, o: SettleOptions): Policy {
  return { name, wait: async (env) => void (await env.screen.waitForSettle(o)) };
}

const POLICIES: Policy[] = [
  { name: "fixed 2 s sleep", wait: async () => void (await sleep(2000)) },
  settlePolicy("settle: quiet 300 ms", { quietMs: 300, maxMs: 5000 }),
  settlePolicy("settle: quiet 300 ms, first change awaited up to 1.5 s", { quietMs: 300, initialQuietMs: 1500, maxMs: 5000 }),
  settlePolicy("settle: as above, changes since the last wait count", { quietMs: 300, initialQuietMs: 1500, maxMs: 5000, sinceLastWait: true }),
];

const rawShot = async (env: Env) => (await env.screen.screenshot({ format: "raw" })).data;

function scenarios(): Scenario[] {
  let terminalOpen = false;
  let slow: number | undefined;
  return [
    {
      name: "a keystroke in xterm",
      before: async (env) => {
        if (!terminalOpen) await env.process.launch(["xterm", "-geometry", "60x10+200+200", "-e", "cat"], { waitForClass: "xterm" });
        terminalOpen = true;
        await env.mouse.move({ x: 400, y: 260 });
        await env.screen.waitForSettle({ quietMs: 500 });
      },
      act: (env, trial) => env.keyboard.type(String.fromCharCode(97 + (trial % 26))),
    },
    {
      name: "a program that draws 1 s after it starts",
      act: async (env) => {
        slow = (await env.process.launch(["sh", "-c", "sleep 1; exec xmessage -geometry +900+500 'Saved to /tmp/report.odt'"])).pid;
      },
      after: async (env) => {
        if (slow) await env.process.signal(slow, "SIGKILL").catch(() => undefined);
        slow = undefined;
        await env.screen.waitForSettle({ quietMs: 500 });
      },
    },
    {
      name: "a click that changes nothing",
      act: async (env) => void (await env.mouse.click({ at: { x: 1800, y: 1000 } })),
    },
  ];
}

/** One table line per scenario and policy: the wait's median and p95, and how many screenshots came too early. */
export async function settleFigures(env: Env, trials = Number(process.env.PINCER_BENCH_SETTLE_TRIALS ?? 6)): Promise<string[]> {
  const lines = ["| action | wait after it | p50 ms to screenshot | p95 ms | too early |", "|---|---|---:|---:|---:|"];
  const all = scenarios();
  for (const scenario of all) {
    for (const policy of POLICIES) {
      const times: number[] = [];
      let early = 0;
      for (let i = 0; i < trials; i++) {
        await scenario.before?.(env);
        // As in an agent loop: the screen the action follows was waited for (and photographed).
        await env.screen.waitForSettle({ quietMs: 300 });
        await scenario.act(env, i);
        const t0 = performance.now();
        await policy.wait(env);
        const shot = await rawShot(env);
        times.push(performance.now() - t0);
        await sleep(2500);
        if (!shot.equals(await rawShot(env))) early++;
        await scenario.after?.(env);
      }
      const s = summarize(times);
      lines.push(`| ${scenario.name} | ${policy.name} | ${s.p50.toFixed(0)} | ${s.p95.toFixed(0)} | ${early} of ${trials} |`);
    }
  }
  for (const p of await env.process.list()) await env.process.signal(p.pid, "SIGKILL").catch(() => undefined);
  return lines;
}
