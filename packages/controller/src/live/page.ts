/** What the live page offers: watching a run (take over, hand back), or recording a demonstration (done). */
export type LivePageMode = "run" | "record";

const STYLE = `
body{font:14px system-ui,sans-serif;margin:0;background:#111;color:#ddd}
header{display:flex;gap:1em;align-items:baseline;padding:.5em 1em;background:#222}
h1{font-size:1.1em;margin:0}
#slots{display:flex;flex-wrap:wrap;gap:1em;padding:1em}
.slot{background:#1b1b1b;border:2px solid #333;border-radius:6px;padding:.5em;max-width:100%}
.slot.human{border-color:#e6a100}.slot.requested{border-color:#886200}
.meta{display:flex;gap:.8em;align-items:baseline;flex-wrap:wrap}
.mode{padding:0 .4em;border-radius:3px;background:#333}.human .mode{background:#e6a100;color:#000}
.instruction,.message{max-width:640px;margin:.3em 0;color:#aaa;white-space:pre-wrap}
.message:empty,.instruction:empty{display:none}
.screens{display:flex;gap:.5em;flex-wrap:wrap}
.screen{position:relative;display:inline-block}
.screen canvas{display:block;width:640px;max-width:90vw;background:#000}
.screen canvas.overlay{position:absolute;left:0;top:0;pointer-events:none;background:transparent}
.human .screen canvas.view{cursor:crosshair;outline:none}
.human .screen canvas.view:focus{box-shadow:0 0 0 2px #e6a100}
.env{font-size:.85em;color:#888}
button{font:inherit;padding:.2em .8em}
`;

