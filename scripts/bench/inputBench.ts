import { execFile } from "node:child_process";
import { promisify } from "node:util";
import screenshotDesktop from "screenshot-desktop";
import type { Env } from "../../packages/controller/src/index.js";
import { Desktop } from "../../packages/daemon/src/drivers/desktop.js";
import { capture, grabRgba } from "../../packages/daemon/src/drivers/screen.js";
import { measure, type Row } from "./stats.js";

const run = promisify(execFile);

/**
 * Input and screenshots: the daemon over gRPC against xdotool spawned per action and
 * screenshot-desktop, plus the in-process capture floor. Returns the rows and a summary line.
 */
export async function inputRows(env: Env, display: string, WIDTH: number, HEIGHT: number): Promise<{ rows: Row[]; notes: string[] }> {
  const rows: Row[] = [];
  const xenv = { ...process.env, DISPLAY: display };
  const xdotool = (...args: string[]) => run("xdotool", args, { env: xenv });
  rows.push({ operation: "gRPC round trip (GetScreenSize), the floor", ours: await measure(500, () => env.screen.size()) });

  rows.push({
    operation: "move",
    ours: await measure(500, (i) => env.mouse.move({ x: 100 + (i % 500), y: 200 })),
    peer: { name: "xdotool mousemove (spawn per action)", sample: await measure(60, (i) => xdotool("mousemove", String(100 + i), "300")) },
    goal: "p50 ≤ 1 ms",
  });

  rows.push({
    operation: "click",
    ours: await measure(300, (i) => env.mouse.click({ at: { x: 200 + (i % 300), y: 400 } })),
    peer: { name: "xdotool click (spawn per action)", sample: await measure(60, () => xdotool("click", "1")) },
    goal: "p50 ≤ 1 ms",
  });

  // Type into a terminal on the right half; what it echoes does not matter here.
  await env.mouse.move({ x: WIDTH - 200, y: 300 });
  const text = "The quick brown fox jumps over the lazy dog 0123456789 ".repeat(2).slice(0, 100);
  rows.push({
    operation: "type 100 ASCII characters",
    ours: await measure(30, () => env.keyboard.type(text), 3),
    peer: { name: "xdotool type --delay 0", sample: await measure(15, () => xdotool("type", "--delay", "0", text), 2) },
    goal: "≤ 100 ms",
  });
  await env.keyboard.press("ctrl+c");

  // Screenshots: the in-process floor (grab + encode in this process), the daemon end to end,
  // and screenshot-desktop (ImageMagick import per call), as several peers use.
  const local = new Desktop(display);
  const region = { x: 0, y: 0, width: WIDTH, height: HEIGHT };
  const base = { quality: 80, pngCompressionLevel: 1, region, maxWidth: 0, maxHeight: 0, includeCursor: false };
  const shm = (await local.connection()).shm;
  const grabShm = shm ? await measure(30, () => shm.grab(region), 3) : undefined;
  const { x } = await local.connection();
  const grabOnly = await measure(30, () => grabRgba(x, region), 3);
  // libnut (under nut-js) grabs with XGetImage on its own Xlib connection: the daemon used it until
  // Xlib's I/O error handler was found to exit the process when the X server restarts.
  const nut = await import("@nut-tree-fork/nut-js");
  const nutGrab = await measure(30, () => nut.screen.grabRegion(new nut.Region(0, 0, WIDTH, HEIGHT)), 3);
  const localJpeg = await measure(30, () => capture(local, { ...base, format: "jpeg" }), 3);
  const localPng = await measure(30, () => capture(local, { ...base, format: "png" }), 3);
  let peerShot: Row["peer"];
  try {
    await screenshotDesktop({ format: "png" });
    peerShot = { name: "screenshot-desktop PNG", sample: await measure(10, () => screenshotDesktop({ format: "png" }), 1) };
  } catch (err) {
    console.log(`screenshot-desktop unavailable (${(err as Error).message}); install imagemagick to compare\n`);
  }
  if (grabShm) rows.push({ operation: "in-process grab, X shared memory (the default)", ours: grabShm });
  rows.push({ operation: "in-process grab, GetImage over the X socket", ours: grabOnly, peer: { name: "nut-js (libnut XGetImage)", sample: nutGrab } });
  rows.push({ operation: "in-process grab + JPEG q80", ours: localJpeg });
  rows.push({ operation: "in-process grab + PNG level 1", ours: localPng });
  const jpeg = await measure(30, () => env.screen.screenshot({ format: "jpeg", quality: 80 }), 3);
  const png = await measure(30, () => env.screen.screenshot({ format: "png" }), 3);
  rows.push({ operation: "screenshot JPEG q80 over gRPC", ours: jpeg, peer: peerShot, goal: "p50 ≤ 35 ms, ≥ 5× screenshot-desktop" });
  rows.push({ operation: "screenshot PNG over gRPC", ours: png, peer: peerShot, goal: "p50 ≤ 70 ms, ≥ 5× screenshot-desktop" });
  const scaled = await measure(30, () => env.screen.screenshot({ format: "jpeg", maxWidth: 1280 }), 3);
  rows.push({ operation: "screenshot JPEG q80 downscaled to 1280 wide", ours: scaled, goal: "p50 ≤ the full-size JPEG's" });
  await local.close();

  const sizes = await Promise.all(
    (["jpeg", "png"] as const).map(async (format) => `${format} ${((await env.screen.screenshot({ format })).data.length / 1024).toFixed(0)} KiB`),
  );
  return {
    rows,
    notes: [
      `gRPC overhead on screenshots: JPEG +${(((jpeg.p50 - localJpeg.p50) / localJpeg.p50) * 100).toFixed(0)}%, ` +
        `PNG +${(((png.p50 - localPng.p50) / localPng.p50) * 100).toFixed(0)}% over the in-process p50 (aim: ≤ 20%). Sizes: ${sizes.join(", ")}.`,
      `JPEG downscaled to 1280 wide against full size over gRPC: p50 ${scaled.p50.toFixed(1)} / ${jpeg.p50.toFixed(1)} ms = ` +
        `${(scaled.p50 / jpeg.p50).toFixed(2)} (aim: ≤ 1).`,
    ],
  };
}
