import { spawn, type ChildProcess } from "node:child_process";
import { createReadStream, createWriteStream, existsSync, statSync } from "node:fs";
import { request } from "node:http";
import { dirname, join } from "node:path";
import { pipeline } from "node:stream/promises";
import { fileURLToPath } from "node:url";
import { freePort } from "./sshPeer.js";

/** Debian's python3 (with python3-flask), not whatever python3 comes first on PATH. */
const PYTHON = "/usr/bin/python3";

/** The stand-in for OSWorld's in-VM Flask server (flaskPeer.py), driven the way OSWorld's client drives it. */
export interface FlaskPeer {
  port: number;
  pid: number;
  /** GET /platform: the server's smallest call. */
  platform(): Promise<void>;
  /** POST /execute {command: argv}: subprocess.run, output as JSON. */
  execute(argv: string[]): Promise<{ returncode: number }>;
  /** POST /file: send_file, written to `to`. */
  download(path: string, to: string): Promise<void>;
  /** POST /setup/upload: a multipart form with the file, saved at `path`. */
  upload(from: string, path: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * One HTTP/1.x request on a fresh connection, as OSWorld's client makes them (`requests.post`
 * without a session; Werkzeug's server closes each connection after its response anyway).
 * `body` is written, or piped when it is a function; the response goes to `sink` or is collected.
 */
function call(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string | number>,
  body: Buffer | ((req: NodeJS.WritableStream) => Promise<void>),
  sink?: string,
): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, method, path, headers, agent: false }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        return reject(new Error(`${method} ${path}: HTTP ${res.statusCode}`));
      }
      if (sink) return void pipeline(res, createWriteStream(sink)).then(() => resolve(Buffer.alloc(0)), reject);
      const parts: Buffer[] = [];
      res.on("data", (d: Buffer) => parts.push(d)).once("end", () => resolve(Buffer.concat(parts)));
      res.once("error", reject);
    });
    req.once("error", reject);
    if (Buffer.isBuffer(body)) req.end(body);
    else body(req).then(() => req.end(), reject);
  });
}

/**
 * Starts flaskPeer.py on a free port; undefined (and says why) when python3-flask is not installed.
 * `display`: the X display its /screenshot grabs (default: this process's DISPLAY).
 */
export async function startFlaskPeer(opts: { display?: string } = {}): Promise<FlaskPeer | undefined> {
  if (!existsSync(PYTHON)) {
    console.log(`Flask comparison skipped: ${PYTHON} is not installed (bash scripts/install-system-deps.sh bench)`);
    return undefined;
  }
  const port = await freePort();
  const child: ChildProcess = spawn(PYTHON, [join(dirname(fileURLToPath(import.meta.url)), "flaskPeer.py"), String(port)], {
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, ...(opts.display ? { DISPLAY: opts.display } : {}) },
  });
  let stderr = "";
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  const peer: FlaskPeer = {
    ...flaskClient(port, child.pid!),
    close: async () => {
      child.kill();
      if (child.exitCode === null) await new Promise((r) => child.once("exit", r));
    },
  };
  const until = Date.now() + 20_000;
  for (;;) {
    try {
      await peer.platform();
      return peer;
    } catch (err) {
      if (child.exitCode !== null || Date.now() > until) {
        await peer.close();
        const hint = /No module named 'flask'/.test(stderr) ? " (Flask is not installed: bash scripts/install-system-deps.sh bench)" : "";
        throw new Error(`flaskPeer.py did not start${hint}: ${(err as Error).message}\n${stderr}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** A client of a flaskPeer.py already listening on `port` (its `close` does nothing). */
export function flaskClient(port: number, pid: number): FlaskPeer {
  const form = (fields: Record<string, string>) => Buffer.from(new URLSearchParams(fields).toString());
  return {
    port,
    pid,
    platform: async () => void (await call(port, "GET", "/platform", {}, Buffer.alloc(0))),
    execute: async (argv) => {
      const body = Buffer.from(JSON.stringify({ command: argv, shell: false }));
      return JSON.parse((await call(port, "POST", "/execute", { "content-type": "application/json", "content-length": body.length }, body)).toString());
    },
    download: async (path, to) => {
      const body = form({ file_path: path });
      await call(port, "POST", "/file", { "content-type": "application/x-www-form-urlencoded", "content-length": body.length }, body, to);
    },
    upload: async (from, path) => {
      const boundary = "pincerbenchboundary7d1f";
      const head = Buffer.from(
        `--${boundary}\r\ncontent-disposition: form-data; name="file_path"\r\n\r\n${path}\r\n` +
          `--${boundary}\r\ncontent-disposition: form-data; name="file_data"; filename="data.bin"\r\ncontent-type: application/octet-stream\r\n\r\n`,
      );
      const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
      const headers = { "content-type": `multipart/form-data; boundary=${boundary}`, "content-length": head.length + statSync(from).size + tail.length };
      await call(port, "POST", "/setup/upload", headers, async (req) => {
        req.write(head);
        await pipeline(createReadStream(from, { highWaterMark: 1 << 20 }), req, { end: false });
        req.write(tail);
      });
    },
    close: async () => undefined,
  };
}
