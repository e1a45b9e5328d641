import { escapeHtml, viewerPage } from "../reports/viewer/page.js";
import { HEALTH_STATUSES, type HealthReport, type HealthRun, type HealthStatus, type TaskHealth } from "./taskHealth.js";
import { VIEWER_STYLE } from "../reports/viewer/style.js";

/** What the health page adds to the run viewer's style: a static table, status colours, run badges. */
const HEALTH_STYLE = `
th { cursor: default; }
tbody tr { cursor: default; }
td.wrap { white-space: normal; min-width: 16em; }
.status-healthy { background: var(--pass); }
.status-flaky { background: var(--err); }
.status-broken { background: var(--fail); }
.status-too_lenient { background: #8e44ad; }
.status-unmeasured { background: var(--pend); }
.runs { display: flex; gap: 3px; }
a.run { display: inline-block; min-width: 2.2em; text-align: center; padding: 0 4px; border-radius: 4px; font-size: 12px; color: #fff;
  text-decoration: none; background: var(--err); }
a.run.good { background: var(--pass); }
a.run.bad { background: var(--fail); }
a.run.machine { background: var(--pend); }
ul.reasons, ul.findings { margin: 0; padding-left: 1.1em; }
ul.findings li { color: var(--fail); }
ul.findings li.machine_failure { color: var(--muted); }
.counts { display: flex; gap: 8px; flex-wrap: wrap; margin-top: 6px; }
`;

/** Nothing is fetched: the page is static, its links are files of the health folder. */
const CSP = "default-src 'none'; style-src 'unsafe-inline'";

const LABEL: Record<HealthStatus, string> = {
  healthy: "healthy",
  flaky: "flaky",
  broken: "broken",
  too_lenient: "too lenient",
  unmeasured: "unmeasured",
};

const seconds = (ms: number | null) => (ms === null ? "" : (ms / 1000).toFixed(2));
const score = (s: number) => (Number.isInteger(s) ? String(s) : s.toFixed(2));

function statusBadge(status: HealthStatus): string {
  return `<span class="state status-${status}" data-status="${status}">${LABEL[status]}</span>`;
}

/**
 * A run as a badge with its score, linking to its summary.json; its state, time and reason on hover.
 * Green is what a sound task gives (1 with its solution, 0 with no actions), grey a machine failure.
 */
function runBadge(r: HealthRun, n: number | null): string {
  const time = `${seconds(r.ms)} s${r.resetMs ? ` after a ${seconds(r.resetMs)} s machine reset` : ""}`;
  const title = `${n === null ? "no actions" : `run ${n}`}: ${r.state}, score ${score(r.score)}, ${time}: ${r.reason}`;
  const href = r.summary ? ` href="${escapeHtml(r.summary)}"` : "";
  const machine = r.state === "env_error";
  const good = n === null ? r.score === 0 : r.score === 1;
  const kind = machine ? "machine" : good ? "good" : "bad";
  const attrs = `class="run ${kind}"${href} title="${escapeHtml(title)}" data-run="${escapeHtml(r.run)}" data-state="${r.state}"`;
  return `<a ${attrs}>${machine ? "machine" : score(r.score)}</a>`;
}

/** The distinct reasons, each with the runs that gave it, each run linking to its run viewer at the task. */
function reasonsCell(t: TaskHealth): string {
  const items = t.reasons.map((r) => {
    const runs = r.runs.map((n) => {
      const run = t.solutionRuns[n - 1]!.run;
      return `<a href="${escapeHtml(`${run}/report.html#task=${encodeURIComponent(t.key)}`)}">${n}</a>`;
    });
    return `<li>${r.count}× ${escapeHtml(r.reason)} <span class="meta">(run${r.runs.length > 1 ? "s" : ""} ${runs.join(", ")})</span></li>`;
  });
  return `<ul class="reasons">${items.join("")}</ul>`;
}

function taskRow(t: TaskHealth): string {
  const findings = t.findings.map((f) => `<li class="${f.kind}">${escapeHtml(f.message)}</li>`).join("");
  const cells = [
    `<td><a href="${escapeHtml(`${t.solutionRuns[0]?.run ?? ""}/report.html#task=${encodeURIComponent(t.key)}`)}">${escapeHtml(t.key)}</a></td>`,
    `<td>${statusBadge(t.status)}</td>`,
    `<td class="num" data-col="passes">${t.passes}/${t.verdicts}${t.verdicts < t.runs ? ` <span class="meta">(of ${t.runs})</span>` : ""}</td>`,
    `<td><span class="runs">${t.solutionRuns.map((r, i) => runBadge(r, i + 1)).join("")}</span></td>`,
    `<td data-col="no-actions">${runBadge(t.noActions, null)}</td>`,
    `<td class="wrap" data-col="reasons">${reasonsCell(t)}</td>`,
    `<td class="num" data-col="median">${seconds(t.medianMs)}</td>`,
    `<td class="wrap" data-col="findings">${findings ? `<ul class="findings">${findings}</ul>` : ""}</td>`,
  ];
  return `<tr data-key="${escapeHtml(t.key)}" data-status="${t.status}">${cells.join("")}</tr>`;
}

/** The tasks, the most serious status first, then by key. */
function ordered(tasks: readonly TaskHealth[]): TaskHealth[] {
  const rank = (s: HealthStatus) => HEALTH_STATUSES.indexOf(s);
  return [...tasks].sort((a, b) => rank(a.status) - rank(b.status) || a.key.localeCompare(b.key));
}

/**
 * health.html: the health of a dataset's tasks as one static page (no script, nothing from the
 * network), in the run viewer's style: a row per task with its status, how many runs its solution
 * passed, each run's score (linking to its summary.json), the score with no actions, the distinct
 * reasons (each run linking to its run viewer), the median time and the findings.
 */
export function healthHtml(report: HealthReport): string {
  const counts = HEALTH_STATUSES.filter((s) => report.counts[s] > 0)
    .map((s) => `<span data-count="${s}">${statusBadge(s)} ${report.counts[s]}</span>`)
    .join("");
  const summary =
    `${report.tasks} task(s); each one's solution ran ${report.repeat} time(s) and no actions once, each on a clean machine ` +
    `(${report.startedAt} to ${report.finishedAt})`;
  const body = `
<header>
  <h1>Task health</h1>
  <p id="run-summary">${escapeHtml(summary)}</p>
  <div class="counts">${counts}</div>
</header>
<main>
  <table id="health">
    <thead><tr>
      <th>Task</th><th>Status</th><th class="num">Passed</th><th>Runs with its solution</th><th>No actions</th>
      <th>Reasons</th><th class="num">Median s</th><th>Findings</th>
    </tr></thead>
    <tbody>${ordered(report.perTask).map(taskRow).join("\n")}</tbody>
  </table>
</main>`;
  return viewerPage({ title: "Pincer task health", csp: CSP, style: `${VIEWER_STYLE}${HEALTH_STYLE}`, body });
}
