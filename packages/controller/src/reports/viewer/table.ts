/**
 * report.html's script, part 1: the data, DOM helpers, the run's table (filters, sorting) and the
 * routing between the table and a task (`#task=<tool/id>&rollout=<r>&attempt=<a>&step=<n>`, n from 1;
 * without an attempt, the last; the rollout only in a run of several). Plain ES2019 run by the
 * browser, in one function scope with parts 2 and 3; all text goes in through textContent.
 */
export const VIEWER_TABLE_SCRIPT = `
var data = JSON.parse(document.getElementById("pincer-data").textContent);
var tasks = data.tasks;
var byKey = {};
tasks.forEach(function (t) { byKey[t.key] = t; });
var ui = { sort: "key", dir: 1, task: null, frames: [], index: 0 };


function uniq(values) {
  var seen = {};
  return values.filter(function (v) { if (seen[v]) return false; seen[v] = true; return true; }).sort();
}

/** A path of the run folder as a relative URL: each part percent-encoded, so no part can be a scheme or a query. */
function fileUrl(dir, file) {
  return (dir + "/" + file).split("/").filter(function (p) { return p !== ""; }).map(encodeURIComponent).join("/");
}

function stateBadge(state) { return el("span", { "class": "state state-" + state, text: state }); }

function renderSummary() {
  var r = data.run;
  $("run-id").textContent = r.runId;
  document.title = "Pincer run " + r.runId;
  var parts = [
    r.tasks + " tasks: " + r.passed + " passed, " + r.failed + " failed, " + r.errors + " errors",
    "success rate " + num(r.successRate * 100, 1) + "%",
    "mean score " + num(r.meanScore, 3),
    r.totalTokens + " tokens",
    num(r.meanSecondsPerTask, 1) + " s per task",
  ];
  if (r.totalCostUsd !== null) parts.push("$" + num(r.totalCostUsd, 4));
  if (r.rollouts) parts.push(runRolloutsText(r));
  parts.push("report written " + data.generatedAt);
  $("run-summary").textContent = parts.join(" · ");
  renderConfig();
}

function fillSelect(id, values) {
  var s = $(id);
  s.appendChild(el("option", { value: "", text: "all" }));
  values.forEach(function (v) { s.appendChild(el("option", { value: v, text: v })); });
  s.addEventListener("change", renderTable);
}

var SORT_KEYS = {
  key: function (t) { return t.key; },
  state: function (t) { return t.state; },
  score: function (t) { return t.score; },
  steps: function (t) { return t.steps; },
  tokens: function (t) { return t.tokens; },
  cost: function (t) { return t.costUsd === null ? -1 : t.costUsd; },
  seconds: function (t) { return t.seconds; },
  attempts: function (t) { return t.attempts; },
  reason: function (t) { return reasonOf(t); },
};

/** Why a task did not pass: its infrastructure error, else what the evaluation said; "" when it passed. */
function reasonOf(t) {
  if (t.state === "passed") return "";
  if (t.error) return t.error;
  return [t.evalReason, t.endReason ? "ended: " + t.endReason : ""].filter(Boolean).join(" · ");
}

var REASON_MAX = 160;

function visibleTasks() {
  var st = $("f-state").value, tag = $("f-tag").value, app = $("f-app").value, text = $("f-text").value.trim().toLowerCase();
  var key = SORT_KEYS[ui.sort];
  return tasks
    .filter(function (t) {
      return (!st || t.state === st) && (!tag || t.tags.indexOf(tag) >= 0) && (!app || t.apps.indexOf(app) >= 0) &&
        (!text || t.key.toLowerCase().indexOf(text) >= 0);
    })
    .sort(function (a, b) {
      var x = key(a), y = key(b);
      var c = x < y ? -1 : x > y ? 1 : 0;
      return c * ui.dir || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
    });
}

function taskHref(key, step, attempt, rollout) {
  return "#task=" + encodeURIComponent(key) + (rollout ? "&rollout=" + rollout : "") + (attempt ? "&attempt=" + attempt : "") + (step ? "&step=" + step : "");
}

function taskRow(t) {
  var cells = [
    el("td", {}, [el("a", { href: taskHref(t.key), text: t.key })]),
    el("td", {}, [stateBadge(t.state)]),
    el("td", { "class": "num", text: num(t.score, 2) }),
    el("td", { "class": "num", text: t.steps }),
    el("td", { "class": "num", text: t.tokens }),
    el("td", { "class": "num", text: t.costUsd === null ? "" : num(t.costUsd, 4) }),
    el("td", { "class": "num", text: num(t.seconds, 1) }),
    el("td", { "class": "num", text: t.attempts }),
    reasonCell(reasonOf(t)),
  ];
  var tr = el("tr", { "data-key": t.key, "data-state": t.state }, cells);
  tr.addEventListener("click", function (ev) {
    if (ev.target.tagName !== "A") location.hash = taskHref(t.key);
  });
  return tr;
}

/** The reason, cut to REASON_MAX characters; the whole of it in the tooltip. */
function reasonCell(reason) {
  var short = reason.length > REASON_MAX ? reason.slice(0, REASON_MAX) + "…" : reason;
  return el("td", { "class": "reason", title: reason || null, text: short });
}

function renderTable() {
  var body = document.querySelector("#tasks tbody");
  clear(body);
  var shown = visibleTasks();
  shown.forEach(function (t) { body.appendChild(taskRow(t)); });
  $("f-count").textContent = "showing " + shown.length + " of " + tasks.length;
  document.querySelectorAll("#tasks th[data-sort]").forEach(function (th) {
    if (th.getAttribute("data-sort") === ui.sort) th.setAttribute("aria-sort", ui.dir > 0 ? "ascending" : "descending");
    else th.removeAttribute("aria-sort");
  });
}

function setupTable() {
  fillSelect("f-state", uniq(tasks.map(function (t) { return t.state; })));
  fillSelect("f-tag", uniq([].concat.apply([], tasks.map(function (t) { return t.tags; }))));
  fillSelect("f-app", uniq([].concat.apply([], tasks.map(function (t) { return t.apps; }))));
  $("f-text").addEventListener("input", renderTable);
  renderGroups();
  document.querySelectorAll("#tasks th[data-sort]").forEach(function (th) {
    th.addEventListener("click", function () {
      var k = th.getAttribute("data-sort");
      if (ui.sort === k) ui.dir = -ui.dir;
      else { ui.sort = k; ui.dir = k === "key" || k === "state" ? 1 : -1; }
      renderTable();
    });
  });
}

/** Shows what the address names: a task and one of its steps, or the table. */
function route() {
  var params = new URLSearchParams(location.hash.replace(/^#/, ""));
  var key = params.get("task");
  if (key !== null && byKey[key]) {
    $("view-table").hidden = true;
    $("view-task").hidden = false;
    openTask(byKey[key], Number(params.get("step") || "1"), Number(params.get("attempt") || "0"), Number(params.get("rollout") || "0"));
  } else {
    ui.task = null;
    $("view-task").hidden = true;
    $("view-table").hidden = false;
    renderTable();
  }
}

function onKey(ev) {
  if (!ui.task || ev.altKey || ev.ctrlKey || ev.metaKey) return;
  var tag = ev.target && ev.target.tagName;
  if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return;
  var k = ev.key;
  if (k === "ArrowRight" || k === "j") showStep(ui.index + 1);
  else if (k === "ArrowLeft" || k === "k") showStep(ui.index - 1);
  else if (k === "Home") showStep(0);
  else if (k === "End") showStep(ui.frames.length - 1);
  else if (k === "Escape") location.hash = "";
  else return;
  ev.preventDefault();
}

function start() {
  renderSummary();
  setupTable();
  $("prev").addEventListener("click", function () { showStep(ui.index - 1); });
  $("next").addEventListener("click", function () { showStep(ui.index + 1); });
  document.addEventListener("keydown", onKey);
  window.addEventListener("hashchange", route);
  route();
}
`;
