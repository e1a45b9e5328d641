import type { Report } from "./report.js";
import type { TrajectoryLine } from "./trajectory.js";
import { VIEWER_STYLE } from "./viewer/style.js";
import { VIEWER_MARKS_SCRIPT } from "./viewer/marks.js";
import { VIEWER_STEPS_SCRIPT } from "./viewer/steps.js";
import { VIEWER_TABLE_SCRIPT } from "./viewer/table.js";

type ReportRow = Report["perTask"][number];

/** A task as report.html shows it: its report row, fields of its summary and its last attempt's trajectory. */
export interface ViewerTask extends ReportRow {
  /** `<tool>/<id>`, unique in a run. */
  key: string;
  /** The attempt's folder relative to the run folder; screenshot paths of the trajectory are relative to it. */
  dir: string;
  attempt: number;
  instruction: string;
  tags: string[];
  apps: string[];
  environments: string[];
  agent: string;
  model: string;
  agentState: string | null;
  endReason: string | null;
  evalReason: string | null;
  maxSteps: number;
  inputTokens: number;
  outputTokens: number;
  timing: { total_ms: number; setup_ms: number; model_ms: number; env_ms: number };
  /** Screen recordings (`--record`): file in the attempt folder, or why there is none. */
  recordings: Record<string, { file: string } | { error: string }>;
  trajectory: TrajectoryLine[];
}

/** Text for HTML element content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * JSON to embed in `<script type="application/json">`: `<`, `>` and `&` are written as \u escapes
 * (only strings can hold them), so no text inside, `</script>` or `<!--` included, can end or
 * change the element; U+2028 and U+2029 likewise, for readers that parse it as script.
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

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
        <th data-sort="seconds" class="num">Time s</th><th data-sort="attempts" class="num">Attempts</th>
      </tr></thead>
      <tbody></tbody>
    </table>
  </section>
  <section id="view-task" hidden>
    <nav class="task-nav">
      <a href="#" id="back">← all tasks</a>
      <button type="button" id="prev">← previous</button>
      <span id="step-pos"></span>
      <button type="button" id="next">next →</button>
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
 * run's table (filter by state, tag, app; sort by any column) and per task its trajectory, step
 * by step, over the screenshots the agent saw (files of the run folder, by relative path).
 */
export function reportHtml(report: Report, tasks: readonly ViewerTask[]): string {
  const { perTask: _perTask, ...run } = report;
  const data = { run, generatedAt: new Date().toISOString(), tasks: tasks.map((t) => ({ ...t, trajectory: clipStrings(t.trajectory) })) };
  const script = `(function () {\n"use strict";\n${VIEWER_TABLE_SCRIPT}\n${VIEWER_STEPS_SCRIPT}\n${VIEWER_MARKS_SCRIPT}\nstart();\n})();`;
  return [
    "<!doctype html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${escapeHtml(CSP)}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>Pincer run ${escapeHtml(report.runId)}</title>`,
    `<style>${VIEWER_STYLE}</style>`,
    "</head>",
    `<body>${BODY}`,
    `<script type="application/json" id="pincer-data">${jsonForScript(data)}</script>`,
    `<script>${script}</script>`,
    "</body>",
    "</html>",
    "",
  ].join("\n");
}
