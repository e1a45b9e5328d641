import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { connect, type RemoteEnv } from "@pincer/controller";
import { CancelledError, NotFoundError, TimeoutError, UnauthenticatedError, UnimplementedError } from "@pincer/shared";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type ServedEpisodes, serveEpisodes } from "../fixtures/servedEpisodes.js";

// `pincer serve examples --provider local --grant-machines`: each episode's machine, reached
// through the server with the grant's token, by the controller's own daemon client (RemoteEnv).

type Served = ServedEpisodes;

/** `pincer serve examples --provider local` with `args`, and an Episodes client of it. */
const serve = (args: string[]) => serveEpisodes("examples", ["--provider", "local", ...args]);
const stop = (s: Served | undefined) => s?.close();

/** Waits until `check` passes (it throws until then), polling every 100 ms, for at most `ms`. */
async function until(check: () => void | Promise<void>, ms: number): Promise<void> {
  for (const end = Date.now() + ms; ; await new Promise((r) => setTimeout(r, 100))) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > end) throw err;
    }
  }
}

const runCommand = (command: string) => ({ toolCall: { name: "desktop__run_command", argumentsJson: JSON.stringify({ command }) } });

let granted: Served;
let plain: Served;
const envs: RemoteEnv[] = [];
/** A daemon client through the server with `token`; closed after the tests. */
const machine = (address: string, token: string) => {
  const env = connect(address, { token, defaultTimeoutMs: 20_000 });
  envs.push(env);
  return env;
};

beforeAll(async () => {
  [granted, plain] = await Promise.all([serve(["--grant-machines", "--concurrency", "2"]), serve([])]);
}, 90_000);

afterAll(async () => {
  for (const env of envs) env.close();
  await Promise.all([stop(granted), stop(plain)]);
});

describe("pincer serve --grant-machines", () => {
  test("each grant reaches its own episode's machine: commands, screenshots, streamed files, the daemon's errors and deadlines", async () => {
    const [a, b] = await Promise.all([granted.call("StartEpisode", { taskId: "write-greeting" }), granted.call("StartEpisode", { taskId: "sort-inbox" })]);
    for (const ep of [a, b]) {
      expect(ep.machines).toHaveLength(1);
      expect(ep.machines[0]).toMatchObject({ environment: "desktop", address: granted.address });
      expect(ep.machines[0].token).toMatch(/^[0-9a-f]{64}$/);
    }
    expect(a.machines[0].token).not.toBe(b.machines[0].token);
    const envA = machine(granted.address, a.machines[0].token);
    const envB = machine(granted.address, b.machines[0].token);
    try {
      // Each grant drives its own episode's machine: the pointer the episode's own step put there.
      const move = (x: number, y: number) => ({ toolCall: { name: "desktop__move", argumentsJson: JSON.stringify({ x, y }) } });
      await granted.call("Step", { episodeId: a.episodeId, action: move(101, 202) });
      await granted.call("Step", { episodeId: b.episodeId, action: move(303, 404) });
      expect(await envA.mouse.position()).toEqual({ x: 101, y: 202 });
      expect(await envB.mouse.position()).toEqual({ x: 303, y: 404 });
      // And the other way round: what the grant wrote, the episode's step reads.
      await envA.files.write(`/tmp/pincer-grant-${process.pid}.txt`, "granted\n");
      const read = await granted.call("Step", { episodeId: a.episodeId, action: runCommand(`cat /tmp/pincer-grant-${process.pid}.txt`) });
      expect(JSON.parse(read.resultJson).stdout).toBe("granted\n");

      const shot = await envA.screen.screenshot({ format: "png" });
      expect(shot.data.subarray(1, 4).toString()).toBe("PNG");
      expect(shot.width).toBeGreaterThan(0);

      // 3 MiB up (client streaming) and back down (server streaming), bytes intact.
      const bytes = randomBytes(3 * 1024 * 1024);
      const path = `/tmp/pincer-grant-${process.pid}.bin`;
      await envA.files.upload(bytes, path);
      const down = await envA.files.download(path);
      expect(down.data.equals(bytes)).toBe(true);
      await envA.files.remove(path);

      // The daemon's own errors and the caller's deadline come through.
      await expect(envA.files.stat("/no/such/file")).rejects.toBeInstanceOf(NotFoundError);
      const t0 = Date.now();
      await expect(envA.process.run(["sleep", "20"], { timeoutMs: 1_000 })).rejects.toBeInstanceOf(TimeoutError);
      expect(Date.now() - t0).toBeLessThan(10_000);
    } finally {
      for (const ep of [a, b]) await granted.call("CloseEpisode", { episodeId: ep.episodeId });
    }
  }, 120_000);

  test("a wrong or missing token is UNAUTHENTICATED; the server's Episodes calls do not open a machine", async () => {
    const wrong = machine(granted.address, randomBytes(32).toString("hex"));
    const err = await wrong.process.run("true").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnauthenticatedError);
    expect((err as Error).message).toMatch(/unknown or revoked/);
    const none = connect(granted.address);
    envs.push(none);
    await expect(none.screen.size()).rejects.toBeInstanceOf(UnauthenticatedError);
  });

  test("CloseEpisode revokes the grant and cancels its calls under way", async () => {
    const ep = await granted.call("StartEpisode", { taskId: "write-greeting", failFast: true });
    const env = machine(granted.address, ep.machines[0].token);
    const handle = env.process.start(["sleep", "30"]);
    const pid = await handle.pid;
    expect(pid).toBeGreaterThan(0);
    const ended = handle.wait().catch((e: unknown) => e);
    await granted.call("CloseEpisode", { episodeId: ep.episodeId });
    const err = await ended;
    expect(err).toBeInstanceOf(CancelledError);
    expect((err as Error).message).toMatch(/revoked/);
    await expect(env.process.run("true")).rejects.toBeInstanceOf(UnauthenticatedError);
  }, 60_000);

  test("calls through the grant keep the lease; an expired lease revokes the grant", async () => {
    const ep = await granted.call("StartEpisode", { taskId: "write-greeting", leaseSeconds: 2, failFast: true });
    const env = machine(granted.address, ep.machines[0].token);
    for (const end = Date.now() + 4_000; Date.now() < end; await new Promise((r) => setTimeout(r, 200))) await env.screen.size();
    expect((await granted.call("Observe", { episodeId: ep.episodeId, observation: { screenshot: false } })).observation).toBeTruthy();
    await until(() => expect(granted.stderr()).toContain(`episode ${ep.episodeId}: lease of 2 s expired`), 10_000);
    await until(() => expect(env.screen.size()).rejects.toBeInstanceOf(UnauthenticatedError), 5_000);
  }, 60_000);

  test("the manifest records that machines were granted", () => {
    expect(JSON.parse(readFileSync(join(granted.out, "served", "manifest.json"), "utf8")).machine_access).toBe(true);
  });
});

describe("pincer serve without --grant-machines", () => {
  test("no grants, and no daemon services on the server", async () => {
    const ep = await plain.call("StartEpisode", { taskId: "write-greeting" });
    expect(ep.machines).toEqual([]);
    const env = machine(plain.address, "x".repeat(64));
    await expect(env.screen.size()).rejects.toBeInstanceOf(UnimplementedError);
    await plain.call("CloseEpisode", { episodeId: ep.episodeId });
    expect(JSON.parse(readFileSync(join(plain.out, "served", "manifest.json"), "utf8")).machine_access).toBeUndefined();
  }, 60_000);
});
