/** The stylesheet of report.html. */
export const VIEWER_STYLE = `
:root { --fg: #1d2430; --muted: #667085; --line: #d9dee7; --bg: #f6f7f9; --card: #fff; --pass: #1a7f37; --fail: #c62828;
  --err: #b26a00; --pend: #8a94a6; --accent: #e5484d; --accent2: #2f6feb; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
header { padding: 12px 20px; background: var(--card); border-bottom: 1px solid var(--line); }
h1 { font-size: 18px; margin: 0 0 4px; }
h2 { font-size: 16px; margin: 0 0 6px; }
h3 { font-size: 12px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); margin: 14px 0 4px; }
main { padding: 12px 20px; }
#run-summary { margin: 0; color: var(--muted); }
#run-config { display: flex; flex-wrap: wrap; gap: 2px 16px; margin: 6px 0 0; font-size: 13px; }
#run-config div { display: flex; gap: 4px; }
#run-config dt { color: var(--muted); }
#run-config dd { margin: 0; font-weight: 600; }
td.reason { white-space: normal; overflow-wrap: anywhere; min-width: 240px; max-width: 520px; color: var(--fail); font-size: 13px; }
tr[data-state="passed"] td.reason { color: var(--muted); }
#groups { display: flex; flex-wrap: wrap; gap: 16px; align-items: flex-start; margin-top: 12px; }
#groups .group { flex: 0 1 auto; max-width: 100%; overflow-x: auto; }
#groups table { width: auto; }
#groups th { cursor: default; }
.files a { margin: 0 2px; }
.controls { display: flex; flex-wrap: wrap; gap: 12px; align-items: center; margin-bottom: 10px; }
.controls label { display: flex; gap: 6px; align-items: center; color: var(--muted); }
select, input, button { font: inherit; padding: 3px 6px; border: 1px solid var(--line); border-radius: 4px; background: var(--card); }
button { cursor: pointer; }
button:disabled { opacity: .4; cursor: default; }
table { border-collapse: collapse; width: 100%; background: var(--card); }
th, td { padding: 5px 8px; border-bottom: 1px solid var(--line); text-align: left; white-space: nowrap; }
th { cursor: pointer; user-select: none; background: #eef1f5; position: sticky; top: 0; }
th[aria-sort="ascending"]::after { content: " ▲"; }
th[aria-sort="descending"]::after { content: " ▼"; }
.num { text-align: right; }
tbody tr { cursor: pointer; }
tbody tr:hover { background: #f0f4ff; }
.state { display: inline-block; padding: 0 6px; border-radius: 8px; font-size: 12px; color: #fff; background: var(--err); }
.state-passed { background: var(--pass); }
.state-failed { background: var(--fail); }
.task-nav { display: flex; gap: 10px; align-items: center; flex-wrap: wrap; margin-bottom: 8px; }
.hint { color: var(--muted); font-size: 12px; }
#task-head { background: var(--card); border: 1px solid var(--line); border-radius: 6px; padding: 10px 12px; margin-bottom: 10px; }
#task-head p { margin: 4px 0; }
.meta { color: var(--muted); }
.task-body { display: flex; gap: 12px; align-items: flex-start; }
#step-list { list-style: none; margin: 0; padding: 0; width: 210px; flex: none; max-height: 80vh; overflow: auto; }
#step-list button { width: 100%; text-align: left; margin-bottom: 2px; border-left: 4px solid var(--pass); }
#step-list button.bad { border-left-color: var(--fail); }
#step-list button.other { border-left-color: var(--pend); }
#step-list button.human { border-left-color: #e6a100; background: #fff6dd; }
.human-note { background: #fff6dd; border-left: 4px solid #e6a100; padding: .3em .6em; }
#step-list button[aria-current="step"] { background: #dbe6ff; font-weight: 600; }
#step-view { flex: 1; min-width: 0; }
.step-title { font-weight: 600; margin-bottom: 6px; }
.shots { display: flex; flex-wrap: wrap; gap: 10px; }
figure.shot { margin: 0; flex: 1 1 480px; max-width: 100%; }
figure.shot figcaption { color: var(--muted); font-size: 12px; }
.frame { position: relative; display: inline-block; max-width: 100%; line-height: 0; border: 1px solid var(--line); background: #000; }
.frame img { display: block; max-width: 100%; max-height: 62vh; width: auto; height: auto; }
img.returned { max-width: 100%; max-height: 40vh; border: 1px solid var(--line); }
.frame svg.overlay { position: absolute; left: 0; top: 0; width: 100%; height: 100%; pointer-events: none; overflow: visible; }
.frame .labels { position: absolute; left: 8px; right: 8px; bottom: 8px; display: flex; flex-direction: column; gap: 4px; align-items: flex-start;
  line-height: 1.3; pointer-events: none; }
.overlay-text { background: rgba(20, 24, 33, .85); color: #fff; padding: 3px 8px; border-radius: 4px; font: 13px/1.3 ui-monospace, monospace;
  white-space: pre-wrap; max-width: 100%; overflow-wrap: anywhere; }
.overlay-text.key { background: rgba(47, 111, 235, .9); }
.marker .ring { fill: none; stroke: var(--accent); stroke-width: 3; }
.marker .dot { fill: var(--accent); }
.marker .hair { stroke: #fff; stroke-width: 1.5; }
.marker text { fill: #fff; stroke: #000; stroke-width: 3px; paint-order: stroke; font: 600 14px system-ui, sans-serif; }
.marker-drag .path, .marker-scroll .path { stroke: var(--accent2); stroke-width: 3; fill: none; }
.marker-drag .dot, .marker-scroll .dot { fill: var(--accent2); }
.no-shot { color: var(--muted); padding: 20px; border: 1px dashed var(--line); }
pre { background: var(--card); border: 1px solid var(--line); border-radius: 4px; padding: 6px 8px; margin: 0; white-space: pre-wrap;
  overflow-wrap: anywhere; max-height: 320px; overflow: auto; font: 12px/1.4 ui-monospace, monospace; }
pre.error { border-color: var(--fail); color: var(--fail); }
.nodes { display: flex; flex-wrap: wrap; gap: 4px; }
.node { padding: 1px 8px; border-radius: 10px; font-size: 12px; color: #fff; background: var(--pend); }
.node-passed { background: var(--pass); }
.node-failed { background: var(--fail); }
.node-error { background: var(--err); }
.details { display: grid; grid-template-columns: repeat(auto-fit, minmax(320px, 1fr)); gap: 0 16px; }
.step-body { display: flex; gap: 14px; align-items: flex-start; }
.step-body > .shots, .step-body > .no-shot { flex: 1 1 0; min-width: 0; }
.step-body > .details { flex: 0 0 380px; min-width: 0; display: block; }
.step-body .details h3 { margin: 8px 0 3px; }
.step-body .details pre { max-height: 200px; }
.eval-reason { margin: 4px 0; padding-left: 6px; border-left: 3px solid var(--line); overflow-wrap: anywhere; }
@media (max-width: 1000px) { .step-body { flex-direction: column; } .step-body > .details { flex: none; width: 100%; display: grid; } }
.empty { color: var(--muted); font-style: italic; }
`;
