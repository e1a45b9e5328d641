import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FailedPreconditionError, NotFoundError, UnavailableError } from "@pincer/shared";
import { afterAll, describe, expect, test } from "vitest";
import type { Env } from "../../../packages/controller/src/env/index.js";
import { OSWORLD_CONFIG_TYPES } from "../../../packages/controller/src/datasets/osworld/allConfigTypes.js";
import type { OsworldContext } from "../../../packages/controller/src/datasets/osworld/context.js";
import { DownloadCache } from "../../../packages/controller/src/datasets/osworld/downloadCache.js";
import { OSWORLD_GETTERS } from "../../../packages/controller/src/datasets/osworld/allGetters.js";

// OSWorld's config types and getters against a recording stand-in for the machine: what each sends,
// and what it makes of the answers (the real daemon runs them in test/e2e/osworldRuntime.test.ts and
// test/images/osworldTasks.test.ts).
const dir = mkdtempSync(join(tmpdir(), "pincer-osworld-steps-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Machine {
  runs: Array<string | string[]>;
  launched: Array<string | string[]>;
  focused: number[];
  closed: number[];
  files: Record<string, string>;
  logs: string[];
}

const windows = [
  { id: 1, title: "SalesRep.xlsx - LibreOffice Calc", instance: "libreoffice", class: "libreoffice-calc" },
  { id: 2, title: "Terminal", instance: "gnome-terminal-server", class: "Gnome-terminal" },
];

function machine(answer: (cmd: string | string[]) => { stdout?: string; stderr?: string; exitCode?: number } | Error = () => ({})) {
  const m: Machine = { runs: [], launched: [], focused: [], closed: [], files: {}, logs: [] };
  const env = {
    screen: { size: async () => ({ width: 1920, height: 1080 }) },
    process: {
      run: async (cmd: string | string[]) => {
        if (Array.isArray(cmd) && cmd[0] === "sh" && cmd[2] === 'printf %s "$HOME"') return { stdout: "/home/user", stderr: "", exitCode: 0 };
        m.runs.push(cmd);
        const a = answer(cmd);
        if (a instanceof Error) throw a;
        return { stdout: a.stdout ?? "", stderr: a.stderr ?? "", exitCode: a.exitCode ?? 0 };
      },
      launch: async (cmd: string | string[]) => {
        m.launched.push(cmd);
        return { pid: 1, window: null };
      },
    },
    windows: {
      list: async () => windows,
      focus: async (id: number) => void m.focused.push(id),
      close: async (id: number) => void m.closed.push(id),
    },
    files: {
      exists: async (p: string) => p in m.files,
      download: async (p: string, local: string) => {
        if (!(p in m.files)) throw new NotFoundError(`no such file: ${p}`);
        writeFileSync(local, m.files[p]!);
        return {};
      },
      upload: async (local: string, p: string) => {
        m.files[p] = readFileSync(local, "utf8");
        return {};
      },
    },
  } as unknown as Env;
  const ctx: OsworldContext = {
    env,
    signal: new AbortController().signal,
    cacheDir: mkdtempSync(join(dir, "cache-")),
    downloads: new DownloadCache(join(dir, "downloads"), async () => new Response("gold\n")),
    password: "password",
    log: (l) => m.logs.push(l),
  };
  return { m, ctx };
}

const step = (type: string, parameters: Record<string, unknown>, ctx: OsworldContext) => {
  const t = OSWORLD_CONFIG_TYPES.get(type)!;
  return t.run(t.parameters.parse(parameters), ctx);
};
const get = (type: string, config: Record<string, unknown>, ctx: OsworldContext) => {
  const g = OSWORLD_GETTERS.get(type)!;
  return g.get(g.config.parse(config), ctx);
};

describe("config types", () => {
  test("execute: placeholders filled, a string split like shlex, ~/ expanded, output kept in the cache folder; a failure is only logged", async () => {
    const { m, ctx } = machine((cmd) => (cmd[0] === "false" ? { exitCode: 1, stderr: "nope" } : { stdout: "out", stderr: "err" }));
    await step("execute", { command: "echo {CLIENT_PASSWORD} {SCREEN_WIDTH_HALF}x{SCREEN_HEIGHT} '~/a b' ~/c", stdout: "o.txt", stderr: "e.txt" }, ctx);
    // As OSWorld: split first, then every argument that starts with ~/ is expanded, quoted or not.
    expect(m.runs[0]).toEqual(["echo", "password", "960x1080", "/home/user/a b", "/home/user/c"]);
    expect(readFileSync(join(ctx.cacheDir, "o.txt"), "utf8")).toBe("out");
    expect(readFileSync(join(ctx.cacheDir, "e.txt"), "utf8")).toBe("err");
    await step("command", { command: "echo {CLIENT_PASSWORD} | sudo -S true", shell: true }, ctx);
    expect(m.runs[1]).toBe("echo password | sudo -S true");
    await step("execute", { command: ["false"] }, ctx);
    expect(m.logs).toEqual(['execute ["false"]: exit 1: nope']);
  });

  test("execute with until runs again until the output says so; a shell flag written as a string counts, as in Python", async () => {
    let n = 0;
    const { m, ctx } = machine(() => ({ stdout: ++n >= 3 ? "ready" : "" }));
    await step("execute", { command: "check", shell: "true", until: { stdout: "ready" } }, ctx);
    expect(m.runs).toEqual(["check", "check", "check"]);
  });

  test("activate_window and close_window pick windows as wmctrl -a does: a substring of any case, the whole title (strict), the class (by_class)", async () => {
    const { m, ctx } = machine();
    await step("activate_window", { window_name: "libreoffice calc" }, ctx);
    await step("activate_window", { window_name: "SalesRep.xlsx", strict: true }, ctx);
    await step("activate_window", { window_name: "gnome-terminal", by_class: true }, ctx);
    await step("close_window", { window_name: "Terminal", strict: true }, ctx);
    expect(m.focused).toEqual([1, 2]);
    expect(m.closed).toEqual([2]);
    expect(m.logs).toEqual(['activate_window: no window "SalesRep.xlsx"']);
  });

  test("launch runs Debian's chromium for google-chrome when Chrome is absent; open refuses a file or program that is not there", async () => {
    const { m, ctx } = machine((cmd) => (Array.isArray(cmd) && cmd[2] === "command -v google-chrome" ? { exitCode: 1 } : { exitCode: 1 }));
    await step("launch", { command: ["google-chrome", "--remote-debugging-port=1337"] }, ctx);
    await step("launch", { command: "VLC_VERBOSE=-1 vlc --no-audio", shell: true }, ctx);
    expect(m.launched).toEqual([["chromium", "--remote-debugging-port=1337"], "VLC_VERBOSE=-1 vlc --no-audio"]);
    await expect(step("open", { path: "~/Desktop/missing.docx" }, ctx)).rejects.toThrow("open: application/file not found: ~/Desktop/missing.docx");
  });

  test("download puts the cached file on the machine at its path", async () => {
    const { m, ctx } = machine();
    await step("download", { files: [{ url: "https://example.org/gold.txt", path: "~/Desktop/in.txt" }] }, ctx);
    expect(m.files).toEqual({ "/home/user/Desktop/in.txt": "gold\n" });
  });
});

describe("getters", () => {
  test("vm_file copies a file into the cache folder as dest; a missing one is null; multi and gives pick what the metric gets", async () => {
    const { m, ctx } = machine();
    m.files["/home/user/a.txt"] = "A";
    m.files["/home/user/b.txt"] = "B";
    expect(await get("vm_file", { path: "~/a.txt", dest: "a.txt" }, ctx)).toBe(join(ctx.cacheDir, "a.txt"));
    expect(await get("vm_file", { path: "/nowhere.txt", dest: "n.txt" }, ctx)).toBeNull();
    const both = await get("vm_file", { path: ["/home/user/a.txt", "/home/user/b.txt"], dest: ["x.txt", "y.txt"], multi: true, gives: [0, 1] }, ctx);
    expect(both).toEqual([join(ctx.cacheDir, "x.txt"), join(ctx.cacheDir, "y.txt")]);
    expect(readFileSync(join(ctx.cacheDir, "y.txt"), "utf8")).toBe("B");
    const stamped = (await get("vm_file", { path: "/home/user/a.txt", dest: "a.txt", time_suffix: true, time_format: "%Y" }, ctx)) as string;
    expect(stamped).toBe(join(ctx.cacheDir, `a_${new Date().getFullYear()}.txt`));
  });

  test("cloud_file comes through the download cache; cache_file must be in the cache folder; rule returns its rules", async () => {
    const { ctx } = machine();
    const gold = (await get("cloud_file", { path: "https://example.org/g.txt", dest: "g.txt" }, ctx)) as string;
    expect(readFileSync(gold, "utf8")).toBe("gold\n");
    expect(await get("cache_file", { path: "g.txt" }, ctx)).toBe(gold);
    await expect(get("cache_file", { path: "absent.txt" }, ctx)).rejects.toThrow(/absent.txt is not in the cache folder/);
    expect(await get("rule", { rules: { expected: ["a"] } }, ctx)).toEqual({ expected: ["a"] });
    expect(existsSync(join(ctx.cacheDir, "g.txt"))).toBe(true);
  });

  test("vm_command_line returns stdout (vm_command_error stderr); a command that cannot run gives null", async () => {
    const { m, ctx } = machine((cmd) => {
      if (Array.isArray(cmd) && cmd[0] === "missing") throw new NotFoundError('program "missing" not found');
      return { stdout: "Directory exists.\n", stderr: "warn" };
    });
    expect(await get("vm_command_line", { command: "[ -d ~/x ] && echo yes", shell: true }, ctx)).toBe("Directory exists.\n");
    expect(m.runs[0]).toBe("[ -d ~/x ] && echo yes");
    expect(await get("vm_command_error", { command: ["ls", "~/x"] }, ctx)).toBe("warn");
    expect(m.runs[1]).toEqual(["ls", "/home/user/x"]);
    expect(await get("vm_command_line", { command: "missing arg" }, ctx)).toBeNull();
  });
});

describe("chrome_open_tabs: who is at fault", () => {
  test("a machine that fails mid-way is that machine's failure, at once: no retries, and no blame on the task", async () => {
    const dropped = new UnavailableError("Process/Run: pincer-daemon at 127.0.0.1:1 is unreachable (Connection dropped)");
    const { m, ctx } = machine(() => dropped);
    const t0 = Date.now();
    await expect(step("chrome_open_tabs", { urls_to_open: ["file:///tmp/a.html"] }, ctx)).rejects.toBe(dropped);
    expect(m.runs).toHaveLength(1);
    expect(Date.now() - t0).toBeLessThan(1_000);
  });

  test("a machine without curl is told to install it", async () => {
    const { ctx } = machine(() => new NotFoundError('argv[0]: program "curl" not found (is it installed and on PATH?)'));
    const err = await step("chrome_open_tabs", { urls_to_open: ["file:///tmp/a.html"] }, ctx).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(FailedPreconditionError);
    expect((err as Error).message).toMatch(/install curl there/);
  });
});
