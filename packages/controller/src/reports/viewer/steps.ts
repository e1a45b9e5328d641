/**
 * report.html's script, part 2: a task's trajectory, one frame per step (then "done", an agent
 * error, or the final screen): the screenshots the agent saw with the action drawn on them (part
 * 3) and beside them the tool call and its result or error, the evaluation after the step (the
 * graph's nodes and the evaluation's reason), the model's text, time and tokens.
 */
export const VIEWER_STEPS_SCRIPT = `
/** The trajectory lines the viewer steps through. */
function framesOf(t) {
  return t.trajectory.filter(function (l) { return typeof l.step === "number" || l.done || l.agent_error || l.final || l.human; });
}

function frameLabel(f) {
  if (typeof f.step === "number") return f.step + " " + String(f.tool || "").replace(/^[^_]*__/, "");
  if (f.human) return "human " + String(f.tool || "").replace(/^[^_]*__/, "");
  if (f.done) return "done (agent)";
  if (f.agent_error) return "agent error";
  return "final screen";
}

function frameClass(f) {
  if (f.ok === false || f.agent_error) return "bad";
  if (f.human) return "human";
  return typeof f.step === "number" ? "" : "other";
}

/**
 * Attempt n (of rollout r, in a run of several) of task t as a task of its own (the task's fields,
 * that attempt's outcome and trajectory); the last one is t itself.
 */
function attemptOf(t, n, r) {
  var a = t.earlier.filter(function (x) { return x.attempt === n && (x.rollout || 0) === (r || 0); })[0];
  // A task with rollouts stands for all of them: its page shows one rollout's attempt, the first one's last by default.
  if (!a && t.rolloutViews) a = t.earlier[0];
  if (!a) return t;
  var id = (r || 0) + ":" + n;
  t.views = t.views || {};
  if (!t.views[id]) t.views[id] = Object.assign({}, t, a);
  return t.views[id];
}

/** The trajectory's last evaluation: its verdicts are final; a node that failed before it had not been reached yet. */
function lastEvaluation(t) {
  for (var i = t.trajectory.length - 1; i >= 0; i--) if (t.trajectory[i].evaluation && t.trajectory[i].evaluation.nodes) return t.trajectory[i];
  return null;
}

function openTask(t, step, attempt, rollout) {
  var shown = attemptOf(t, attempt, rollout);
  if (ui.task !== shown) {
    ui.base = t;
    ui.task = shown;
    ui.frames = framesOf(shown);
    ui.lastEval = lastEvaluation(shown);
    renderTaskHead(shown);
    renderAttemptPicker(t, shown);
    renderStepList();
  }
  showStep(isFinite(step) && step > 0 ? step - 1 : 0, true);
}

/** Every attempt of the task, the last first (with rollouts, each rollout's in order); choosing one opens it at its first step. */
function renderAttemptPicker(t, shown) {
  var pick = $("f-attempt"), all = t.rolloutViews ? t.earlier.slice() : [t].concat(t.earlier);
  if (t.rolloutViews) all.sort(function (a, b) { return a.rollout - b.rollout || a.attempt - b.attempt; });
  // An option's value: the attempt's number, or with rollouts "<rollout>:<attempt>".
  var idOf = function (a) { return a.rollout ? a.rollout + ":" + a.attempt : String(a.attempt); };
  clear(pick);
  all.forEach(function (a) {
    var label = (a.rollout ? "rollout " + a.rollout + " · " : "") + "attempt " + a.attempt + " · " + a.state + (a === t && !t.rolloutViews ? " (last)" : "");
    pick.appendChild(el("option", { value: idOf(a), text: label, selected: a === shown || idOf(a) === idOf(shown) ? "selected" : null }));
  });
  pick.value = idOf(shown);
  pick.onchange = function () {
    var parts = pick.value.split(":"), r = parts.length > 1 ? Number(parts[0]) : 0, n = Number(parts[parts.length - 1]);
    var base = !t.rolloutViews && n === t.attempt && r === (t.rollout || 0);
    location.hash = taskHref(t.key, 1, base ? null : n, base ? null : r);
  };
  $("attempt-pick").hidden = all.length < 2;
}

/** The shown attempt's number when it is not the last (the address of the last one names none). */
function shownAttempt() { return ui.task === ui.base ? null : ui.task.attempt; }

/** The shown attempt's rollout when it is not the task's own attempt (in a run of several rollouts). */
function shownRollout() { return ui.task === ui.base ? null : ui.task.rollout || null; }

function renderTaskHead(t) {
  var head = $("task-head");
  clear(head);
  head.appendChild(el("h2", {}, [t.key + " ", stateBadge(t.state)]));
  head.appendChild(el("p", { "class": "instruction", text: t.instruction }));
  var meta = [
    "score " + num(t.score, 2),
    t.steps + " of " + t.maxSteps + " steps",
    num(t.timing.total_ms / 1000, 1) + " s (model " + num(t.timing.model_ms / 1000, 1) + " s, machines " + num(t.timing.env_ms / 1000, 1) + " s)",
    t.inputTokens + " in / " + t.outputTokens + " out tokens",
    t.costUsd === null ? null : "$" + num(t.costUsd, 4),
    "agent " + t.agent + (t.model ? " (" + t.model + ")" : ""),
    t.rollout ? "rollout " + t.rollout + ", attempt " + t.attempt : "attempt " + t.attempt + " of " + t.attempts,
    t.endReason ? "ended: " + t.endReason : null,
  ].filter(Boolean);
  head.appendChild(el("p", { "class": "meta", text: meta.join(" · ") }));
  if (t.human) {
    head.appendChild(el("p", { "class": "human-note", text: "A person took this attempt over (" + t.human.takeovers + " time(s), " + t.human.steps +
      " action(s), marked human in the steps): the score is not the agent's alone." }));
  }
  if (t.tags.length || t.apps.length) head.appendChild(el("p", { "class": "meta", text: "tags: " + t.tags.join(", ") + " · apps: " + t.apps.join(", ") }));
  head.appendChild(el("p", { "class": "files meta" }, [
    "files of this attempt: ",
    el("a", { href: fileUrl(t.dir, "summary.json"), "data-file": "summary", text: "summary.json" }), " · ",
    el("a", { href: fileUrl(t.dir, "trajectory.jsonl"), "data-file": "trajectory", text: "trajectory.jsonl" }), " · ",
    el("span", { text: t.dir + "/" }),
  ]));
  var rollouts = rolloutsBox(t);
  if (rollouts) head.appendChild(rollouts);
  if (t.evalReason) head.appendChild(el("p", { text: "evaluation: " + t.evalReason }));
  if (t.error) head.appendChild(el("pre", { "class": "error", text: t.error }));
  Object.keys(t.recordings || {}).forEach(function (env) {
    var r = t.recordings[env];
    if (r.file) {
      head.appendChild(el("details", { "class": "recording", "data-recording": env }, [
        el("summary", { text: "screen recording of " + env }),
        el("video", { src: fileUrl(t.dir, r.file), controls: "controls", preload: "none", width: "640" }),
      ]));
    } else head.appendChild(el("p", { "class": "meta", text: "no recording of " + env + ": " + r.error }));
  });
}

function renderStepList() {
  var list = $("step-list");
  clear(list);
  ui.frames.forEach(function (f, i) {
    var b = el("button", { type: "button", "class": frameClass(f), "data-index": i, text: frameLabel(f) });
    b.addEventListener("click", function () { showStep(i); });
    list.appendChild(el("li", {}, [b]));
  });
  if (ui.frames.length === 0) list.appendChild(el("li", { "class": "empty", text: "no steps recorded" }));
}

function showStep(i, fromRoute) {
  var n = ui.frames.length;
  ui.index = Math.max(0, Math.min(n - 1, i));
  if (!fromRoute) {
    var href = taskHref(ui.task.key, ui.index + 1, shownAttempt(), shownRollout());
    try { history.replaceState(null, "", href); } catch (e) { /* some browsers refuse it on file: pages */ }
  }
  $("prev").disabled = ui.index <= 0;
  $("next").disabled = ui.index >= n - 1;
  $("step-pos").textContent = n ? "step " + (ui.index + 1) + " of " + n : "";
  document.querySelectorAll("#step-list button").forEach(function (b) {
    if (Number(b.getAttribute("data-index")) === ui.index) {
      b.setAttribute("aria-current", "step");
      if (b.scrollIntoView) b.scrollIntoView({ block: "nearest" });
    } else b.removeAttribute("aria-current");
  });
  renderStep(ui.task, ui.frames[ui.index]);
}

/** The turn's model record: on the turn's first line. */
function turnModel(t, f) {
  for (var i = 0; i < t.trajectory.length; i++) {
    var l = t.trajectory[i];
    if (l.turn === f.turn && typeof l.model_ms === "number") return l;
  }
  return null;
}

function json(v) { return JSON.stringify(v, null, 2); }

/** A value on one line when it is short (a click's point, a small result), else indented. */
function brief(v) {
  var line = JSON.stringify(v);
  return line !== undefined && line.length <= 60 ? line : json(v);
}

function section(title, nodes) { return el("div", { "class": "section" }, [el("h3", { text: title })].concat(nodes)); }

function modelSection(t, f) {
  var m = turnModel(t, f);
  if (!m) return section("Model", [el("p", { "class": "empty", text: f.final ? "the screen after the last action" : "no model turn recorded" })]);
  var u = m.usage;
  var facts = ["model time " + num(m.model_ms / 1000, 2) + " s"];
  if (u) facts.push(u.input_tokens + " in / " + u.output_tokens + " out tokens" + (u.requests > 1 ? " in " + u.requests + " requests" : ""));
  if (u && typeof u.cost_usd === "number") facts.push("$" + num(u.cost_usd, 4));
  if (m !== f) facts.push("(turn " + f.turn + ", shown with its first step)");
  return section("Model", [
    m.message ? el("pre", { "class": "message", text: m.message }) : el("p", { "class": "empty", text: "no text" }),
    el("p", { "class": "meta", text: facts.join(" · ") }),
  ]);
}

function errorText(e) {
  if (e && typeof e.message === "string") return (e.type ? e.type + ": " : "") + e.message;
  return typeof e === "string" ? e : json(e);
}

/** A person's action (they took the slot over): what they did, and the screen after it. */
function humanSection(f) {
  var facts = ["took " + num((f.duration_ms || 0) / 1000, 2) + " s"];
  if (typeof f.settled_ms === "number") facts.push("the screen changed for " + num(f.settled_ms / 1000, 2) + " s after it");
  return el("div", {}, [
    section("A person's action (not the agent's)", [el("pre", { "class": "call", text: f.tool + " " + brief(f.args || {}) })]),
    f.ok ? null : section("Error", [el("pre", { "class": "error", text: errorText(f.error) })]),
    el("p", { "class": "meta", text: facts.join(" · ") + " · the screenshot shows the screen after it" }),
  ]);
}

function callSection(t, f) {
  if (f.human) return humanSection(f);
  if (typeof f.step !== "number") {
    if (f.agent_error) return section("Agent error", [el("pre", { "class": "error", text: f.agent_error })]);
    return null;
  }
  var result = f.result === undefined ? el("p", { "class": "empty", text: "nothing returned" }) : el("pre", { "class": "result", text: brief(f.result) });
  var timing = "action and evaluation " + num((f.duration_ms || 0) / 1000, 2) + " s" + (f.reason ? " · episode ended: " + f.reason : "");
  var out = [
    section("Tool call", [el("pre", { "class": "call", text: f.tool + " " + brief(f.args || {}) })]),
    f.ok ? section("Result", [result]) : section("Error", [el("pre", { "class": "error", text: errorText(f.error) })]),
    el("p", { "class": "meta", text: timing }),
  ];
  if (f.result && typeof f.result.file === "string") {
    out.push(section("Screenshot the tool returned", [el("img", { src: fileUrl(t.dir, f.result.file), alt: "returned screenshot", "class": "returned" })]));
  }
  return el("div", {}, out);
}

function evaluationSection(f) {
  var e = f.evaluation;
  if (!e || !e.nodes) return null;
  var facts = ["completion " + num((e.completionRatio || 0) * 100, 0) + "%", e.success ? "goal reached" : "goal not reached"];
  if (typeof e.score === "number") facts.unshift("score " + num(e.score, 2));
  var nodes = [nodeChips(e, f === ui.lastEval), evalReason(e)];
  nodes.push(el("p", { "class": "meta", text: facts.join(" · ") }));
  if (e.errors && e.errors.length) nodes.push(el("pre", { "class": "error", text: json(e.errors) }));
  return section(f.done ? "Evaluation when the agent was done" : "Evaluation after the step", nodes);
}

/** How long each screen was waited for before its screenshot, and the accessibility tree sent with it. */
function observationSection(t, f) {
  var parts = [];
  Object.keys(f.settle || {}).forEach(function (env) {
    var s = f.settle[env];
    var what = (s.settled ? "settled" : "still changing") + " after " + num(s.waited_ms / 1000, 2) + " s, " + s.changes + " changes seen";
    parts.push(el("p", { "class": "meta", "data-settle": env, text: env + ": screen " + what }));
  });
  Object.keys(f.accessibility || {}).forEach(function (env) {
    parts.push(el("p", {}, [el("a", { href: fileUrl(t.dir, f.accessibility[env]), text: env + ": accessibility tree sent with the screenshot" })]));
  });
  return parts.length ? section("Before the screenshot", parts) : null;
}

function renderStep(t, f) {
  var view = $("step-view");
  clear(view);
  if (!f) {
    view.appendChild(el("p", { "class": "empty", text: "This attempt recorded no steps." }));
    return;
  }
  var failed = f.ok === false ? " · failed" : "";
  var title = f.human ? "Human · " + f.tool + " · after turn " + f.turn + failed
    : typeof f.step === "number" ? "Step " + f.step + " · " + f.tool + " · turn " + f.turn + failed : frameLabel(f);
  view.appendChild(el("div", { "class": "step-title", text: title }));
  // The screenshots, and beside them what was done, what came of it and the evaluation, then the model's text.
  var details = el("div", { "class": "details" }, [callSection(t, f), evaluationSection(f), modelSection(t, f), observationSection(t, f)]);
  view.appendChild(el("div", { "class": "step-body" }, [shotsOf(t, f), details]));
}
`;
