import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { runPincer } from "../fixtures/cli.js";
import { minimalImage } from "../fixtures/image.js";

/** The example tasks that run on one machine: all but multi/. */
const ONE_MACHINE = ["clipboard/*", "data/*", "editor/*", "files/*", "images/*", "notebook/*", "projects/*", "terminal/*"];

describe.each([
  ["container", "container", "new container"],
  ["qemu", "qcow2", "snapshot"],
] as const)("pincer run examples --provider %s", (provider, format, resetMethod) => {
  test("passes every example that runs on one machine, each task on a machine reset for it", async () => {
    const image = await minimalImage([format]);
    const out = await mkdtemp(join(tmpdir(), `pincer-examples-${provider}-`));
    try {
      const tasks = ONE_MACHINE.flatMap((t) => ["--task", t]);
      const r = await runPincer(["run", "examples", "--provider", provider, "--image", image.dir, "--concurrency", "2", ...tasks, "--out", out]);
      expect(r.stdout + r.stderr).toMatch(/tasks 13: passed 13, failed 0, errors 0/);
      expect(r.code).toBe(0);
      const [runDir] = await readdir(out);
      const manifest = JSON.parse(await readFile(join(out, runDir!, "manifest.json"), "utf8"));
      expect(JSON.stringify(manifest)).toContain(`"${provider}"`);
      // 13 tasks on 2 slots: at least 11 started on a machine reset after an earlier task, by the provider's own method.
      const summaries = await Promise.all(
        ONE_MACHINE.map((t) => t.split("/")[0]!).flatMap(async (tool) => {
          const ids = await readdir(join(out, runDir!, tool));
          return Promise.all(ids.map(async (id) => JSON.parse(await readFile(join(out, runDir!, tool, id, "attempt-1", "summary.json"), "utf8"))));
        }),
      );
      const resets = summaries.flat().map((s) => s.results?.machine_reset?.desktop ?? s.machine_reset?.desktop);
      // A reset that went another way says why (a VM booted anew because its snapshot did not come back).
      const other = resets.filter((m) => m?.method !== resetMethod && m?.method !== "fresh");
      expect(resets.filter((m) => m?.method === resetMethod).length, JSON.stringify(other)).toBeGreaterThanOrEqual(11);
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });
});
