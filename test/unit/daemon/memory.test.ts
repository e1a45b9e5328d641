import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, test } from "vitest";
import { DAEMON_MALLOC_ENV, DAEMON_NODE_FLAGS, hasMallocEnv } from "@pincer/shared";
import { exposedGc, heapControl, IdleCollector, raiseMmapThreshold, takeMallocEnv, TRIMMED_MMAP_THRESHOLD } from "../../../packages/daemon/src/memory.js";
import { entrypoint } from "../../../packages/controller/src/machines/images/guestFiles.js";

const MiB = 1024 * 1024;

/** A collector with a scripted memory and event loop; `look()` is driven by the test. */
function scripted(opts: { growthBytes?: number } = {}) {
  const state = { rss: 100 * MiB, busy: 0, freedByGc: 0 };
  const collector = new IdleCollector({
    everyMs: 3_600_000,
    ...opts,
    rss: () => state.rss,
    busy: () => state.busy,
    gc: () => {
      state.rss -= state.freedByGc;
    },
  });
  return { state, collector };
}

describe("IdleCollector", () => {
  test("collects once the daemon is quiet after its memory grew, and not again until it grows anew", () => {
    const { state, collector } = scripted();
    try {
      state.rss += 60 * MiB; // a transfer's buffers
      state.busy = 0.9;
      collector.look();
      expect(collector.collections).toBe(0); // busy: left to V8
      state.busy = 0.01;
      state.freedByGc = 50 * MiB;
      collector.look();
      expect(collector.collections).toBe(1);
      collector.look();
      collector.look();
      expect(collector.collections).toBe(1); // 110 MiB is the new baseline
      state.rss += 10 * MiB;
      collector.look();
      expect(collector.collections).toBe(1); // under the 16 MiB of growth that makes it worth it
      state.rss += 10 * MiB;
      collector.look();
      expect(collector.collections).toBe(2);
    } finally {
      collector.close();
    }
  });

  test("a release runs before the collection, which waits for it; no second one starts meanwhile", async () => {
    const order: string[] = [];
    let finish = () => undefined as void;
    const state = { rss: 100 * MiB };
    const collector = new IdleCollector({
      everyMs: 3_600_000,
      rss: () => state.rss,
      busy: () => 0,
      gc: () => {
        order.push("gc");
        state.rss -= 40 * MiB;
      },
      release: () => {
        order.push("release");
        return new Promise<void>((resolve) => (finish = resolve));
      },
    });
    try {
      state.rss += 60 * MiB;
      collector.look();
      collector.look(); // while the release is under way
      expect(order).toEqual(["release"]);
      expect(collector.collections).toBe(0);
      finish();
      await new Promise((r) => setImmediate(r));
      expect(order).toEqual(["release", "gc"]);
      expect(collector.collections).toBe(1);
    } finally {
      collector.close();
    }
  });

  test("a baseline that memory falls under follows it down", () => {
    const { state, collector } = scripted();
    try {
      state.rss = 80 * MiB;
      collector.look();
      state.rss = 97 * MiB; // 17 MiB over the lower baseline, 3 under the first one
      collector.look();
      expect(collector.collections).toBe(1);
    } finally {
      collector.close();
    }
  });

  test("the exposed collection is V8's own: it frees what nothing references", async () => {
    const gc = exposedGc();
    const weak = new WeakRef({});
    // A WeakRef keeps its target until the job that made it ends.
    await new Promise((r) => setImmediate(r));
    gc();
    expect(weak.deref()).toBeUndefined();
  });
});

describe("the heap addon (native/memory.c)", () => {
  test("is built by npm ci and loads; it trims, and refuses a threshold that is not a whole number in range", () => {
    const heap = heapControl();
    expect(heap, "npm run build:native builds native/build/pincer_memory.node").toBeDefined();
    expect(typeof heap!.trim()).toBe("boolean");
    expect(() => heap!.setMmapThreshold(-1)).toThrow(/whole number from 0 to 2\^31-1/);
    expect(() => (heap!.setMmapThreshold as (x: unknown) => boolean)("big")).toThrow(/whole number/);
  });

  test("the threshold goes up only for a daemon started with the launchers' settings, and only where it can trim", () => {
    const asked: number[] = [];
    const control = { trim: () => true, setMmapThreshold: (b: number) => asked.push(b) > 0 };
    expect(raiseMmapThreshold(false, control)).toBeUndefined();
    expect(raiseMmapThreshold(true, undefined)).toBeUndefined();
    expect(asked).toEqual([]);
    expect(raiseMmapThreshold(true, control)).toBe(TRIMMED_MMAP_THRESHOLD);
    expect(asked).toEqual([256 * 1024]);
    expect(raiseMmapThreshold(true, { ...control, setMmapThreshold: () => false })).toBeUndefined();
  });

  test("the collector trims after its collection", () => {
    const order: string[] = [];
    const state = { rss: 100 * MiB };
    const collector = new IdleCollector({
      everyMs: 3_600_000,
      rss: () => state.rss,
      busy: () => 0,
      gc: () => order.push("gc"),
      trim: () => order.push("trim"),
    });
    try {
      state.rss += 40 * MiB;
      collector.look();
      expect(order).toEqual(["gc", "trim"]);
    } finally {
      collector.close();
    }
  });
});

describe("the daemon's malloc settings", () => {
  test("are taken out of the environment its commands inherit, and reported as present", () => {
    const env: NodeJS.ProcessEnv = { PATH: "/bin", ...DAEMON_MALLOC_ENV };
    expect(takeMallocEnv(env)).toBe(true);
    expect(env).toEqual({ PATH: "/bin" });
    expect(takeMallocEnv(env)).toBe(false);
  });

  test("a value a user set differently is kept, and the settings count as missing", () => {
    const env: NodeJS.ProcessEnv = { ...DAEMON_MALLOC_ENV, MALLOC_ARENA_MAX: "4" };
    expect(hasMallocEnv(env)).toBe(false);
    expect(takeMallocEnv(env)).toBe(false);
    expect(env).toEqual({ MALLOC_ARENA_MAX: "4" });
  });

  test("every launcher sets them: the pincer-daemon shebang, the images' entry point, the systemd unit (service.sh)", () => {
    const settings = Object.entries(DAEMON_MALLOC_ENV).map(([k, v]) => `${k}=${v}`);
    const root = resolve(import.meta.dirname, "../../..");
    const shebang = readFileSync(resolve(root, "packages/daemon/src/main.ts"), "utf8").split("\n")[0]!;
    const flags = DAEMON_NODE_FLAGS.join(" ");
    expect(shebang).toBe(`#!/usr/bin/env -S ${settings.join(" ")} node ${flags}`);
    expect(entrypoint()).toContain(`exec env ${settings.join(" ")} /opt/pincer/bin/node ${flags} /opt/pincer/`);
    const unit = readFileSync(resolve(root, "packages/daemon/service/service.sh"), "utf8");
    expect(unit).toContain(`local malloc_env="${settings.join(" ")}"`);
    expect(unit).toContain(`local node_flags="${flags}"`);
    expect(unit).toContain("ExecStart=$node_bin $node_flags $main_js");
  });
});
