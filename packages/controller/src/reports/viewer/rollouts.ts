/**
 * report.html's script, part 2b: a run of several rollouts per task (`--rollouts N`). The run's mean
 * pass@k in the header; on a task's page its statistics (pass@k for every k, best-of-N, the spread
 * of the scores) and its rollouts side by side, each with its final screen, score, state and end
 * reason, a click away from its steps. Same scope as parts 1 and 2.
 */
export const VIEWER_ROLLOUTS_SCRIPT = `
/** pass@k of each k, as "pass@1 0.500 · pass@2 0.833 · …"; a k without enough rollouts with a verdict shows "–". */
function passAtText(passAt) {
  return Object.keys(passAt).map(function (k) {
    var v = passAt[k];
    return "pass@" + k + " " + (typeof v === "number" ? num(v, 3) : "–");
  }).join(" · ");
}

/** The header's line of a run with rollouts: the means over the tasks. */
function runRolloutsText(r) {
  if (!r.rollouts) return null;
  var s = r.rollouts;
  var best = typeof s.meanBestOfN === "number" ? " · best-of-" + s.planned + " " + num(s.meanBestOfN, 3) : "";
  return s.planned + " rollouts per task: mean " + passAtText(s.meanPassAt) + best + (s.errors ? " · " + s.errors + " rollouts without a verdict" : "");
}

/** A task's rollout statistics and its rollouts side by side; null for a task of a run of one rollout. */
function rolloutsBox(t) {
  if (!t.rolloutViews || !t.rollouts) return null;
  var s = t.rollouts;
  var facts = [
    passAtText(s.passAt),
    "best-of-" + s.planned + " " + (s.bestOfN === null ? "–" : num(s.bestOfN, 2)),
    "min " + (s.min === null ? "–" : num(s.min, 2)) + ", max " + (s.max === null ? "–" : num(s.max, 2)) + ", std " + (s.std === null ? "–" : num(s.std, 3)),
    "n " + s.n + " of " + s.planned + " (" + s.c + " passed, " + s.errors + " infrastructure errors)",
  ];
  var cards = t.rolloutViews.map(function (v) { return rolloutCard(t, v); });
  return el("section", { id: "rollouts", "class": "rollouts" }, [
    el("h3", { text: "Rollouts" }),
    el("p", { "class": "meta", id: "rollout-stats", text: facts.join(" · ") }),
    el("div", { "class": "rollout-grid" }, cards),
  ]);
}

/** One rollout: its final screen, score, state and end reason; a click opens its steps. */
function rolloutCard(t, v) {
  var href = taskHref(t.key, 1, v.attempt, v.rollout);
  var current = ui.task && (ui.task.rollout || 0) === v.rollout;
  var shot = v.screenshot ? el("img", { src: fileUrl(v.screenshot, ""), alt: "final screen of rollout " + v.rollout, loading: "lazy" })
    : el("p", { "class": "empty", text: "no screenshot" });
  var why = v.error ? v.error : v.endReason ? "ended: " + v.endReason : "";
  return el("a", { "class": "rollout" + (current ? " current" : ""), href: href, "data-rollout": v.rollout, "data-state": v.state }, [
    el("div", { "class": "rollout-title" }, ["rollout " + v.rollout + " ", stateBadge(v.state)]),
    shot,
    el("div", { "class": "rollout-score", text: "score " + num(v.score, 2) }),
    el("div", { "class": "meta rollout-end", text: why + (v.attempts > 1 ? " · " + v.attempts + " attempts" : "") }),
  ]);
}
`;

/** The side-by-side rollouts' styles. */
export const VIEWER_ROLLOUTS_STYLE = `
.rollouts { margin: 0.5rem 0 1rem; }
.rollout-grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(220px, 1fr)); gap: 0.75rem; }
.rollout { display: block; border: 1px solid #ccc; border-radius: 6px; padding: 0.5rem; color: inherit; text-decoration: none; }
.rollout.current { border-color: #2563eb; box-shadow: 0 0 0 2px #2563eb33; }
.rollout img { width: 100%; height: auto; display: block; margin: 0.35rem 0; }
.rollout-title { font-weight: 600; }
.rollout-score { font-variant-numeric: tabular-nums; }
`;
