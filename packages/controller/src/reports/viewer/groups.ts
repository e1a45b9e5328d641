/**
 * report.html's script, part 1b: the run's configuration in the header (from manifest.json and the
 * summaries; what an older run did not record is left out) and, under the task table, the tables
 * per tag, per app and of counterpart pairs that report.md has. Same scope as part 1.
 */
export const VIEWER_GROUPS_SCRIPT = `
var CONFIG_FIELDS = [
  ["agent", "agent"], ["model", "model"], ["provider", "machines"], ["image", "image"], ["dataset", "dataset"],
  ["maxSteps", "max steps"], ["attempts", "attempts"], ["rollouts", "rollouts"], ["taskTimeout", "task timeout"], ["screenshots", "screenshots"],
  ["settle", "settle"], ["accessibility", "a11y"], ["record", "record"], ["startedAt", "started"], ["finishedAt", "finished"],
];

function renderConfig() {
  var c = data.config, box = $("run-config");
  clear(box);
  if (!c) { box.hidden = true; return; }
  CONFIG_FIELDS.forEach(function (f) {
    if (c[f[0]] === null || c[f[0]] === undefined) return;
    box.appendChild(el("div", { "data-config": f[0] }, [el("dt", { text: f[1] }), el("dd", { text: c[f[0]] })]));
  });
}

function groupBox(id, title, head, rows) {
  return el("div", { "class": "group", id: id }, [el("h3", { text: title }), el("table", {}, [el("thead", {}, [head]), el("tbody", {}, rows)])]);
}

function pct(x) { return num(x * 100, 1) + "%"; }

/** A table of groups (per tag or per app); a click on a row filters the task table by it. */
function groupTable(title, filter, groups) {
  var names = Object.keys(groups || {});
  if (names.length === 0) return null;
  var head = el("tr", {}, [title, "tasks", "passed", "failed", "errors", "success", "mean score"].map(function (h, i) {
    return el("th", { "class": i ? "num" : null, text: h });
  }));
  var rows = names.map(function (name) {
    var g = groups[name];
    var tr = el("tr", { "data-group": name, title: "show only these tasks" }, [
      el("td", { text: name }), el("td", { "class": "num", text: g.tasks }), el("td", { "class": "num", text: g.passed }),
      el("td", { "class": "num", text: g.failed }), el("td", { "class": "num", text: g.errors }),
      el("td", { "class": "num", text: pct(g.tasks ? g.passed / g.tasks : 0) }), el("td", { "class": "num", text: num(g.meanScore, 3) }),
    ]);
    tr.addEventListener("click", function () { $(filter).value = name; renderTable(); window.scrollTo(0, 0); });
    return tr;
  });
  return groupBox("by-" + title, "By " + title, head, rows);
}

function counterpartTable(pairs) {
  if (!pairs || pairs.length === 0) return null;
  var head = el("tr", {}, ["task", "score", "counterpart", "score"].map(function (h, i) { return el("th", { "class": i % 2 ? "num" : null, text: h }); }));
  var keyOf = {};
  tasks.forEach(function (t) { keyOf[t.id] = t.key; });
  function cell(id, tags) {
    var name = id + (tags.length ? " (" + tags.join(", ") + ")" : "");
    return el("td", {}, [keyOf[id] ? el("a", { href: taskHref(keyOf[id]), text: name }) : name]);
  }
  var rows = pairs.map(function (p) {
    return el("tr", { "data-pair": p.a + "|" + p.b }, [cell(p.a, p.aTags), el("td", { "class": "num", text: num(p.aScore, 2) }),
      cell(p.b, p.bTags), el("td", { "class": "num", text: num(p.bScore, 2) })]);
  });
  return groupBox("counterparts", "Counterpart pairs", head, rows);
}

function renderGroups() {
  var box = $("groups"), r = data.run;
  clear(box);
  [groupTable("tag", "f-tag", r.byTag), groupTable("app", "f-app", r.byApp), counterpartTable(r.counterparts)].forEach(function (t) {
    if (t) box.appendChild(t);
  });
}
`;
