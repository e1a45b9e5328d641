import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { runOnQueue } from "../../packages/controller/src/queue/coordinator.js";
import { openRedis } from "../../packages/controller/src/queue/redis.js";
import { createRegistries } from "../../packages/controller/src/datasets/registries.js";
import { makeTestCerts } from "../fixtures/certs.js";
import { SCRIPTED_QUEUE_SETTINGS } from "../fixtures/quickTasks.js";
import { startRedis, type TestRedis } from "../fixtures/redisServer.js";

// A queue's Redis locked down as docs/queue.md says: a password (requirepass), TLS with a CA of
// one's own. Right credentials connect; wrong ones fail at once with what to do, not a hang.

const dir = mkdtempSync(join(tmpdir(), "pincer-queue-security-"));
const certs = makeTestCerts();
const servers: TestRedis[] = [];
afterAll(async () => {
  for (const s of servers) await s.stop();
  certs.remove();
  rmSync(dir, { recursive: true, force: true });
});

const freePort = async () => {
  const { createServer } = await import("node:net");
  const srv = createServer().listen(0, "127.0.0.1");
  await new Promise((r) => srv.once("listening", r));
  const port = (srv.address() as { port: number }).port;
  await new Promise((r) => srv.close(r));
  return port;
};

describe("a queue's Redis with a password and TLS", () => {
  test("the password in the URL or PINCER_QUEUE_PASSWORD connects; a wrong one or none is refused with what to do", async () => {
    const server = await startRedis(join(dir, "pw"), { password: "s3cret-pw" });
    servers.push(server);
    const ok = await openRedis(`unix:${server.socket}?password=s3cret-pw`);
    expect(await ok.ping()).toBe("PONG");
    ok.disconnect();
    process.env.PINCER_QUEUE_PASSWORD = "s3cret-pw";
    try {
      const fromEnv = await openRedis(server.url);
      expect(await fromEnv.ping()).toBe("PONG");
      fromEnv.disconnect();
    } finally {
      delete process.env.PINCER_QUEUE_PASSWORD;
    }
    await expect(openRedis(`unix:${server.socket}?password=wrong`, 5_000)).rejects.toThrow(/refused the password .*PINCER_QUEUE_PASSWORD/);
    await expect(openRedis(`unix:${server.socket}?password=wrong`, 5_000)).rejects.not.toThrow(/wrong/);
    await expect(openRedis(server.url, 5_000)).rejects.toThrow(/refused the password/);
  });

  test("rediss:// with the server's CA connects; without it, TLS fails with how to give the CA", async () => {
    const port = await freePort();
    const server = await startRedis(join(dir, "tls"), { password: "pw2", tls: { port, cert: certs.serverCert, key: certs.serverKey, ca: certs.caCert } });
    servers.push(server);
    const ok = await openRedis(`rediss://:pw2@127.0.0.1:${port}?ca=${encodeURIComponent(certs.caCert)}`);
    expect(await ok.ping()).toBe("PONG");
    ok.disconnect();
    await expect(openRedis(`rediss://:pw2@127.0.0.1:${port}`, 5_000)).rejects.toThrow(/TLS to the queue's Redis .* failed .*\?ca=/);
    await expect(openRedis(`rediss://:pw2@127.0.0.1:${port}?ca=/nonexistent/ca.pem`)).rejects.toThrow(/cannot read the CA file \/nonexistent\/ca\.pem/);
  });

  test("a Redis that is not there: a clear error in time, and no run folder left", async () => {
    const out = join(dir, "results");
    const run = runOnQueue({
      url: `unix:${join(dir, "absent.sock")}`,
      key: randomBytes(32),
      tasks: [],
      registries: createRegistries(),
      datasetRoot: dir,
      settings: SCRIPTED_QUEUE_SETTINGS,
      outDir: out,
      runId: "nowhere",
    });
    await expect(run).rejects.toThrow(/cannot reach the queue's Redis at unix:.*absent\.sock .*is redis-server running/);
    expect(existsSync(join(out, "nowhere"))).toBe(false);
  }, 30_000);
});
