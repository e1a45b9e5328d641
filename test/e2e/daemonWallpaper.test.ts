import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import sharp from "sharp";
import { afterAll, describe, expect, test } from "vitest";
import { connect, type RemoteEnv } from "@pincer/controller";
import { startLocalMachine } from "@pincer/controller/machines";

const ROOT = resolve(import.meta.dirname, "../..");
const MAIN = resolve(ROOT, "packages/daemon/src/main.ts");
const dir = mkdtempSync(join(tmpdir(), "pincer-wallpaper-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Pincer's wallpaper: the gradient's top-left colour and the bar's (#1d3a5f, #15202b). */
const GRADIENT_TOP_LEFT = [0x1d, 0x3a, 0x5f];
const BAR = [0x15, 0x20, 0x2b];

/** Starts the daemon CLI; resolves once it prints its address, or with how it ended. */
function startDaemon(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, ["--conditions=@pincer/source", "--import", "tsx", MAIN, "--port", "0", "--quiet", ...args], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
  let stdout = "";
  let stderr = "";
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((res) => child.once("exit", (code) => res(code)));
  const started = new Promise<{ env: RemoteEnv } | { code: number | null; stdout: string; stderr: string }>((res) => {
    child.stdout!.on("data", (d: Buffer) => {
      stdout += d.toString();
      const m = /listening on (\S+)/.exec(stdout);
      if (m) res({ env: connect(m[1]!) });
    });
    void exited.then((code) => res({ code, stdout, stderr }));
  });
  return {
    started,
    async stop() {
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** A pixel of the daemon's screen, read by ImageMagick's `import` over X: a witness that is not the daemon. */
function witnessPixel(display: string, x: number, y: number): number[] {
  const rgb = execFileSync("import", ["-display", display, "-window", "root", "-crop", `1x1+${x}+${y}`, "-depth", "8", "rgb:-"]);
  return [...rgb.subarray(0, 3)];
}

/** A pixel of a raw (packed RGB) screenshot. */
async function screenPixel(env: RemoteEnv, x: number, y: number): Promise<number[]> {
  const shot = await env.screen.screenshot({ format: "raw", region: { x, y, width: 1, height: 1 } });
  return [...shot.data.subarray(0, 3)];
}

describe("the daemon's wallpaper (--wallpaper)", () => {
  test("Pincer's own: the gradient and the bar from the first call on, seen by an X client too; no window is added", async () => {
    // PINCER_WALLPAPER=1: Pincer's own (the flag without a value is what local machines give).
    const d = startDaemon(["--xvfb", "640x480x24"], { PINCER_WALLPAPER: "1" });
    try {
      const s = await d.started;
      if (!("env" in s)) throw new Error(`the daemon did not start: ${s.stderr}`);
      // The first call: nothing waited for the drawing.
      expect(await screenPixel(s.env, 0, 0)).toEqual(GRADIENT_TOP_LEFT);
      expect(await screenPixel(s.env, 320, 478)).toEqual(BAR);
      const { display } = await s.env.system.info();
      expect(witnessPixel(display, 0, 0)).toEqual(GRADIENT_TOP_LEFT);
      expect(witnessPixel(display, 320, 478)).toEqual(BAR);
      expect(await s.env.windows.list()).toEqual([]);
      s.env.close();
    } finally {
      await d.stop();
    }
  });

  test("an image file covers the screen; without --wallpaper the screen stays black", async () => {
    const image = join(dir, "red.png");
    writeFileSync(
      image,
      await sharp({ create: { width: 32, height: 16, channels: 3, background: { r: 200, g: 30, b: 60 } } })
        .png()
        .toBuffer(),
    );
    const withImage = startDaemon(["--xvfb", "320x240x24"], { PINCER_WALLPAPER: image });
    const bare = startDaemon(["--xvfb", "320x240x24"]);
    // A config file's path is relative to the file; an empty PINCER_WALLPAPER is no setting.
    const config = join(dir, "daemon.json");
    writeFileSync(config, JSON.stringify({ wallpaper: "red.png" }));
    const configured = startDaemon(["--xvfb", "320x240x24", "--config", config], { PINCER_WALLPAPER: "" });
    try {
      const a = await withImage.started;
      const b = await bare.started;
      const c = await configured.started;
      if (!("env" in a) || !("env" in b) || !("env" in c)) throw new Error("a daemon did not start");
      for (const [x, y] of [
        [0, 0],
        [319, 239],
        [160, 120],
      ] as const) {
        expect(await screenPixel(a.env, x, y)).toEqual([200, 30, 60]);
        expect(await screenPixel(c.env, x, y)).toEqual([200, 30, 60]);
        expect(await screenPixel(b.env, x, y)).toEqual([0, 0, 0]);
      }
      for (const e of [a, b, c]) e.env.close();
    } finally {
      await Promise.all([withImage.stop(), bare.stop(), configured.stop()]);
    }
  });

  test("a file that cannot be read, or no --xvfb, stops the start with what to do, and no address is printed", async () => {
    const missing = await startDaemon(["--xvfb", "320x240x24", "--wallpaper", join(dir, "missing.png")]).started;
    expect(missing).toMatchObject({ code: 1, stdout: "" });
    expect((missing as { stderr: string }).stderr).toContain(`--wallpaper ${join(dir, "missing.png")}: cannot read it (ENOENT); give an image file`);
    const notImage = join(dir, "notes.txt");
    writeFileSync(notImage, "not an image");
    const bad = await startDaemon(["--xvfb", "320x240x24", `--wallpaper=${notImage}`]).started;
    expect(bad).toMatchObject({ code: 1, stdout: "" });
    expect((bad as { stderr: string }).stderr).toContain(`--wallpaper ${notImage}: not an image sharp can read`);
    const noXvfb = await startDaemon(["--display", ":0", "--wallpaper"]).started;
    expect(noXvfb).toMatchObject({ code: 1, stdout: "" });
    expect((noXvfb as { stderr: string }).stderr).toContain("--wallpaper needs --xvfb");
  });

  test("local machines show Pincer's wallpaper by default, and a bare screen with wallpaper: false", async () => {
    const shown = await startLocalMachine({ width: 640, height: 400 });
    const bare = await startLocalMachine({ width: 640, height: 400, wallpaper: false });
    try {
      expect(await screenPixel(shown.env, 0, 0)).toEqual(GRADIENT_TOP_LEFT);
      expect(await screenPixel(shown.env, 320, 398)).toEqual(BAR);
      expect(await screenPixel(bare.env, 0, 0)).toEqual([0, 0, 0]);
    } finally {
      await shown.close();
      await bare.close();
    }
  });
});
