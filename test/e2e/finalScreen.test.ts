import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { expect, test } from "vitest";
import type { TrajectoryLine } from "@pincer/controller/runner";
import { runPincer } from "../fixtures/cli.js";

// The final screen of an attempt is what the viewer shows under the verdict: it must show what the
// evaluation saw. The examples' open-clock ends when its evaluation finds xclock's window, started
// by the step that typed `xclock -geometry 200x200+700+100 &`; its final screenshot must show the
// clock there, not the bare desktop of the first screenshot.

/** The inside of xclock's window as the solution places it (screen = screenshot pixels: a 1280×800 screen, scale 1). */
const CLOCK = { left: 710, top: 110, width: 180, height: 180 };

/** The RGB pixels of the clock's region of a screenshot. */
async function clockRegion(file: string): Promise<Buffer> {
  return sharp(file).removeAlpha().toColourspace("srgb").extract(CLOCK).raw().toBuffer();
}

/** The fraction of pixels of two regions that differ by more than JPEG's noise in some channel. */
function changedFraction(a: Buffer, b: Buffer): number {
  let changed = 0;
  for (let p = 0; p < a.length; p += 3) {
    if (Math.abs(a[p]! - b[p]!) > 48 || Math.abs(a[p + 1]! - b[p + 1]!) > 48 || Math.abs(a[p + 2]! - b[p + 2]!) > 48) changed++;
  }
  return changed / (a.length / 3);
}

test("open-clock's final screenshot, taken once the screen settled after the last evaluation, shows the clock", async () => {
  const out = mkdtempSync(join(tmpdir(), "pincer-final-screen-"));
  try {
    const r = await runPincer(["run", "examples", "--task", "terminal/open-clock", "--strict", "--out", out, "--run-id", "clock"]);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    const attempt = join(out, "clock", "terminal", "open-clock", "attempt-1");
    const lines = readFileSync(join(attempt, "trajectory.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as TrajectoryLine);
    const final = lines.at(-1)!;
    expect(final, JSON.stringify(lines)).toMatchObject({ final: true, screenshots: { desktop: expect.any(String) } });
    expect(lines.findLast((l) => typeof l.step === "number")?.evaluation?.reason).toMatch(/window "xclock" \(XClock\) is open/);
    const before = await clockRegion(join(attempt, lines[0]!.screenshots!.desktop!));
    const after = await clockRegion(join(attempt, final.screenshots!.desktop!));
    // Before the clock started, the region is the desktop's background; at the end, the clock's window.
    const fraction = changedFraction(before, after);
    expect(
      fraction,
      `${(fraction * 100).toFixed(1)}% of the clock's region differs from the first screenshot's (${readdirSync(join(attempt, "screenshots"))})`,
    ).toBeGreaterThan(0.5);
    // The wait for the screen is recorded on the final line, as on a turn's.
    expect(final.settle?.desktop).toMatchObject({ settled: true });
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}, 240_000);
