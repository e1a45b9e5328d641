import { afterEach, expect, test } from "vitest";
import { connect, UnavailableError, type RemoteEnv } from "@pincer/controller";
import { spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";
import { eventually } from "../fixtures/poll.js";
import { startTcpProxy, type TcpProxy } from "../fixtures/tcpProxy.js";

// A machine that is busy but alive keeps its connection: a daemon that cannot answer for longer
// than the keepalive's ping timeout (here frozen with SIGSTOP, as a starved process on a loaded
// host is) finishes the call it was given once it runs again. Only a machine that is really gone
// (nothing accepts a connection at its address) fails the calls in flight, and soon.

let daemon: RunningDaemon | undefined;
let proxy: TcpProxy | undefined;
const envs: RemoteEnv[] = [];

afterEach(async () => {
  if (daemon?.process.pid) process.kill(daemon.process.pid, "SIGCONT");
  for (const env of envs.splice(0)) env.close();
  await proxy?.close();
  await daemon?.close();
  daemon = undefined;
  proxy = undefined;
});

/** Freezes the daemon's process for `ms`, as a host too busy to schedule it would. */
async function freeze(d: RunningDaemon, ms: number): Promise<void> {
  process.kill(d.process.pid!, "SIGSTOP");
  await new Promise((r) => setTimeout(r, ms));
  process.kill(d.process.pid!, "SIGCONT");
}

test("a daemon frozen for longer than the keepalive's 10 s + 5 s answers the call it was given, on the same connection", async () => {
  daemon = await spawnDaemon();
  // The default connection settings, as every provider uses them.
  const env = connect(daemon.address);
  envs.push(env);
  await env.system.info();
  const t0 = Date.now();
  const [run] = await Promise.all([env.process.run("echo still here", { timeoutMs: 60_000 }), freeze(daemon, 17_000)]);
  expect(run).toMatchObject({ exitCode: 0, stdout: "still here\n" });
  expect(Date.now() - t0).toBeGreaterThanOrEqual(17_000);
  // The connection it used is still the one: later calls need no new one.
  expect((await env.system.info()).daemonVersion).toMatch(/\d/);
}, 60_000);

test("a machine whose address stops answering fails the calls in flight within the keepalive, not at their deadline", async () => {
  daemon = await spawnDaemon();
  proxy = await startTcpProxy(daemon.address);
  const env = connect(proxy.address, { keepaliveMs: 1_000, keepaliveTimeoutMs: 1_000 });
  envs.push(env);
  await env.system.info();
  const t0 = Date.now();
  const call = env.process.run("sleep 30", { timeoutMs: 45_000 });
  await new Promise((r) => setTimeout(r, 300));
  // The path is down: nothing gets through, and nothing accepts a new connection.
  await proxy.blackhole(true);
  const err = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(UnavailableError);
  expect((err as Error).message).toMatch(/unreachable/);
  // Seconds after the keepalive's 1 s + 1 s, however loaded the machine; the deadline is 45 s.
  expect(Date.now() - t0).toBeLessThan(25_000);
}, 60_000);

test("a call that waits for ready waits for a machine that is down until it is back", async () => {
  daemon = await spawnDaemon();
  proxy = await startTcpProxy(daemon.address);
  await proxy.blackhole(true);
  const env = connect(proxy.address, { maxReconnectBackoffMs: 500 });
  envs.push(env);
  const back = new Promise((r) => setTimeout(r, 1_500)).then(() => proxy!.blackhole(false));
  const info = await env.system.info({ waitForReady: true, timeoutMs: 20_000 });
  await back;
  expect(info.daemonVersion).toMatch(/\d/);
}, 60_000);

test("a call queued while a connection attempt hangs goes out on the connection made in its place", async () => {
  daemon = await spawnDaemon();
  proxy = await startTcpProxy(daemon.address);
  // Connections are accepted but nothing flows: the attempt never completes, and after 1 s it is
  // given up for a new one; the call waiting for it is sent on the new one once the path is back.
  proxy.silence(true);
  const env = connect(proxy.address, { connectTimeoutMs: 1_000, maxReconnectBackoffMs: 500 });
  envs.push(env);
  let answered = false;
  const info = env.system.info({ waitForReady: true, timeoutMs: 40_000 }).finally(() => (answered = true));
  expect(await eventually(() => proxy!.connections() >= 2, 20_000)).toBe(true);
  // Nothing got through on the connection that hangs, nor on the one made in its place, until the path is back.
  expect(answered).toBe(false);
  proxy.silence(false);
  expect((await info).daemonVersion).toMatch(/\d/);
}, 60_000);

test("a connection whose bytes stop flowing while new ones are accepted is given up after unresponsiveTimeoutMs", async () => {
  daemon = await spawnDaemon();
  proxy = await startTcpProxy(daemon.address);
  const env = connect(proxy.address, { keepaliveMs: 1_000, unresponsiveTimeoutMs: 2_000 });
  envs.push(env);
  await env.system.info();
  const t0 = Date.now();
  const call = env.process.run("sleep 30", { timeoutMs: 45_000 });
  await new Promise((r) => setTimeout(r, 300));
  proxy.silence(true);
  await expect(call).rejects.toBeInstanceOf(UnavailableError);
  // Seconds after unresponsiveTimeoutMs, however loaded the machine; the deadline is 45 s.
  expect(Date.now() - t0).toBeLessThan(25_000);
}, 60_000);
