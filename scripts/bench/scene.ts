import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createRequire } from "node:module";

const x11 = createRequire(import.meta.url)("x11");

/**
 * Fills a screen with content that is realistic for compression: a window of random noise over
 * the left half (photo-like content at its worst: noise does not compress) and terminals full of
 * text on the right half. Returns a function that removes it all.
 */
export async function buildScene(display: string, width: number, height: number): Promise<() => Promise<void>> {
  const noiseWidth = Math.floor(width / 2);
  const closeNoise = await noiseWindow(display, 0, 0, noiseWidth, height);
  const terms: ChildProcess[] = [];
  const cols = 3;
  for (let i = 0; i < cols; i++) {
    const x = noiseWidth + i * Math.floor((width - noiseWidth) / cols);
    const t = spawn("xterm", ["-geometry", `52x70+${x}+0`, "-e", "sh", "-c", "ls -la /usr/bin /usr/lib | head -400; exec sleep 3600"], {
      env: { ...process.env, DISPLAY: display },
      stdio: "ignore",
    });
    terms.push(t);
  }
  // Terminals paint within a second; the benchmark only needs them drawn, not exact.
  await new Promise((r) => setTimeout(r, 1500));
  return async () => {
    closeNoise();
    for (const t of terms) t.kill("SIGKILL");
  };
}

function noiseWindow(display: string, x: number, y: number, w: number, h: number): Promise<() => void> {
  return new Promise((resolve, reject) => {
    // biome-ignore lint/suspicious/noExplicitAny: the x11 package has no types
    x11.createClient({ display }, (err: Error | null, dpy: any) => {
      if (err) return reject(err);
      const X = dpy.client;
      const root = dpy.screen[0].root;
      const wid = X.AllocID();
      X.CreateWindow(wid, root, x, y, w, h, 0, 0, 0, 0, { backgroundPixel: 0x202020, overrideRedirect: 1 });
      X.MapWindow(wid);
      const gc = X.AllocID();
      X.CreateGC(gc, wid);
      // PutImage in strips that fit the core request size limit (256 KiB).
      const rows = Math.floor((256 * 1024 - 64) / (w * 4));
      for (let top = 0; top < h; top += rows) {
        const n = Math.min(rows, h - top);
        X.PutImage(2, wid, gc, w, n, 0, top, 0, 24, randomBytes(w * n * 4));
      }
      X.GetInputFocus(() => resolve(() => X.terminate()));
    });
  });
}
