import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { DRIVERS, spawnDaemon } from "../fixtures/daemon.js";

// Where a command starts when the call names no directory: the daemon's home directory, or / when
// that does not exist (system users such as nobody), with every way of starting commands: the
// native spawner with cgroups (clone3) and without (posix_spawn), the Node spawner, and execa.
const SPAWNERS: Record<string, NodeJS.ProcessEnv> =
  DRIVERS === "native"
    ? {
        native: { PINCER_SPAWNER: "native" },
        "native without cgroups": { PINCER_SPAWNER: "native", PINCER_SPAWNER_CGROUPS: "0" },
        node: { PINCER_SPAWNER: "node", PINCER_ALLOW_NODE_SPAWNER: "1" },
      }
    : { execa: {} };

let home: string;
beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), "pincer-home-"));
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe.each(Object.entries(SPAWNERS))("the default working directory, %s", (_name, spawnerEnv) => {
  test("is the daemon's home directory when it exists, / when it does not; a named one that does not exist fails", async () => {
    const missing = join(home, "gone");
    for (const [HOME, want] of [
      [home, `${home}\n`],
      [missing, "/\n"],
    ] as const) {
      // The upload journal elsewhere: under HOME it would make the missing home directory.
      const daemon = await spawnDaemon({ env: { ...spawnerEnv, HOME, XDG_STATE_HOME: join(home, "state") } });
      try {
        const r = await daemon.env.process.run(["pwd"]);
        expect(r.exitCode, r.stderr).toBe(0);
        expect(r.stdout).toBe(want);
        // Twice: the first command of a spawner and a later one take the same path.
        expect((await daemon.env.process.run(["pwd"])).stdout).toBe(want);
        await expect(daemon.env.process.run(["pwd"], { cwd: missing })).rejects.toThrow(/cwd: .*gone.*: no such directory/);
      } finally {
        await daemon.close();
      }
    }
  });
});
