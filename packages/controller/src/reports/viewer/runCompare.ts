import { viewerPage } from "./page.js";
import { VIEWER_STYLE } from "./style.js";

const STYLE = `
#configs { margin-top: 8px; width: auto; font-size: 13px; }
#configs th, #configs td { padding: 2px 10px; cursor: default; }
#configs tr.differs td { font-weight: 600; background: #fff8e6; }
.filters { display: flex; gap: 6px; flex-wrap: wrap; align-items: center; margin-bottom: 10px; }
.filters button[aria-pressed="true"] { background: #dbe6ff; font-weight: 600; }
th.run { text-align: center; border-left: 2px solid var(--line); }
td.first { border-left: 2px solid var(--line); }
.change { display: inline-block; padding: 0 6px; border-radius: 8px; font-size: 12px; color: #fff; background: var(--pend); }
.change-better { background: var(--pass); }
.change-worse { background: var(--fail); }
.change-changed { background: var(--err); }
.delta { color: var(--muted); font-size: 12px; margin-left: 4px; }
.absent { color: var(--muted); font-style: italic; }
`;

const BODY = `
<header>
  <h1>Run <span id="run-b"></span> against <span id="run-a"></span></h1>
  <p id="run-summary"></p>
  <table id="configs"><thead><tr><th></th><th id="config-a"></th><th id="config-b"></th></tr></thead><tbody></tbody></table>
</header>
<main>
  <div class="filters" id="filters"></div>
  <table id="tasks">
    <thead>
      <tr><th rowspan="2">Task</th><th rowspan="2">Change</th><th class="run" colspan="5" id="head-a"></th><th class="run" colspan="5" id="head-b"></th></tr>
      <tr><th class="first">State</th><th class="num">Score</th><th class="num">Steps</th><th class="num">Tokens</th><th class="num">Time s</th>
        <th class="first">State</th><th class="num">Score</th><th class="num">Steps</th><th class="num">Tokens</th><th class="num">Time s</th></tr>
    </thead>
    <tbody></tbody>
  </table>
</main>`;

/** The page's script: the header (both runs' totals and configurations, differences marked), the filters and the table. */
const SCRIPT = `
var data = JSON.parse(document.getElementById("pincer-data").textContent);
function fileUrl(path) {
  return path.split("/").filter(function (p) { return p !== ""; })
    .map(function (p) { return p === ".." ? p : encodeURIComponent(p); }).join("/");
}
var LABELS = { better: "got better", worse: "got worse", changed: "changed", same: "same", only_a: "only in A", only_b: "only in B" };
var FILTERS = [["better", "got better"], ["worse", "got worse"], ["changed", "changed"], ["all", "all"]];
var ui = { filter: "all" };
var CONFIG_LABELS = { provider: "machines", maxSteps: "max steps", taskTimeout: "task timeout", accessibility: "a11y" };

function renderHeader() {
  var a = data.a, b = data.b;
  $("run-a").textContent = a.runId + " (A)";
  $("run-b").textContent = b.runId + " (B)";
  document.title = "Pincer: " + b.runId + " against " + a.runId;
  var c = data.counts;
  $("run-summary").textContent = [
    "A: " + a.totals.passed + "/" + a.totals.tasks + " passed, mean score " + num(a.totals.meanScore, 3),
    "B: " + b.totals.passed + "/" + b.totals.tasks + " passed, mean score " + num(b.totals.meanScore, 3),
    c.better + " got better, " + c.worse + " got worse, " + c.changed + " changed state, " + c.same + " the same",
    c.only_a + " only in A, " + c.only_b + " only in B",
  ].join(" · ");
  $("config-a").textContent = "A " + a.runId;
  $("config-b").textContent = "B " + b.runId;
  var body = document.querySelector("#configs tbody");
  Object.keys(a.config).forEach(function (k) {
    var va = a.config[k], vb = b.config[k];
    if ((va === null && vb === null) || k === "startedAt" || k === "finishedAt") return;
    body.appendChild(el("tr", { "data-config": k, "class": va === vb ? null : "differs" }, [
      el("th", { text: CONFIG_LABELS[k] || k }), el("td", { text: va === null ? "—" : va }),
      el("td", { text: vb === null ? "—" : vb })]));
  });
  $("head-a").appendChild(el("a", { href: fileUrl(a.dir + "/report.html"), text: "A · " + a.runId }));
  $("head-b").appendChild(el("a", { href: fileUrl(b.dir + "/report.html"), text: "B · " + b.runId }));
}

function shows(t, filter) {
  if (filter === "all") return true;
  if (filter === "changed") return t.change === "better" || t.change === "worse" || t.change === "changed";
  return t.change === filter;
}

function delta(x, y, d) {
  if (typeof x !== "number" || typeof y !== "number" || x === y) return null;
  return el("span", { "class": "delta", text: (y > x ? "+" : "") + num(y - x, d) });
}

function sideCells(run, key, row, other) {
  if (!row) return [el("td", { "class": "first absent", colspan: "5", text: "not in this run" })];
  var href = fileUrl(run.dir + "/report.html") + "#task=" + encodeURIComponent(key);
  return [
    el("td", { "class": "first" }, [el("a", { href: href }, [el("span", { "class": "state state-" + row.state, text: row.state })])]),
    el("td", { "class": "num" }, [num(row.score, 2), other && delta(other.score, row.score, 2)]),
    el("td", { "class": "num" }, [String(row.steps), other && delta(other.steps, row.steps, 0)]),
    el("td", { "class": "num" }, [String(row.tokens), other && delta(other.tokens, row.tokens, 0)]),
    el("td", { "class": "num" }, [num(row.seconds, 1), other && delta(other.seconds, row.seconds, 1)]),
  ];
}

function renderTable() {
  var body = document.querySelector("#tasks tbody");
  while (body.firstChild) body.removeChild(body.firstChild);
  data.tasks.filter(function (t) { return shows(t, ui.filter); }).forEach(function (t) {
    var reason = [t.a && t.a.error, t.b && t.b.error].filter(Boolean).join(" | ");
    body.appendChild(el("tr", { "data-key": t.key, "data-change": t.change, title: reason || null }, [
      el("td", { text: t.key }), el("td", {}, [el("span", { "class": "change change-" + t.change, text: LABELS[t.change] })]),
    ].concat(sideCells(data.a, t.key, t.a, null), sideCells(data.b, t.key, t.b, t.a))));
  });
  document.querySelectorAll("#filters button").forEach(function (b) { b.setAttribute("aria-pressed", String(b.getAttribute("data-filter") === ui.filter)); });
}

function count(f) { return data.tasks.filter(function (t) { return shows(t, f); }).length; }

function start() {
  renderHeader();
  var box = $("filters");
  box.appendChild(el("span", { "class": "meta", text: "show" }));
  FILTERS.forEach(function (f) {
    var b = el("button", { type: "button", "data-filter": f[0], text: f[1] + " (" + count(f[0]) + ")" });
    b.addEventListener("click", function () { ui.filter = f[0]; renderTable(); });
    box.appendChild(b);
  });
  renderTable();
}
`;

const CSP = "default-src 'none'; img-src 'self' file: data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'";

/** The comparison page of two runs (see `writeRunComparison`): self-contained, the comparison embedded as JSON. */
export function runComparisonHtml(comparison: { a: { runId: string }; b: { runId: string } }): string {
  const title = `Pincer: ${comparison.b.runId} against ${comparison.a.runId}`;
  return viewerPage({ title, csp: CSP, style: `${VIEWER_STYLE}${STYLE}`, body: BODY, data: comparison, script: SCRIPT });
}
