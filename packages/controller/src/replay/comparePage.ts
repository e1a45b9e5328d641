import { clipStrings } from "../reports/viewerHtml.js";
import { viewerPage } from "../reports/viewer/page.js";
import type { ReplayReport, StepDifference, TaskComparison } from "./stepDifferences.js";
import type { TrajectoryLine } from "../runFolder/trajectory.js";
import { VIEWER_COMPARE_SCRIPT } from "./comparePageScript.js";
import { VIEWER_MARKS_SCRIPT } from "../reports/viewer/marks.js";
import { VIEWER_NODES_SCRIPT } from "../reports/viewer/nodes.js";
import { VIEWER_STYLE } from "../reports/viewer/style.js";

/** What compare.html shows beside the run viewer's style. */
const COMPARE_STYLE = `
.sides { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; }
.side { background: var(--card); border: 1px solid var(--line); border-radius: 6px; padding: 8px 10px; min-width: 0; }
.side h2 { font-size: 14px; }
.side figure.shot { flex: 1 1 100%; }
.side .frame img { max-height: 46vh; }
.differences { background: #fff4f4; border: 1px solid var(--fail); border-radius: 6px; padding: 6px 10px; margin-bottom: 10px; }
.differences.none { background: #f1faf3; border-color: var(--pass); }
.differences ul { margin: 4px 0 0; padding-left: 18px; }
td.divergence { white-space: normal; overflow-wrap: anywhere; min-width: 320px; }
.outcome { display: inline-block; padding: 0 6px; border-radius: 8px; font-size: 12px; color: #fff; background: var(--pass); }
.outcome-different { background: var(--fail); }
#step-list button.diverged { border-left-color: var(--err); }
#step-list button.first { border-left-color: var(--fail); font-weight: 600; }
.first-badge { display: inline-block; margin-left: 4px; padding: 0 5px; border-radius: 6px; font-size: 11px; color: #fff; background: var(--fail); }
`;

const BODY = `
<header>
  <h1>Replay <span id="run-id"></span> beside <span id="original-id"></span></h1>
  <p id="run-summary"></p>
</header>
<main>
  <section id="view-table">
    <table id="tasks">
      <thead><tr><th>Task</th><th>Original</th><th>Replay</th><th>Outcome</th><th>First divergence</th></tr></thead>
      <tbody></tbody>
    </table>
    <ul id="warnings" class="meta"></ul>
  </section>
  <section id="view-task" hidden>
    <nav class="task-nav">
      <a href="#" id="back">← all tasks</a>
      <button type="button" id="prev">← previous</button>
      <span id="step-pos"></span>
      <button type="button" id="next">next →</button>
      <button type="button" id="to-divergence">first divergence</button>
      <span class="hint">keys: ← → (or k j) step, d the first divergence, Esc back to the table</span>
    </nav>
    <div id="task-head"></div>
    <div class="task-body">
      <ol id="step-list"></ol>
      <div id="step-view"></div>
    </div>
  </section>
</main>`;

const CSP = "default-src 'none'; img-src 'self' file: data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'";

/** A line as the page shows it: what was done, its outcome and the screens before it. */
function shown(line: TrajectoryLine | undefined): Partial<TrajectoryLine> | null {
  if (!line) return null;
  const { turn, step, tool, args, ok, result, error, evaluation, reason, duration_ms, at_ms, screenshots, screenshot_geometry, final, done, agent_error } =
    line;
  return clipStrings({
    turn,
    step,
    tool,
    args,
    ok,
    result,
    error,
    evaluation,
    reason,
    duration_ms,
    at_ms,
    screenshots,
    screenshot_geometry,
    final,
    done,
    agent_error,
  }) as Partial<TrajectoryLine>;
}

/** A step of the page: the two runs' lines for it and what differs. */
interface CompareFrame {
  step: number | null;
  label: string;
  original: Partial<TrajectoryLine> | null;
  replay: Partial<TrajectoryLine> | null;
  differences: StepDifference[];
}

/** The steps of both attempts in order, then their last screens (done, an agent error or the final screen). */
function framesOf(c: TaskComparison, original: readonly TrajectoryLine[], replay: readonly TrajectoryLine[]): CompareFrame[] {
  const steps = (ls: readonly TrajectoryLine[]) => new Map(ls.filter((l) => typeof l.step === "number").map((l) => [l.step!, l]));
  const os = steps(original);
  const rs = steps(replay);
  const diffs = new Map(c.diverging_steps.map((s) => [s.step, s.differences]));
  const numbers = [...new Set([...os.keys(), ...rs.keys()])].sort((a, b) => a - b);
  const frames: CompareFrame[] = numbers.map((n) => {
    const o = os.get(n);
    const r = rs.get(n);
    const tool = (o ?? r)?.tool ?? "";
    return { step: n, label: `${n} ${tool.replace(/^[^_]*__/, "")}`, original: shown(o), replay: shown(r), differences: diffs.get(n) ?? [] };
  });
  const end = (ls: readonly TrajectoryLine[]) => ls.find((l) => l.final) ?? ls.find((l) => l.done || l.agent_error);
  const [oe, re] = [end(original), end(replay)];
  if (oe || re) frames.push({ step: null, label: "end", original: shown(oe), replay: shown(re), differences: [] });
  return frames;
}

/**
 * compare.html of a replay: one self-contained page (as report.html: nothing from the network) with
 * each task's outcome in both runs and its first divergence, and per task the two runs side by
 * side, step by step: both screenshots before the step (with the action drawn), both results, and
 * what differs, the first diverging step marked. `originalDir` is the recorded run's folder
 * relative to the replay's.
 */
export function comparisonHtml(
  report: ReplayReport,
  originalDir: string,
  tasks: ReadonlyArray<{ comparison: TaskComparison; original: readonly TrajectoryLine[]; replay: readonly TrajectoryLine[] }>,
): string {
  const { per_task: _perTask, ...run } = report;
  const data = {
    run,
    originalDir,
    generatedAt: new Date().toISOString(),
    tasks: tasks.map(({ comparison, original, replay }) => ({ ...comparison, frames: framesOf(comparison, original, replay) })),
  };
  return viewerPage({
    title: `Pincer replay ${report.run_id} of ${report.replay_of.run_id}`,
    csp: CSP,
    style: `${VIEWER_STYLE}${COMPARE_STYLE}`,
    body: BODY,
    data,
    script: `${VIEWER_COMPARE_SCRIPT}\n${VIEWER_NODES_SCRIPT}\n${VIEWER_MARKS_SCRIPT}`,
  });
}
