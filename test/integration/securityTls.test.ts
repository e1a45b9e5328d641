import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { connect, UnauthenticatedError, UnavailableError, type ConnectOptions } from "@pincer/controller";
import { makeTestCerts, type TestCerts } from "../fixtures/certs.js";
import { spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";
import { eventually } from "../fixtures/poll.js";

let certs: TestCerts;

/** The daemon's log once it holds `text` (stderr may trail the address line on stdout). */
async function logWith(d: { log(): string }, text: string): Promise<string> {
  await eventually(() => d.log().includes(text), 10_000, 20);
  return d.log();
}
let dir: string;

beforeAll(() => {
  certs = makeTestCerts();
  dir = mkdtempSync(join(tmpdir(), "pincer-tls-"));
});

afterAll(() => {
  certs?.remove();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Connects, makes one call, closes; resolves with the result or the error. */
async function tryCall(
  address: string,
  opts: ConnectOptions,
  call: (env: ReturnType<typeof connect>) => Promise<unknown> = (env) => env.system.info(),
): Promise<unknown> {
  const env = connect(address, { defaultTimeoutMs: 5_000, ...opts });
  try {
    return await call(env);
  } catch (err) {
    return err;
  } finally {
    env.close();
  }
}

describe("TLS with a token", () => {
  const TOKEN = randomBytes(32).toString("hex");
  let daemon: RunningDaemon;

  beforeAll(async () => {
    daemon = await spawnDaemon({ args: ["--tls-cert", certs.serverCert, "--tls-key", certs.serverKey], env: { PINCER_TOKEN: TOKEN } });
  });
  afterAll(() => daemon?.close());

  test("a client that trusts the CA and has the token gets through; the CA as a path or as PEM", async () => {
    const info = await tryCall(daemon.address, { tls: { ca: certs.caCert }, token: TOKEN });
    expect(info).toMatchObject({ daemonVersion: expect.any(String) });
    const viaPem = await tryCall(daemon.address, { tls: { ca: readFileSync(certs.caCert, "utf8") }, token: TOKEN });
    expect(viaPem).toMatchObject({ daemonVersion: expect.any(String) });
    const named = await tryCall(daemon.address.replace("127.0.0.1", "localhost"), { tls: { ca: certs.caCert, serverName: "localhost" }, token: TOKEN });
    expect(named).toMatchObject({ daemonVersion: expect.any(String) });
  });

  test("TLS without the token is UNAUTHENTICATED", async () => {
    expect(await tryCall(daemon.address, { tls: { ca: certs.caCert } })).toBeInstanceOf(UnauthenticatedError);
  });

  test("a plaintext client, or one that does not trust the daemon's CA, cannot connect", async () => {
    expect(await tryCall(daemon.address, { token: TOKEN })).toBeInstanceOf(UnavailableError);
    expect(await tryCall(daemon.address, { tls: { ca: certs.otherCaCert }, token: TOKEN })).toBeInstanceOf(UnavailableError);
    expect(await tryCall(daemon.address, { tls: true, token: TOKEN })).toBeInstanceOf(UnavailableError);
  });

  test("the startup line says TLS and token", async () => {
    const line = (await logWith(daemon, "security settings")).split("\n").find((l) => l.includes('"msg":"security settings"'));
    expect(JSON.parse(line!)).toMatchObject({ auth: "token", tls: true, mtls: false });
  });
});

describe("mutual TLS", () => {
  let daemon: RunningDaemon;
  let address: string;

  beforeAll(async () => {
    // Mutual TLS is authentication enough to listen beyond loopback without a token.
    daemon = await spawnDaemon({
      args: ["--host", "0.0.0.0", "--tls-cert", certs.serverCert, "--tls-key", certs.serverKey, "--tls-client-ca", certs.caCert],
    });
    address = daemon.address.replace("0.0.0.0", "127.0.0.1");
  });
  afterAll(() => daemon?.close());

  test("a client certificate from the daemon's CA gets through and is named in the audit line", async () => {
    const info = await tryCall(address, { tls: { ca: certs.caCert, cert: certs.clientCert, key: certs.clientKey } });
    expect(info).toMatchObject({ daemonVersion: expect.any(String) });
    const audit = (await logWith(daemon, "/pincer.v1.System/GetInfo"))
      .split("\n")
      .filter((l) => l.includes('"type":"audit"'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(audit.find((a) => a.method === "/pincer.v1.System/GetInfo")).toMatchObject({ code: "OK", client_cert: "pincer-test-controller" });
  });

  test("no client certificate, or one from another CA, is refused and runs nothing", async () => {
    const marker = join(dir, "mtls-marker");
    const touch = (env: ReturnType<typeof connect>) => env.process.run(["touch", marker]);
    expect(await tryCall(address, { tls: { ca: certs.caCert } }, touch)).toBeInstanceOf(UnavailableError);
    const other = await tryCall(address, { tls: { ca: certs.caCert, cert: certs.otherClientCert, key: certs.otherClientKey } }, touch);
    expect(other).toBeInstanceOf(UnavailableError);
    expect(existsSync(marker)).toBe(false);
    // The same call with the right certificate does run.
    await tryCall(address, { tls: { ca: certs.caCert, cert: certs.clientCert, key: certs.clientKey } }, touch);
    expect(existsSync(marker)).toBe(true);
  });

  test("the startup line says mutual TLS on 0.0.0.0, with no warning", async () => {
    const line = (await logWith(daemon, "security settings")).split("\n").find((l) => l.includes('"msg":"security settings"'));
    expect(JSON.parse(line!)).toMatchObject({ auth: "mtls", tls: true, mtls: true, insecure: false, warnings: [] });
    expect(JSON.parse(line!).bind).toMatch(/^0\.0\.0\.0:\d+$/);
  });
});
