/**
 * compare.html's script: the data, DOM helpers, the table of tasks (outcome in both runs, first
 * divergence) and a task's two runs side by side step by step, with what differs at each step and
 * the first divergence marked (`#task=<tool/id>&step=<n>`, n from 1). The screenshots and the
 * actions drawn on them come from report.html's part 3. Plain ES2019; text goes in through textContent.
 */
export const VIEWER_COMPARE_SCRIPT = `
var data = JSON.parse(document.getElementById("pincer-data").textContent);
var tasks = data.tasks;
var byKey = {};
tasks.forEach(function (t) { byKey[t.task] = t; });
var ui = { task: null, index: 0 };


/** A path below the replay's folder (the original's starts with ../) as a relative URL, each part percent-encoded. */
function fileUrl(dir, file) {
  return (dir + "/" + file).split("/").filter(function (p) { return p !== ""; }).map(encodeURIComponent).join("/");
}

function stateBadge(state) { return el("span", { "class": "state state-" + state, text: state }); }

function outcomeBadge(t) { return el("span", { "class": "outcome outcome-" + t.outcome, text: t.outcome + " outcome" }); }

function taskHref(key, step) { return "#task=" + encodeURIComponent(key) + (step ? "&step=" + step : ""); }

function side(a) { return a ? [stateBadge(a.state), " score " + num(a.score, 2) + " · " + a.steps + " steps"] : ["no attempt"]; }

function divergenceText(t) {
  var d = t.first_divergence;
  if (!d) return t.outcome === "same" ? "none" : t.outcome_differences.join("; ");
  return "step " + d.step + " (" + d.tool + "): " + d.differences.map(function (x) { return x.detail; }).join("; ");
}

function renderTable() {
  var r = data.run;
  $("run-id").textContent = r.run_id;
  $("original-id").textContent = r.replay_of.run_id;
  $("run-summary").textContent = r.tasks + " tasks: " + r.same_outcome + " with the same outcome, " + (r.tasks - r.same_outcome) + " different; " +
    r.diverged + " diverged at some step · a screen differs when over " + num(r.screen_threshold * 100, 1) + "% of its pixels do · written " +
    data.generatedAt;
  var body = document.querySelector("#tasks tbody");
  clear(body);
  tasks.forEach(function (t) {
    var tr = el("tr", { "data-key": t.task, "data-outcome": t.outcome }, [
      el("td", {}, [el("a", { href: taskHref(t.task), text: t.task })]),
      el("td", { "data-side": "original" }, side(t.original)),
      el("td", { "data-side": "replay" }, side(t.replay)),
      el("td", {}, [outcomeBadge(t)]),
      el("td", { "class": "divergence", text: divergenceText(t) }),
    ]);
    tr.addEventListener("click", function (ev) { if (ev.target.tagName !== "A") location.hash = taskHref(t.task); });
    body.appendChild(tr);
  });
  var w = $("warnings");
  clear(w);
  r.warnings.forEach(function (x) { w.appendChild(el("li", { text: x })); });
}

function firstIndex(t) {
  if (!t.first_divergence) return -1;
  for (var i = 0; i < t.frames.length; i++) if (t.frames[i].step === t.first_divergence.step) return i;
  return -1;
}

function openTask(t, step) {
  if (ui.task !== t) {
    ui.task = t;
    var head = $("task-head");
    clear(head);
    head.appendChild(el("h2", {}, [t.task + " ", outcomeBadge(t)]));
    head.appendChild(el("p", { "class": "meta", text: "original: " + data.run.replay_of.run_id + ", attempt " + t.original.attempt }, []));
    head.appendChild(el("p", {}, ["original "].concat(side(t.original), [" · replay "], side(t.replay))));
    if (t.outcome_differences.length) head.appendChild(el("p", { text: "outcome: " + t.outcome_differences.join("; ") }));
    head.appendChild(el("p", { "class": "meta", text: "first divergence: " + divergenceText(t) }));
    var notes = [];
    if (t.waits === "model_ms") notes.push("the original did not record its steps' times: each turn waited its model time");
    if (t.task_changed) notes.push("the task's file changed between the run and the replay");
    if (notes.length) head.appendChild(el("p", { "class": "meta", text: notes.join(" · ") }));
    renderStepList(t);
  }
  showStep(isFinite(step) && step > 0 ? step - 1 : 0, true);
}

function renderStepList(t) {
  var list = $("step-list");
  clear(list);
  var first = firstIndex(t);
  t.frames.forEach(function (f, i) {
    var cls = i === first ? "first" : f.differences.length ? "diverged" : "";
    var mark = i === first ? "first" : f.differences.length ? "yes" : null;
    var b = el("button", { type: "button", "class": cls, "data-index": i, "data-divergence": mark }, [f.label]);
    if (i === first) b.appendChild(el("span", { "class": "first-badge", text: "first divergence" }));
    b.addEventListener("click", function () { showStep(i); });
    list.appendChild(el("li", {}, [b]));
  });
}

function showStep(i, fromRoute) {
  var n = ui.task.frames.length;
  ui.index = Math.max(0, Math.min(n - 1, i));
  if (!fromRoute) {
    try { history.replaceState(null, "", taskHref(ui.task.task, ui.index + 1)); } catch (e) { /* some browsers refuse it on file: pages */ }
  }
  $("prev").disabled = ui.index <= 0;
  $("next").disabled = ui.index >= n - 1;
  $("to-divergence").disabled = firstIndex(ui.task) < 0;
  $("step-pos").textContent = n ? "step " + (ui.index + 1) + " of " + n : "";
  document.querySelectorAll("#step-list button").forEach(function (b) {
    if (Number(b.getAttribute("data-index")) === ui.index) b.setAttribute("aria-current", "step");
    else b.removeAttribute("aria-current");
  });
  renderStep(ui.task, ui.task.frames[ui.index]);
}

function json(v) { return JSON.stringify(v, null, 2); }

function errorText(e) { return e && typeof e.message === "string" ? (e.type ? e.type + ": " : "") + e.message : json(e); }

/** The line of a side ("original" or "replay") whose evaluation is its attempt's last. */
function lastEvaluation(t, key) {
  for (var i = t.frames.length - 1; i >= 0; i--) {
    var l = t.frames[i][key];
    if (l && l.evaluation && l.evaluation.nodes) return l;
  }
  return null;
}

function sideView(name, runId, dir, line, last) {
  var parts = [el("h2", { text: name + " · " + runId })];
  var attrs = { "class": "side", "data-side": name.toLowerCase() };
  if (!line) return el("div", attrs, parts.concat([el("p", { "class": "empty", text: "no such step in this run" })]));
  parts.push(shotsOf({ dir: dir }, line));
  if (typeof line.step === "number") {
    parts.push(el("h3", { text: "Tool call" }), el("pre", { "class": "call", text: line.tool + " " + json(line.args || {}) }));
    var result = line.result === undefined ? "nothing returned" : json(line.result);
    if (line.ok) parts.push(el("h3", { text: "Result" }), el("pre", { "class": "result", text: result }));
    else parts.push(el("h3", { text: "Error" }), el("pre", { "class": "error", text: errorText(line.error) }));
    var e = line.evaluation;
    // Named as the run page names them: a node that failed before the side's last evaluation is pending.
    if (e && e.nodes) parts.push(el("h3", { text: "Evaluation after the step" }), nodeChips(e, line === last), evalReason(e));
    var facts = ["acted at " + num((line.at_ms || 0) / 1000, 2) + " s", "took " + num((line.duration_ms || 0) / 1000, 2) + " s"];
    if (line.reason) facts.push("episode ended: " + line.reason);
    parts.push(el("p", { "class": "meta", text: facts.join(" · ") }));
  } else if (line.agent_error) parts.push(el("pre", { "class": "error", text: line.agent_error }));
  return el("div", attrs, parts);
}

function renderStep(t, f) {
  var view = $("step-view");
  clear(view);
  if (!f) {
    view.appendChild(el("p", { "class": "empty", text: "Neither run recorded a step of this task." }));
    return;
  }
  var first = firstIndex(t) === ui.index;
  var title = f.step === null ? "After the last step" : "Step " + f.step + (first ? " · the first divergence" : "");
  view.appendChild(el("div", { "class": "step-title", text: title }));
  var box = el("div", { "class": "differences" + (f.differences.length ? "" : " none"), "data-differences": f.differences.length });
  if (f.differences.length) {
    box.appendChild(el("strong", { text: first ? "The runs first diverge here:" : "What differs:" }));
    box.appendChild(el("ul", {}, f.differences.map(function (d) { return el("li", { "data-kind": d.kind, text: d.detail }); })));
  } else box.appendChild(el("span", { text: f.step === null ? "The screens after the last step, side by side." : "The two runs agree at this step." }));
  view.appendChild(box);
  view.appendChild(el("div", { "class": "sides" }, [
    sideView("Original", data.run.replay_of.run_id, data.originalDir + "/" + t.original.dir, f.original, lastEvaluation(t, "original")),
    sideView("Replay", data.run.run_id, t.replay ? t.replay.dir : "", f.replay, lastEvaluation(t, "replay")),
  ]));
}

function route() {
  var params = new URLSearchParams(location.hash.replace(/^#/, ""));
  var key = params.get("task");
  if (key !== null && byKey[key]) {
    $("view-table").hidden = true;
    $("view-task").hidden = false;
    openTask(byKey[key], Number(params.get("step") || "1"));
  } else {
    ui.task = null;
    $("view-task").hidden = true;
    $("view-table").hidden = false;
  }
}

function onKey(ev) {
  if (!ui.task || ev.altKey || ev.ctrlKey || ev.metaKey) return;
  var k = ev.key;
  if (k === "ArrowRight" || k === "j") showStep(ui.index + 1);
  else if (k === "ArrowLeft" || k === "k") showStep(ui.index - 1);
  else if (k === "d" && firstIndex(ui.task) >= 0) showStep(firstIndex(ui.task));
  else if (k === "Escape") location.hash = "";
  else return;
  ev.preventDefault();
}

function start() {
  renderTable();
  $("prev").addEventListener("click", function () { showStep(ui.index - 1); });
  $("next").addEventListener("click", function () { showStep(ui.index + 1); });
  $("to-divergence").addEventListener("click", function () { showStep(firstIndex(ui.task)); });
  document.addEventListener("keydown", onKey);
  window.addEventListener("hashchange", route);
  route();
}
`;
