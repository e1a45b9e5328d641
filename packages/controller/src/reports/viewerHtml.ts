import type { Report } from "./report.js";
import type { RunConfig, ViewerTask } from "./viewerData.js";
import { VIEWER_GROUPS_SCRIPT } from "./viewer/groups.js";
import { VIEWER_STYLE } from "./viewer/style.js";
import { VIEWER_MARKS_SCRIPT } from "./viewer/marks.js";
import { VIEWER_NODES_SCRIPT } from "./viewer/nodes.js";
import { VIEWER_ROLLOUTS_SCRIPT, VIEWER_ROLLOUTS_STYLE } from "./viewer/rollouts.js";
import { VIEWER_STEPS_SCRIPT } from "./viewer/steps.js";
import { VIEWER_TABLE_SCRIPT } from "./viewer/table.js";
import { escapeHtml, jsonForScript, viewerPage } from "./viewer/page.js";

export type { ViewerAttempt, ViewerTask } from "./viewerData.js";
export { escapeHtml, jsonForScript };

/** Longest string kept whole in the embedded data (a command's output can be megabytes). */
const MAX_STRING = 20_000;

/** A copy of `value` whose long strings are cut to `max` characters, saying how much was left out. */
export function clipStrings(value: unknown, max = MAX_STRING, depth = 0): unknown {
  if (typeof value === "string") return value.length > max ? `${value.slice(0, max)}… (${value.length - max} more characters)` : value;
  if (depth > 20 || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((v) => clipStrings(v, max, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, clipStrings(v, max, depth + 1)]));
}

const BODY = `
<header>
  <h1>Run <span id="run-id"></span></h1>
  <p id="run-summary"></p>
  <dl id="run-config"></dl>
</header>
<main>
  <section id="view-table">
    <div class="controls">
      <label>State <select id="f-state"></select></label>
      <label>Tag <select id="f-tag"></select></label>
      <label>App <select id="f-app"></select></label>
      <label>Task <input id="f-text" type="search" placeholder="id contains"></label>
      <span id="f-count"></span>
    </div>
    <table id="tasks">
      <thead><tr>
        <th data-sort="key">Task</th><th data-sort="state">State</th><th data-sort="score" class="num">Score</th>
        <th data-sort="steps" class="num">Steps</th><th data-sort="tokens" class="num">Tokens</th><th data-sort="cost" class="num">Cost USD</th>
        <th data-sort="seconds" class="num">Time s</th><th data-sort="attempts" class="num">Attempts</th><th data-sort="reason">Reason</th>
      </tr></thead>
      <tbody></tbody>
    </table>
    <div id="groups"></div>
  </section>
  <section id="view-task" hidden>
    <nav class="task-nav">
      <a href="#" id="back">← all tasks</a>
      <button type="button" id="prev">← previous</button>
      <span id="step-pos"></span>
      <button type="button" id="next">next →</button>
      <label id="attempt-pick">Attempt <select id="f-attempt"></select></label>
      <span class="hint">keys: ← → (or k j) step, Home / End, Esc back to the table</span>
    </nav>
    <div id="task-head"></div>
    <div class="task-body">
      <ol id="step-list"></ol>
      <div id="step-view"></div>
    </div>
  </section>
</main>`;

/** Nothing is fetched: scripts and styles are inline, images come from the run folder only. */
const CSP = "default-src 'none'; img-src 'self' file: data:; media-src 'self' file:; style-src 'unsafe-inline'; script-src 'unsafe-inline'";

/**
 * report.html of a run: one self-contained page (no server, nothing from the network) with the
 * run's configuration, its table (filter by state, tag, app; sort by any column; why each task that
 * did not pass ended so), the tables per tag, per app and of counterpart pairs, and per task each
 * attempt's trajectory (with several rollouts, the rollouts side by side and their pass@k first),
 * step by step, over the screenshots the agent saw (files of the run folder, by relative path).
 * `config` is what {@link runConfig} reads; without it the header names none.
 */
export function reportHtml(report: Report, tasks: readonly ViewerTask[], config?: RunConfig): string {
  const { perTask: _perTask, ...run } = report;
  const data = {
    run,
    config: config ?? null,
    generatedAt: new Date().toISOString(),
    tasks: tasks.map((t) => ({
      ...t,
      trajectory: clipStrings(t.trajectory),
      earlier: t.earlier.map((a) => ({ ...a, trajectory: clipStrings(a.trajectory) })),
    })),
  };
  const parts = [VIEWER_TABLE_SCRIPT, VIEWER_GROUPS_SCRIPT, VIEWER_STEPS_SCRIPT, VIEWER_ROLLOUTS_SCRIPT, VIEWER_NODES_SCRIPT, VIEWER_MARKS_SCRIPT];
  return viewerPage({ title: `Pincer run ${report.runId}`, csp: CSP, style: VIEWER_STYLE + VIEWER_ROLLOUTS_STYLE, body: BODY, data, script: parts.join("\n") });
}
