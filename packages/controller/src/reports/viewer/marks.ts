/**
 * report.html's script, part 3: the screenshots of a step with its action drawn over the one of
 * the environment it acted on: a ring at a click, a path for a drag, an arrow for a scroll, the
 * typed text and the key chord. Points are screen pixels (the desktop actions' unit) mapped into
 * the image with its recorded geometry: image = (screen - source) × scale.
 */
export const VIEWER_MARKS_SCRIPT = String.raw`
var SVG = "http://www.w3.org/2000/svg";

function svg(tag, attrs) {
  var e = document.createElementNS(SVG, tag);
  Object.keys(attrs).forEach(function (k) { e.setAttribute(k, String(attrs[k])); });
  return e;
}

var POINT_ACTIONS = { click: "click", double_click: "double click", right_click: "right click", move: "move", triple_click: "triple click",
  middle_click: "middle click", left_click: "click", mouse_move: "move" };

function pt(x, y) { return typeof x === "number" && typeof y === "number" ? { x: x, y: y } : null; }
function arr(c) { return Array.isArray(c) ? pt(c[0], c[1]) : null; }

/** What a step did, in screen pixels: the marks to draw. Covers the desktop actions and the forwarded computer-use action. */
function actionMarks(tool, a) {
  var name = String(tool).replace(/^[^_]*__/, "");
  a = a || {};
  if (name === "computer") return computerMarks(a);
  if (POINT_ACTIONS[name] && pt(a.x, a.y)) return [{ kind: "point", label: POINT_ACTIONS[name], cls: name, at: pt(a.x, a.y) }];
  if (name === "drag") return [{ kind: "drag", from: pt(a.start_x, a.start_y), to: pt(a.end_x, a.end_y) }];
  if (name === "scroll") return [{ kind: "scroll", at: pt(a.x, a.y), dx: a.dx || 0, dy: a.dy || 0 }];
  if (name === "key") return [{ kind: "key", text: a.keys + (a.repeat > 1 ? " ×" + a.repeat : "") }];
  if (name === "type") return [{ kind: "type", text: a.text }];
  if (pt(a.x, a.y)) return [{ kind: "point", label: name, cls: "point", at: pt(a.x, a.y) }];
  return [];
}

function computerMarks(a) {
  var act = a.action;
  if (POINT_ACTIONS[act] && arr(a.coordinate)) {
    return [{ kind: "point", label: POINT_ACTIONS[act], cls: act === "left_click" ? "click" : act, at: arr(a.coordinate) }];
  }
  if (act === "left_click_drag") return [{ kind: "drag", from: arr(a.start_coordinate), to: arr(a.coordinate) }];
  if (act === "scroll") {
    var n = a.scroll_amount || 1, d = a.scroll_direction;
    return [{ kind: "scroll", at: arr(a.coordinate), dx: d === "left" ? -n : d === "right" ? n : 0, dy: d === "up" ? -n : d === "down" ? n : 0 }];
  }
  if (act === "key" || act === "hold_key") return [{ kind: "key", text: a.text }];
  if (act === "type") return [{ kind: "type", text: a.text }];
  return [];
}

/**
 * Screen pixels to image pixels. Points all within [0, 1], one of them fractional, are taken as
 * fractions of the screen (the desktop actions' "normalized" mode).
 */
function mapper(g, marks) {
  var pts = [];
  marks.forEach(function (m) { [m.at, m.from, m.to].forEach(function (p) { if (p) pts.push(p.x, p.y); }); });
  var normalized = pts.length > 0 && pts.every(function (v) { return v >= 0 && v <= 1; }) && pts.some(function (v) { return v % 1 !== 0; });
  return function (p) {
    var x = normalized ? Math.round(p.x * (g.screen.width - 1)) : p.x, y = normalized ? Math.round(p.y * (g.screen.height - 1)) : p.y;
    return { x: (x - g.source.x) * g.scale, y: (y - g.source.y) * g.scale };
  };
}

function label(g, p, text) {
  var t = svg("text", { x: p.x + g.r * 1.4, y: p.y - g.r * 1.1 });
  t.textContent = text;
  return t;
}

function pointMark(g, m, map) {
  var p = map(m.at), r = g.r;
  var grp = svg("g", { "class": "marker marker-" + m.cls, "data-screen-x": m.at.x, "data-screen-y": m.at.y });
  grp.appendChild(svg("line", { "class": "hair", x1: p.x - r * 1.6, y1: p.y, x2: p.x + r * 1.6, y2: p.y }));
  grp.appendChild(svg("line", { "class": "hair", x1: p.x, y1: p.y - r * 1.6, x2: p.x, y2: p.y + r * 1.6 }));
  grp.appendChild(svg("circle", { "class": "ring", cx: p.x, cy: p.y, r: r }));
  if (m.cls === "double_click" || m.cls === "triple_click") grp.appendChild(svg("circle", { "class": "ring", cx: p.x, cy: p.y, r: r * 1.5 }));
  grp.appendChild(svg("circle", { "class": "dot", cx: p.x, cy: p.y, r: Math.max(2, r / 4) }));
  grp.appendChild(label(g, p, m.label + " (" + m.at.x + ", " + m.at.y + ")"));
  return grp;
}

function arrowHead(g, from, to) {
  var ang = Math.atan2(to.y - from.y, to.x - from.x), s = g.r * 1.2;
  var a = { x: to.x - s * Math.cos(ang - 0.45), y: to.y - s * Math.sin(ang - 0.45) };
  var b = { x: to.x - s * Math.cos(ang + 0.45), y: to.y - s * Math.sin(ang + 0.45) };
  return svg("polyline", { "class": "path", points: a.x + "," + a.y + " " + to.x + "," + to.y + " " + b.x + "," + b.y });
}

function dragMark(g, m, map) {
  if (!m.from || !m.to) return null;
  var a = map(m.from), b = map(m.to);
  var grp = svg("g", { "class": "marker marker-drag", "data-screen-x": m.to.x, "data-screen-y": m.to.y });
  grp.appendChild(svg("line", { "class": "path", x1: a.x, y1: a.y, x2: b.x, y2: b.y }));
  grp.appendChild(arrowHead(g, a, b));
  grp.appendChild(svg("circle", { "class": "dot start", cx: a.x, cy: a.y, r: Math.max(3, g.r / 3) }));
  grp.appendChild(svg("circle", { "class": "dot end", cx: b.x, cy: b.y, r: Math.max(3, g.r / 3) }));
  grp.appendChild(label(g, b, "drag (" + m.from.x + ", " + m.from.y + ") → (" + m.to.x + ", " + m.to.y + ")"));
  return grp;
}

function scrollMark(g, m, map) {
  var at = m.at || g.cursor;
  if (!at) return null;
  var p = map(at), len = g.r * 2.5;
  var mag = Math.sqrt(m.dx * m.dx + m.dy * m.dy) || 1;
  var end = { x: p.x + (len * m.dx) / mag, y: p.y + (len * m.dy) / mag };
  var grp = svg("g", { "class": "marker marker-scroll", "data-screen-x": at.x, "data-screen-y": at.y });
  grp.appendChild(svg("circle", { "class": "dot", cx: p.x, cy: p.y, r: Math.max(3, g.r / 3) }));
  if (m.dx || m.dy) {
    grp.appendChild(svg("line", { "class": "path", x1: p.x, y1: p.y, x2: end.x, y2: end.y }));
    grp.appendChild(arrowHead(g, p, end));
  }
  var what = [m.dy ? (m.dy > 0 ? "down " : "up ") + Math.abs(m.dy) : "", m.dx ? (m.dx > 0 ? "right " : "left ") + Math.abs(m.dx) : ""];
  grp.appendChild(label(g, p, "scroll " + what.filter(Boolean).join(", ")));
  return grp;
}

/** Draws the marks into the overlay and the labels box of one screenshot, once its geometry is known. */
function drawMarks(g, marks, overlay, labels) {
  g.r = Math.max(6, g.width / 90);
  overlay.setAttribute("viewBox", "0 0 " + g.width + " " + g.height);
  var map = mapper(g, marks);
  marks.forEach(function (m) {
    var node = m.kind === "point" ? pointMark(g, m, map) : m.kind === "drag" ? dragMark(g, m, map) : m.kind === "scroll" ? scrollMark(g, m, map) : null;
    if (node) overlay.appendChild(node);
    if (m.kind === "type") labels.appendChild(el("div", { "class": "overlay-text type", text: "typed: " + String(m.text).replace(/\n/g, "⏎\n") }));
    if (m.kind === "key") labels.appendChild(el("div", { "class": "overlay-text key", text: "keys: " + m.text }));
  });
}

/** Without a recorded geometry (older runs): the image is taken as the whole screen, unscaled. */
function naturalGeometry(img) {
  var w = img.naturalWidth, h = img.naturalHeight;
  return { width: w, height: h, scale: 1, source: { x: 0, y: 0, width: w, height: h }, screen: { width: w, height: h }, cursor: null };
}

function shotFigure(t, f, env, marks) {
  var g = f.screenshot_geometry && f.screenshot_geometry[env];
  var img = el("img", { src: fileUrl(t.dir, f.screenshots[env]), alt: "screen of " + env + " before turn " + f.turn });
  var overlay = svg("svg", { "class": "overlay", preserveAspectRatio: "none", "aria-hidden": "true" });
  var labels = el("div", { "class": "labels" });
  if (g) drawMarks(Object.assign({}, g), marks, overlay, labels);
  else img.addEventListener("load", function () { drawMarks(naturalGeometry(img), marks, overlay, labels); });
  var caption = env + (f.final ? ": after the last action" : ": what the agent saw");
  if (g) {
    caption += " · image " + g.width + "×" + g.height + " of screen " + g.source.width + "×" + g.source.height;
    if (g.scale !== 1) caption += " (scale " + num(g.scale, 3) + ")";
  }
  return el("figure", { "class": "shot", "data-env": env }, [el("div", { "class": "frame" }, [img, overlay, labels]), el("figcaption", { text: caption })]);
}

function shotsOf(t, f) {
  var envs = Object.keys(f.screenshots || {});
  if (envs.length === 0) {
    return el("p", { "class": "no-shot", text: "No screenshot was saved for this step (the run had --no-screenshots, or taking it failed)." });
  }
  var actedOn = typeof f.step === "number" || f.human ? String(f.tool).split("__")[0] : null;
  return el("div", { "class": "shots" }, envs.map(function (env) { return shotFigure(t, f, env, env === actedOn ? actionMarks(f.tool, f.args) : []); }));
}
`;
