import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { connect } from "@pincer/controller";
import { spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";
import { startXvfb, stopProcess, type XServer } from "../fixtures/xvfb.js";

const run = promisify(execFile);

let xs: XServer;
let daemon: RunningDaemon;
let dir: string;
let xterm: ChildProcess;
let out: string;

/** Waits until `check` returns a value, polling every 50 ms. */
async function until<T>(check: () => T | undefined, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  xs = await startXvfb({ width: 1024, height: 768 });
  daemon = await spawnDaemon({ display: xs.display });
  await daemon.env.waitUntilReady({ timeoutMs: 20_000 });
  dir = mkdtempSync(join(tmpdir(), "pincer-typing-"));
  out = join(dir, "typed.txt");
  // A real text field: xterm in UTF-8 mode running cat, which writes each finished line to a file.
  xterm = spawn("xterm", ["-u8", "-geometry", "100x20+0+0", "-e", "sh", "-c", `cat > ${out}`], {
    env: { ...process.env, DISPLAY: xs.display, LANG: "C.UTF-8", LC_ALL: "C.UTF-8" },
    stdio: "ignore",
  });
  // xdotool as a second witness that the window is mapped before typing into it.
  await run("xdotool", ["search", "--sync", "--onlyvisible", "--class", "xterm"], { env: { ...process.env, DISPLAY: xs.display }, timeout: 15_000 });
  await until(() => (existsSync(out) ? true : undefined), 10_000, "cat to open its output");
  // No window manager: focus follows the pointer, so put the pointer on the terminal.
  await daemon.env.mouse.move({ x: 200, y: 100 });
});

afterAll(async () => {
  if (xterm) await stopProcess(xterm);
  await daemon?.close();
  await xs?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("typing into a real text field", () => {
  test("ASCII with shifted symbols, and characters outside the keyboard layout", async () => {
    const line = "Hello, World! user@example.com #1 $5 ~/a_b (x) ü € 中文 ñ ß Ω";
    await daemon.env.keyboard.type(`${line}\n`);
    const text = await until(
      () => {
        const t = readFileSync(out, "utf8");
        return t.includes("\n") ? t : undefined;
      },
      10_000,
      "the typed line to reach cat",
    );
    expect(text).toBe(`${line}\n`);
  });

  test("a second line reuses rebound keycodes and keeps order", async () => {
    const before = readFileSync(out, "utf8");
    const line = "€€ 中文中文 ü@ü — naïve café 日本語";
    await daemon.env.keyboard.type(line);
    await daemon.env.keyboard.press("Return");
    const text = await until(
      () => {
        const t = readFileSync(out, "utf8");
        return t.length > before.length && t.endsWith("\n") ? t : undefined;
      },
      10_000,
      "the second line",
    );
    expect(text.slice(before.length)).toBe(`${line}\n`);
  });

  test("more distinct non-layout characters than spare keycodes still arrive in order", async () => {
    const before = readFileSync(out, "utf8");
    // 300 distinct CJK characters: more than the spare keycodes of a standard map.
    const line = Array.from({ length: 300 }, (_, i) => String.fromCodePoint(0x4e00 + i)).join("");
    await daemon.env.keyboard.type(`${line}\n`);
    const text = await until(
      () => {
        const t = readFileSync(out, "utf8");
        return t.length > before.length && t.endsWith("\n") ? t : undefined;
      },
      20_000,
      "the long line",
    );
    expect(text.slice(before.length)).toBe(`${line}\n`);
  });

  test("several clients typing at once: every call succeeds and each call's text arrives whole and exact", async () => {
    const before = readFileSync(out, "utf8");
    // Seeded, so a failure can be replayed: CJK (outside the layout, so spare keycodes are rebound
    // while other calls type) mixed with ASCII and other non-layout characters.
    let seed = 0x5eed;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const pool = [..."abcXYZ019 @#€ñßΩ"];
    const lines = Array.from(
      { length: 12 },
      (_, i) =>
        Array.from({ length: 30 }, () => (random(3) === 0 ? pool[random(pool.length)]! : String.fromCodePoint(0x4e00 + random(2000)))).join("") + ` ${i}`,
    );
    const clients = Array.from({ length: 4 }, () => connect(daemon.address));
    try {
      const results = await Promise.allSettled(lines.map((line, i) => clients[i % clients.length]!.keyboard.type(`${line}\n`)));
      expect(results.filter((r) => r.status === "rejected")).toEqual([]);
    } finally {
      for (const c of clients) c.close();
    }
    const text = await until(
      () => {
        const t = readFileSync(out, "utf8").slice(before.length);
        return t.split("\n").length > lines.length ? t : undefined;
      },
      30_000,
      "all twelve lines",
    );
    // Calls may run in any order, but each one's text must arrive contiguous and exact.
    expect(text.split("\n").slice(0, -1).sort()).toEqual([...lines].sort());
  });
});
