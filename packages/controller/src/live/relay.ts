import { type IncomingMessage, request, type ServerResponse } from "node:http";
import { type LiveServer, send, serveGuarded } from "./server.js";

/** A worker's live page as the relay reaches it. */
export interface RelayedWorker {
  worker: string;
  url: string;
  token: string;
}

/** Options of {@link startRelayServer}. */
export interface RelayServerOptions {
  /** host:port to listen on. @default "127.0.0.1:0" */
  listen?: string;
  /** The token of this page (beyond loopback; one is made when none is given). */
  token?: string;
  title?: string;
  /** The workers with a live page now (asked at most every two seconds). */
  workers(): Promise<RelayedWorker[]>;
}

/** How long the list of workers is kept before it is asked again. */
const WORKERS_TTL_MS = 2_000;

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The relay's page: each worker's own live page in a frame, served through the relay. */
function relayPage(title: string): string {
  const script = `
const token = new URLSearchParams(location.search).get("token");
const tq = token ? "?token=" + encodeURIComponent(token) : "";
const frames = new Map();
async function refresh() {
  try {
    const res = await fetch("api/workers" + tq);
    const list = await res.json();
    document.getElementById("none").hidden = list.length > 0;
    for (const w of list) {
      if (frames.has(w.worker)) continue;
      const box = document.createElement("section");
      box.className = "worker";
      box.dataset.worker = w.worker;
      const h = document.createElement("h2");
      h.textContent = "worker " + w.worker;
      const f = document.createElement("iframe");
      f.src = "w/" + encodeURIComponent(w.worker) + "/" + tq;
      box.append(h, f);
      document.getElementById("workers").append(box);
      frames.set(w.worker, box);
    }
    for (const [name, box] of frames) if (!list.some((w) => w.worker === name)) { box.remove(); frames.delete(name); }
  } catch {}
}
refresh();
setInterval(refresh, 3000);
`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title><style>
body{font:14px system-ui,sans-serif;margin:0;background:#111;color:#ddd}h1{font-size:1.1em;margin:0;padding:.5em 1em;background:#222}
h2{font-size:1em;margin:.5em 1em}iframe{width:calc(100vw - 2em);height:80vh;margin:0 1em;border:1px solid #333}
</style></head><body><h1>${escapeHtml(title)}</h1><p id="none" style="margin:1em">No worker has a live page yet (start workers with --live).</p>
<main id="workers"></main><script>${script}</script></body></html>`;
}

/** Forwards a request to a worker's page with the worker's token in place of this page's. */
function forward(target: RelayedWorker, path: string, url: URL, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const query = new URLSearchParams(url.search);
  query.delete("token");
  const to = new URL(`${path}${query.size ? `?${query}` : ""}`, target.url);
  return new Promise((resolve) => {
    const headers: Record<string, string> = { authorization: `Bearer ${target.token}`, host: to.host };
    if (req.headers["content-type"]) headers["content-type"] = req.headers["content-type"];
    const out = request(to, { method: req.method, headers }, (up) => {
      const kept: Record<string, string> = {};
      for (const h of ["content-type", "cache-control", "content-security-policy", "x-content-type-options"]) {
        const v = up.headers[h];
        if (typeof v === "string") kept[h] = v;
      }
      res.writeHead(up.statusCode ?? 502, kept);
      res.flushHeaders();
      up.pipe(res);
      up.once("end", () => resolve());
      up.once("error", () => resolve());
    });
    out.once("error", (err) => {
      if (!res.headersSent) send(res, 502, { error: `worker ${target.worker}'s live page does not answer: ${err.message}` });
      else res.end();
      resolve();
    });
    res.once("close", () => {
      out.destroy();
      resolve();
    });
    req.pipe(out);
  });
}

/**
 * The coordinator's live page of a run spread over workers (`pincer run --queue … --live`): each
 * worker's own live page, its slots, screens and takeover, relayed through this server (the
 * workers' pages need not be reachable from the browser, only from here). Guarded as a live page is.
 */
export function startRelayServer(opts: RelayServerOptions): Promise<LiveServer> {
  let cached: { at: number; list: Promise<RelayedWorker[]> } | undefined;
  const workers = () => {
    if (!cached || Date.now() - cached.at > WORKERS_TTL_MS) {
      cached = { at: Date.now(), list: opts.workers() };
      cached.list.catch(() => (cached = undefined));
    }
    return cached.list;
  };
  const html = relayPage(opts.title ?? "Pincer live: workers");
  return serveGuarded(opts.listen ?? "127.0.0.1:0", opts.token, async (req, res, url) => {
    const parts = url.pathname.split("/").filter(Boolean);
    if (req.method === "GET" && parts.length === 0) {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
      return void res.end(html);
    }
    if (req.method === "GET" && parts[0] === "api" && parts[1] === "workers") {
      return send(
        res,
        200,
        (await workers()).map((w) => ({ worker: w.worker })),
      );
    }
    if (parts[0] === "w" && parts[1]) {
      const name = decodeURIComponent(parts[1]);
      const target = (await workers()).find((w) => w.worker === name);
      if (!target) return send(res, 404, { error: `no worker ${JSON.stringify(name)} has a live page now` });
      // The page under /w/<name>/ asks relative paths: what follows the worker's name is its own path.
      const cut = url.pathname.indexOf("/", 3);
      const rest = cut < 0 ? "" : url.pathname.slice(cut + 1);
      return forward(target, `/${rest}`, url, req, res);
    }
    return send(res, 404, { error: `no such page: ${url.pathname}` });
  });
}
