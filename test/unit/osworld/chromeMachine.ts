import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import { NotFoundError } from "@pincer/shared";
import type { AccessibleNode } from "../../../packages/controller/src/env/accessibility.js";
import type { Env } from "../../../packages/controller/src/env/index.js";
import type { OsworldContext } from "../../../packages/controller/src/datasets/osworld/context.js";
import { DownloadCache } from "../../../packages/controller/src/datasets/osworld/downloadCache.js";
import { OSWORLD_GETTERS } from "../../../packages/controller/src/datasets/osworld/allGetters.js";
import { OSWORLD_CONFIG_TYPES } from "../../../packages/controller/src/datasets/osworld/allConfigTypes.js";

/**
 * A recording stand-in for the machine the getters of OSWorld's apps read: files (bytes, with
 * modification times), commands answered by the test, an accessibility tree and windows. What
 * cannot be faked (Chrome's DevTools) runs against a real Chromium in test/integration.
 */
export interface FakeMachine {
  files: Map<string, { data: Buffer; modifiedMs: number }>;
  runs: Array<string | string[]>;
  launched: Array<string | string[]>;
  keys: string[];
  logs: string[];
  tree: AccessibleNode[];
  ctx: OsworldContext;
}

const dir = mkdtempSync(join(tmpdir(), "pincer-osworld-apps-"));
// Registered in the test file that imports this module: its folder goes when that file's tests end.
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A machine whose user is /home/user; `answer` answers each command run (not the home lookup). */
export function fakeMachine(
  answer: (cmd: string | string[]) => { stdout?: string; stderr?: string; exitCode?: number } = () => ({}),
  downloads: Record<string, Buffer> = {},
): FakeMachine {
  const m: FakeMachine = { files: new Map(), runs: [], launched: [], keys: [], logs: [], tree: [], ctx: undefined as unknown as OsworldContext };
  const file = (p: string) => {
    const f = m.files.get(p);
    if (!f) throw new NotFoundError(`no such file: ${p}`);
    return f;
  };
  const entries = (p: string, recursive: boolean) => {
    const prefix = `${p.replace(/\/+$/, "")}/`;
    const out = new Map<string, { path: string; name: string; type: string; modifiedMs: number }>();
    for (const [path, f] of m.files) {
      if (!path.startsWith(prefix)) continue;
      const parts = path.slice(prefix.length).split("/");
      for (let i = 0; i < (recursive ? parts.length : 1); i++) {
        const at = prefix + parts.slice(0, i + 1).join("/");
        out.set(at, { path: at, name: parts[i]!, type: i === parts.length - 1 ? "file" : "directory", modifiedMs: f.modifiedMs });
      }
    }
    return [...out.values()].sort((a, b) => a.path.split("/").length - b.path.split("/").length || a.name.localeCompare(b.name));
  };
  const env = {
    screen: { size: async () => ({ width: 1920, height: 1080 }) },
    process: {
      run: async (cmd: string | string[]) => {
        if (Array.isArray(cmd) && cmd[0] === "sh" && cmd[2] === 'printf %s "$HOME"') return { stdout: "/home/user", stderr: "", exitCode: 0 };
        m.runs.push(cmd);
        const a = answer(cmd);
        return { stdout: a.stdout ?? "", stderr: a.stderr ?? "", exitCode: a.exitCode ?? 0 };
      },
      launch: async (cmd: string | string[]) => {
        m.launched.push(cmd);
        return { pid: 1, window: null };
      },
    },
    keyboard: {
      press: async (keys: string | string[]) => void m.keys.push([keys].flat().join("+")),
      type: async (text: string) => void m.keys.push(`type:${text}`),
    },
    windows: {
      list: async () => [
        {
          id: 1,
          title: "a.py - Visual Studio Code",
          instance: "code",
          class: "Code",
          pid: 1,
          geometry: { x: 0, y: 0, width: 1200, height: 800 },
          visible: true,
          focused: false,
        },
        {
          id: 2,
          title: "VLC media player",
          instance: "vlc",
          class: "vlc",
          pid: 2,
          geometry: { x: 0, y: 0, width: 640, height: 360 },
          visible: true,
          focused: true,
        },
      ],
      focus: async () => ({}),
    },
    accessibility: { tree: async () => ({ applications: m.tree, truncated: false, nodeCount: 1 }) },
    files: {
      exists: async (p: string) => m.files.has(p),
      stat: async (p: string) => {
        if (m.files.has(p)) return { path: p, type: "file", modifiedMs: file(p).modifiedMs };
        if (entries(p, false).length) return { path: p, type: "directory", modifiedMs: 0 };
        throw new NotFoundError(`no such file: ${p}`);
      },
      list: async (p: string, o: { recursive?: boolean } = {}) => {
        const found = entries(p, o.recursive ?? false);
        if (!found.length) throw new NotFoundError(`no such directory: ${p}`);
        return { entries: found, truncated: false };
      },
      read: async (p: string) => file(p).data.toString("utf8"),
      download: async (p: string, local: string) => {
        writeFileSync(local, file(p).data);
        return {};
      },
      upload: async (src: string | Uint8Array, p: string) => {
        m.files.set(p, { data: typeof src === "string" ? readFileSync(src) : Buffer.from(src), modifiedMs: Date.now() });
        return {};
      },
      remove: async (p: string) => ({ removed: m.files.delete(p) }),
    },
  } as unknown as Env;
  m.ctx = {
    env,
    signal: new AbortController().signal,
    cacheDir: mkdtempSync(join(dir, "cache-")),
    downloads: new DownloadCache(mkdtempSync(join(dir, "downloads-")), async (url) => {
      const body = downloads[String(url)];
      return body ? new Response(body) : new Response("not found", { status: 404 });
    }),
    password: "password",
    log: (l) => m.logs.push(l),
  };
  return m;
}

/** Puts a file on the machine. */
export function put(m: FakeMachine, path: string, data: string | Buffer | object, modifiedMs = 0): void {
  const bytes = Buffer.isBuffer(data) ? data : Buffer.from(typeof data === "string" ? data : JSON.stringify(data));
  m.files.set(path, { data: bytes, modifiedMs });
}

/** Runs a getter on the machine. */
export function get(m: FakeMachine, type: string, config: Record<string, unknown> = {}): Promise<unknown> {
  const g = OSWORLD_GETTERS.get(type)!;
  return g.get(g.config.parse(config), m.ctx);
}

/** Runs a config step on the machine. */
export function step(m: FakeMachine, type: string, parameters: Record<string, unknown>): Promise<void> {
  const t = OSWORLD_CONFIG_TYPES.get(type)!;
  return t.run(t.parameters.parse(parameters), m.ctx);
}

/** Answers `command -v google-chrome`: whether the machine has Chrome (else Chromium stands in). */
export const hasChrome =
  (yes: boolean, other: (cmd: string | string[]) => { stdout?: string; stderr?: string; exitCode?: number } = () => ({})) =>
  (cmd: string | string[]) =>
    Array.isArray(cmd) && cmd[2] === "command -v google-chrome" ? { exitCode: yes ? 0 : 1 } : other(cmd);
