import type { Env } from "../../packages/controller/src/index.js";
import { spawnDaemon } from "../../test/fixtures/daemon.js";
import { measure, type Row } from "./stats.js";

/**
 * The cost of portability: the same calls through the native drivers (XTEST, MIT-SHM, the native
 * spawner) and through the portable ones (nut-js, sharp, execa), each daemon built as installed and
 * on the same screen, interleaved operation by operation. `ours` is the native set, the peer the
 * portable one, so the ratio says how many times slower portability is.
 */
export async function driverRows(native: Env, display: string, width: number): Promise<{ rows: Row[]; notes: string[] }> {
  const portable = await spawnDaemon({ display, args: ["--quiet", "--drivers", "portable"], built: true });
  try {
    await portable.env.waitUntilReady({ timeoutMs: 30_000 });
    const info = await portable.env.system.info();
    if (info.drivers?.set !== "portable") throw new Error(`the portable daemon runs ${JSON.stringify(info.drivers)}`);
    // The first input call waits for nut-js to load: not part of any figure.
    await portable.env.mouse.move({ x: 10, y: 10 });
    const rows: Row[] = [];
    const both = async (operation: string, n: number, fn: (env: Env, i: number) => Promise<unknown>, warmup?: number) => {
      const ours = await measure(n, (i) => fn(native, i), warmup);
      const sample = await measure(n, (i) => fn(portable.env, i), warmup);
      rows.push({ operation, ours, peer: { name: "portable drivers", sample } });
    };
    await both("move", 300, (env, i) => env.mouse.move({ x: 100 + (i % 500), y: 200 }));
    await both("click", 200, (env, i) => env.mouse.click({ at: { x: 200 + (i % 300), y: 400 } }));
    await native.mouse.move({ x: width - 200, y: 300 });
    const text = "The quick brown fox jumps over the lazy dog 0123456789 ".repeat(2).slice(0, 100);
    await both("type 100 ASCII characters", 20, (env) => env.keyboard.type(text), 2);
    await native.keyboard.press("ctrl+c");
    await both("screenshot PNG, full screen", 20, (env) => env.screen.screenshot({ format: "png" }), 3);
    await both("screenshot JPEG q80, full screen", 20, (env) => env.screen.screenshot({ format: "jpeg" }), 3);
    await both("run `true`", 200, (env) => env.process.run(["true"]));
    return {
      rows,
      notes: [
        `native: ${JSON.stringify((await native.system.info()).drivers)}; portable: ${JSON.stringify(info.drivers)}.`,
        "Each portable input call crosses to the nut-js process and back; capture copies nut-js's whole grab over that channel.",
      ],
    };
  } finally {
    await portable.close();
  }
}
