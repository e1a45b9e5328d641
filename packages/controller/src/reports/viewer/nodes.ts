/**
 * The evaluator graph's node states as every page and message names them. A trajectory records a
 * node that did not hold when checked as "failed"; before the attempt's last evaluation that only
 * means it has not been reached yet, so it is shown as "pending"; the last evaluation's verdicts
 * are final.
 */
export function shownNodeStatus(recorded: string, lastEvaluation: boolean): string {
  return recorded === "failed" && !lastEvaluation ? "pending" : recorded;
}

/**
 * The viewer pages' script for the evaluation after a step (report.html and compare.html): a chip
 * per node named as {@link shownNodeStatus} names it, with what its state means as its title, and
 * the evaluation's reason in its own words. Needs the DOM helpers of page.ts.
 */
export const VIEWER_NODES_SCRIPT = `
var NODE_TITLES = {
  passed: "passed",
  failed: "failed: the last evaluation found it does not hold",
  error: "its evaluator threw",
  pending: "not reached yet: a node before it has not passed",
  "not-yet": "not reached yet: checked after this step, it did not hold (yet)",
};

/** As shownNodeStatus in nodes.ts: before the last evaluation, a node that failed has not been reached yet. */
function shownStatus(recorded, lastEvaluation) { return recorded === "failed" && !lastEvaluation ? "pending" : recorded; }

/** The chips of an evaluation's nodes; lastEvaluation: it is the attempt's last one, whose verdicts are final. */
function nodeChips(e, lastEvaluation) {
  return el("div", { "class": "nodes" }, Object.keys(e.nodes).map(function (id) {
    var recorded = e.nodes[id];
    var status = shownStatus(recorded, lastEvaluation);
    var why = NODE_TITLES[recorded === status ? status : "not-yet"];
    var attrs = { "class": "node node-" + status, "data-node": id, "data-status": status, "data-recorded": recorded };
    attrs.title = why;
    attrs.text = id + ": " + status;
    return el("span", attrs);
  }));
}

/** What the evaluation said, in its own words (a check that waits says how long it waited); null when it said nothing. */
function evalReason(e) {
  return typeof e.reason === "string" && e.reason ? el("p", { "class": "eval-reason", text: "why: " + e.reason }) : null;
}
`;
