import type { Agent, AgentTurn } from "../agents/types.js";
import type { StepCall } from "../benchmark/types.js";
import type { TrajectoryLine } from "../runFolder/trajectory.js";

/**
 * The agent of a demonstration (`pincer record`): it takes no action of its own. The slot starts
 * taken over, so its first turn waits for the person; once they are done (they hand the slot
 * back), it says done and the task is evaluated on the screen as they left it.
 */
export class DemonstrationAgent implements Agent {
  readonly name = "human";
  readonly model = "";
  readonly wantsScreenshots = false;

  start(): void {}

  async act(): Promise<AgentTurn> {
    return { calls: [], done: true };
  }
}

/** The longest wait a recorded solution puts between two actions, in seconds (the wait action's limit). */
const MAX_WAIT_S = 60;

/** A screen that changed for less than this after an action (an echoed key, a focus ring) needs no wait of its own. */
const QUICK_CHANGE_MS = 250;

/** Seconds to wait for a screen that kept changing `ms` after an action: half as long again and a quarter second, in half seconds. */
function waitFor(ms: number): number {
  return Math.min(MAX_WAIT_S, Math.ceil((ms * 1.5 + 250) / 500) / 2);
}

type HumanLine = Extract<TrajectoryLine, { human: true }>;

/**
 * The solution a demonstration makes: the person's actions that worked (human lines of its
 * trajectory), in order, as tool calls, with a wait where the person waited for the screen: before
 * the first action when they began a second or more after the task's setup (its programs drawing),
 * after an action whose effect kept the screen changing for a quarter second or more (how long it
 * changed, half as long again and a quarter second: a replay on another machine may be slower), and
 * a second at the end, as the person looked at the outcome before saying done (an effect such as a
 * file written by a command typed last lands before the evaluation). Consecutive typing with no wait
 * between becomes one `type`.
 */
export function solutionFromDemonstration(lines: readonly TrajectoryLine[]): StepCall[] {
  const acts = lines.filter((l): l is HumanLine => l.human === true && l.ok);
  const out: Array<{ tool: string; args: Record<string, unknown> }> = [];
  const env = (tool: string) => tool.split("__")[0]!;
  if (acts[0] && acts[0].at_ms >= 1_000) out.push({ tool: `${env(acts[0].tool)}__wait`, args: { seconds: 1 } });
  for (const a of acts) {
    const prev = out.at(-1);
    if (prev && prev.tool === a.tool && a.tool.endsWith("__type")) {
      prev.args = { text: `${String(prev.args.text)}${String(a.args.text)}` };
    } else {
      out.push({ tool: a.tool, args: { ...a.args } });
    }
    if ((a.settled_ms ?? 0) >= QUICK_CHANGE_MS) out.push({ tool: `${env(a.tool)}__wait`, args: { seconds: waitFor(a.settled_ms!) } });
  }
  const last = out.at(-1);
  if (last && !last.tool.endsWith("__wait")) out.push({ tool: `${env(last.tool)}__wait`, args: { seconds: 1 } });
  return out;
}