/** The page's script: slot cards from the event stream, screens from the frame streams, a person's input when a slot is theirs. */
const SCRIPT = String.raw`
const MODE = document.body.dataset.mode;
const token = new URLSearchParams(location.search).get("token");
const auth = token ? { Authorization: "Bearer " + token } : {};
const tq = token ? "?token=" + encodeURIComponent(token) : "";
const live = (window.pincerLive = { frames: [], views: {}, sent: [] });
const cards = new Map();
const $ = (tag, cls, parent) => { const e = document.createElement(tag); if (cls) e.className = cls; if (parent) parent.append(e); return e; };

function post(slot, what, body) {
  const headers = { ...auth, "content-type": "application/json" };
  return fetch("api/slots/" + slot + "/" + what, { method: "POST", headers, body: JSON.stringify(body ?? {}) });
}

function card(slot) {
  let c = cards.get(slot);
  if (c) return c;
  const el = $("section", "slot", document.getElementById("slots"));
  el.dataset.slot = slot;
  const meta = $("div", "meta", el);
  const name = $("b", "", meta); name.textContent = "slot " + slot;
  const mode = $("span", "mode", meta);
  const task = $("span", "task", meta);
  const counts = $("span", "counts", meta);
  const take = $("button", "take", meta);
  if (MODE === "record") take.hidden = true;
  const done = MODE === "record" ? $("button", "done", meta) : null;
  if (done) { done.textContent = "Done: evaluate"; done.onclick = () => post(slot, "done"); }
  const instruction = $("p", "instruction", el);
  const message = $("p", "message", el);
  const screens = $("div", "screens", el);
  c = { el, mode, task, counts, take, instruction, message, screens, envs: new Map(), epoch: -1, view: null };
  take.onclick = () => post(slot, c.view && (c.view.mode === "human" || c.view.mode === "requested") ? "handback" : "takeover");
  cards.set(slot, c);
  return c;
}

function update(v) {
  live.views[v.slot] = v;
  const c = card(v.slot);
  c.view = v;
  c.el.className = "slot " + v.mode;
  c.mode.textContent = v.mode === "requested" ? "taking over…" : v.mode;
  const idle = v.last ? "last: " + v.last.task + " " + v.last.state : "waiting";
  c.task.textContent = v.task ? v.task.id + (v.task.rollout ? " rollout " + v.task.rollout : "") + " attempt " + v.task.attempt : idle;
  c.counts.textContent = "turn " + v.turn + " · steps " + v.steps + (v.humanSteps ? " · human " + v.humanSteps : "");
  const mine = v.mode === "human" || v.mode === "requested";
  c.take.textContent = mine ? "Hand back" : "Take over";
  c.instruction.textContent = v.task ? v.task.instruction : "";
  c.message.textContent = v.lastMessage ? "agent: " + v.lastMessage : "";
  if (v.epoch !== c.epoch) restart(c, v);
  for (const s of c.envs.values()) drawAction(s, v.lastAction);
}

function restart(c, v) {
  c.epoch = v.epoch;
  for (const s of c.envs.values()) { s.stop.abort(); s.el.remove(); }
  c.envs.clear();
  if (!v.task) return;
  for (const env of v.environments) {
    const el = $("div", "screen", c.screens);
    const label = $("div", "env", el); label.textContent = env;
    const vnc = vncOf(v.slot, env);
    if (vnc) label.textContent += " · VNC " + vnc.host + "::" + vnc.port + " (view only, password " + vnc.password + ")";
    const view = $("canvas", "view", el); view.tabIndex = 0;
    const overlay = $("canvas", "overlay", el);
    const s = { env, el, view, overlay, stop: new AbortController(), screen: null, slot: v.slot, epoch: v.epoch };
    c.envs.set(env, s);
    attachInput(s);
    stream(s);
  }
}

async function stream(s) {
  while (!s.stop.signal.aborted) {
    try {
      const res = await fetch("api/slots/" + s.slot + "/screen/" + encodeURIComponent(s.env), { headers: auth, signal: s.stop.signal });
      if (res.ok) await readFrames(s, res.body.getReader());
    } catch (e) { if (s.stop.signal.aborted) return; }
    await new Promise((r) => setTimeout(r, 500));
  }
}

async function readFrames(s, reader) {
  let buf = new Uint8Array(0);
  // Chunks are gathered and joined once per read that needs them (not copied at every chunk).
  const need = async (n) => {
    if (buf.length >= n) return true;
    const parts = [buf];
    let length = buf.length;
    while (length < n) {
      const { value, done } = await reader.read();
      if (done) return false;
      parts.push(value);
      length += value.length;
    }
    buf = new Uint8Array(length);
    let at = 0;
    for (const p of parts) { buf.set(p, at); at += p.length; }
    return true;
  };
  const take = (n) => { const out = buf.slice(0, n); buf = buf.subarray(n); return out; };
  const u32 = (b) => new DataView(b.buffer, b.byteOffset, 4).getUint32(0);
  for (;;) {
    if (!(await need(4))) return;
    const hl = u32(take(4));
    if (!(await need(hl + 4))) return;
    const head = JSON.parse(new TextDecoder().decode(take(hl)));
    const dl = u32(take(4));
    if (!(await need(dl))) return;
    const bitmap = await createImageBitmap(new Blob([take(dl)], { type: "image/jpeg" }));
    if (s.view.width !== bitmap.width || s.view.height !== bitmap.height) {
      s.view.width = s.overlay.width = bitmap.width; s.view.height = s.overlay.height = bitmap.height;
    }
    s.view.getContext("2d").drawImage(bitmap, 0, 0);
    bitmap.close();
    s.screen = head.screen;
    const drawn = { slot: s.slot, env: s.env, seq: head.seq, capturedAtMs: head.capturedAtMs, sentAt: head.sentAt, drawnAt: Date.now() };
    live.frames.push({ ...drawn, screen: head.screen });
    if (live.frames.length > 500) live.frames.splice(0, live.frames.length - 500);
    drawAction(s, live.views[s.slot] && live.views[s.slot].lastAction);
  }
}

/** The last action drawn over the screen: a ring where a pointer action went, a line for a drag, the keys or text typed. */
function drawAction(s, a) {
  const g = s.overlay.getContext("2d");
  g.clearRect(0, 0, s.overlay.width, s.overlay.height);
  if (!a || !s.screen || !a.tool.startsWith(s.env + "__")) return;
  const k = s.overlay.width / s.screen.width;
  const p = a.args;
  g.strokeStyle = g.fillStyle = a.by === "human" ? "#e6a100" : "#ff3b30";
  g.lineWidth = 3;
  g.font = "bold 16px system-ui";
  const label = a.tool.split("__")[1] + (p.text ? ": " + String(p.text).slice(0, 40) : p.keys ? ": " + p.keys : "");
  if (typeof p.start_x === "number") {
    g.beginPath(); g.moveTo(p.start_x * k, p.start_y * k); g.lineTo(p.end_x * k, p.end_y * k); g.stroke();
    g.fillText(label, p.end_x * k + 10, p.end_y * k);
  } else if (typeof p.x === "number" && typeof p.y === "number") {
    g.beginPath(); g.arc(p.x * k, p.y * k, 12, 0, 2 * Math.PI); g.stroke();
    g.fillText(label, p.x * k + 16, p.y * k + 5);
  } else {
    g.fillText(label, 10, 24);
  }
}

const KEYS = { Enter: "Return", Backspace: "BackSpace", Escape: "Escape", Tab: "Tab", Delete: "Delete", Home: "Home", End: "End",
  PageUp: "Page_Up", PageDown: "Page_Down", ArrowUp: "Up", ArrowDown: "Down", ArrowLeft: "Left", ArrowRight: "Right", Insert: "Insert", " ": "space" };

function attachInput(s) {
  let chain = Promise.resolve();
  let text = "";
  let flushTimer = 0;
  let down = null;
  let clickTimer = 0;
  const ours = () => live.views[s.slot] && live.views[s.slot].mode === "human";
  const send = (action, args) => {
    chain = chain.then(async () => {
      const res = await post(s.slot, "input", { env: s.env, action, args });
      live.sent.push({ slot: s.slot, env: s.env, action, args, status: res.status });
    }).catch(() => undefined);
    return chain;
  };
  const flush = () => { clearTimeout(flushTimer); if (text) { const t = text; text = ""; send("type", { text: t }); } };
  const at = (e) => {
    const r = s.view.getBoundingClientRect();
    const w = s.screen ? s.screen.width : s.view.width, h = s.screen ? s.screen.height : s.view.height;
    const clamp = (v, most) => Math.max(0, Math.min(most - 1, Math.round(v)));
    return { x: clamp(((e.clientX - r.left) / r.width) * w, w), y: clamp(((e.clientY - r.top) / r.height) * h, h) };
  };
  s.view.addEventListener("contextmenu", (e) => e.preventDefault());
  s.view.addEventListener("mousedown", (e) => { if (!ours()) return; e.preventDefault(); s.view.focus(); down = { ...at(e), button: e.button }; });
  s.view.addEventListener("mouseup", (e) => {
    if (!ours() || !down) return;
    e.preventDefault();
    const p = at(e), d = down; down = null;
    flush();
    if (d.button === 2) return send("right_click", p);
    if (d.button !== 0) return;
    if (Math.hypot(p.x - d.x, p.y - d.y) > 5) return send("drag", { start_x: d.x, start_y: d.y, end_x: p.x, end_y: p.y });
    if (e.detail >= 2 && clickTimer) { clearTimeout(clickTimer); clickTimer = 0; return send("double_click", p); }
    clickTimer = setTimeout(() => { clickTimer = 0; send("click", p); }, 250);
  });
  s.view.addEventListener("wheel", (e) => {
    if (!ours()) return;
    e.preventDefault();
    flush();
    const dy = Math.sign(e.deltaY) * Math.max(1, Math.round(Math.abs(e.deltaY) / 100));
    if (dy) send("scroll", { dy, ...at(e) });
  }, { passive: false });
  s.view.addEventListener("keydown", (e) => {
    if (!ours()) return;
    e.preventDefault();
    if (["Control", "Shift", "Alt", "Meta", "AltGraph", "CapsLock"].includes(e.key)) return;
    if (e.key.length === 1 && !e.ctrlKey && !e.altKey && !e.metaKey) {
      text += e.key;
      clearTimeout(flushTimer);
      flushTimer = setTimeout(flush, 400);
      return;
    }
    flush();
    const name = KEYS[e.key] || (/^F\d+$/.test(e.key) ? e.key : e.key.length === 1 ? e.key.toLowerCase() : null);
    if (!name) return;
    const chord = [e.ctrlKey && "ctrl", e.altKey && "alt", e.shiftKey && "shift", e.metaKey && "super", name].filter(Boolean).join("+");
    send("key", { keys: chord });
  });
  s.flush = flush;
  s.pending = () => chain;
}

let vncList = [];
const vncOf = (slot, env) => vncList.find((x) => x.slot === slot && x.env === env);
fetch("api/vnc", { headers: auth }).then((r) => r.json()).then((list) => {
  vncList = list;
  for (const c of cards.values()) if (c.view) { c.epoch = -1; update(c.view); }
}).catch(() => undefined);

const events = new EventSource("api/events" + tq);
events.addEventListener("slots", (e) => { for (const v of JSON.parse(e.data)) update(v); document.getElementById("conn").textContent = "live"; });
events.addEventListener("slot", (e) => update(JSON.parse(e.data)));
events.onerror = () => { document.getElementById("conn").textContent = "reconnecting…"; };
`;

/** Escapes text for HTML. */
function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The live page: one card per slot with its machines' screens, the task, turn, last action and message, and the takeover controls. */
export function livePage(opts: { mode: LivePageMode; title: string }): string {
  const help =
    opts.mode === "record"
      ? "Do the task on the screen below: click, type, press keys. Done evaluates it and writes the solution."
      : "Take over a slot to drive its machines; hand it back and the agent goes on from the screen as you left it.";
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(opts.title)}</title><style>${STYLE}</style></head>
<body data-mode="${opts.mode}"><header><h1>${escapeHtml(opts.title)}</h1><span id="conn">connecting…</span><span class="help">${help}</span></header>
<main id="slots"></main><script>${SCRIPT}</script></body></html>`;
}
