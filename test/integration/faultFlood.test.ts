import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { connect as tcpConnect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect as tlsConnect } from "node:tls";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { connect } from "@pincer/controller";
import { makeTestCerts, type TestCerts } from "../fixtures/certs.js";
import { spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";

// Hostile clients, part 1: connections that never complete a request. Each one sends HTTP/2's
// preface and the start of a frame, or stops in the middle of a TLS handshake, and then holds
// the socket open. The daemon runs with 256 file descriptors (prlimit): it used to keep every
// such socket until it had none left, and then refuse every legitimate call, saying nothing.
// Now it closes them after --handshake-timeout-ms and caps how many are open at once, the oldest
// going first; a client that is making its first call keeps its connection.

const TOKEN = "flood-test-token-0123456789abcdef";
/** Connections the flood opens in all, at most this many open at once, about this many per second. */
const TOTAL = 3_000;
const OPEN_AT_ONCE = 400;
const PER_SECOND = 1_000;
const PREFACE = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");
/** A SETTINGS frame header announcing 18 bytes of payload, and 3 of them. */
const TRUNCATED_FRAME = Buffer.from([0, 0, 18, 4, 0, 0, 0, 0, 0, 1, 2, 3]);
/** The first bytes of a TLS record (a handshake of 512 bytes) and no more. */
const TRUNCATED_TLS = Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01]);

let certs: TestCerts;
let dir: string;
let tokenFile: string;

beforeAll(() => {
  certs = makeTestCerts();
  dir = mkdtempSync(join(tmpdir(), "pincer-flood-"));
  tokenFile = join(dir, "token");
  writeFileSync(tokenFile, TOKEN, { mode: 0o600 });
});

afterAll(() => {
  certs?.remove();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The daemon with 256 file descriptors, a token, a 2 s handshake timeout, and TLS when asked. */
function lowFilesDaemon(tls: boolean): Promise<RunningDaemon> {
  const tlsArgs = tls ? ["--tls-cert", certs.serverCert, "--tls-key", certs.serverKey] : [];
  return spawnDaemon({ prefix: ["prlimit", "--nofile=256:256", "--"], args: ["--token-file", tokenFile, "--handshake-timeout-ms", "2000", ...tlsArgs] });
}

const openFiles = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;

/** One stalled connection: the preface and a cut frame (over TLS when `tls`), or, for TLS, a cut handshake. */
function stalled(port: number, tls: boolean, n: number): Socket {
  if (tls && n % 2 === 0) {
    const raw = tcpConnect(port, "127.0.0.1", () => raw.write(TRUNCATED_TLS));
    return raw;
  }
  if (tls) {
    const s = tlsConnect({ host: "127.0.0.1", port, servername: "localhost", ca: certs.read(certs.caCert), ALPNProtocols: ["h2"] }, () =>
      s.write(Buffer.concat([PREFACE, TRUNCATED_FRAME])),
    );
    return s;
  }
  const s = tcpConnect(port, "127.0.0.1", () => s.write(Buffer.concat([PREFACE, TRUNCATED_FRAME])));
  return s;
}

/**
 * Opens TOTAL stalled connections, about PER_SECOND a second, never more than OPEN_AT_ONCE open:
 * a new one as soon as the daemon closes one. Never closes one itself until `release()`.
 */
function flood(port: number, tls: boolean): { done: Promise<void>; closedByDaemon: () => number; release: () => void } {
  const open = new Set<Socket>();
  let opened = 0;
  let closedByDaemon = 0;
  let released = false;
  const done = new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      for (let i = 0; i < PER_SECOND / 100 && opened < TOTAL && open.size < OPEN_AT_ONCE; i++) {
        const s = stalled(port, tls, opened++);
        open.add(s);
        s.on("error", () => undefined);
        s.on("data", () => undefined);
        s.once("close", () => {
          open.delete(s);
          if (!released) closedByDaemon++;
        });
      }
      if (opened >= TOTAL) {
        clearInterval(timer);
        resolve();
      }
    }, 10);
  });
  const release = () => {
    released = true;
    for (const s of open) s.destroy();
  };
  return { done, closedByDaemon: () => closedByDaemon, release };
}

interface Probe {
  ok: boolean;
  ms: number;
  attempts: number;
  error?: string;
}

/** A legitimate client: a new connection, GetInfo with the token; up to 3 tries in 10 s, as a client retrying UNAVAILABLE would. */
async function probe(address: string, tls: boolean): Promise<Probe> {
  const t0 = performance.now();
  let error = "";
  let attempts = 0;
  while (attempts < 3 && performance.now() - t0 < 10_000) {
    attempts++;
    const env = connect(address, { token: TOKEN, ...(tls ? { tls: { ca: certs.caCert } } : {}) });
    try {
      await env.system.info({ timeoutMs: 5_000 });
      return { ok: true, ms: performance.now() - t0, attempts };
    } catch (err) {
      error = (err as Error).message;
    } finally {
      env.close();
    }
  }
  return { ok: false, ms: performance.now() - t0, attempts, error };
}

describe.each([
  ["plaintext", false],
  ["TLS", true],
])("a flood of half-open connections over %s", (_name, tls) => {
  test("the daemon keeps serving, logs what it closed, and its descriptors come back to where they were", async () => {
    const daemon = await lowFilesDaemon(tls);
    const pid = daemon.process.pid!;
    const port = Number(daemon.address.split(":").pop());
    try {
      expect(await probe(daemon.address, tls)).toMatchObject({ ok: true });
      const base = openFiles(pid);
      const attack = flood(port, tls);
      const probes: Probe[] = [];
      let peak = base;
      try {
        const probing = (async () => {
          let flooding = true;
          void attack.done.then(() => (flooding = false));
          while (flooding) {
            probes.push(await probe(daemon.address, tls));
            peak = Math.max(peak, openFiles(pid));
          }
        })();
        await attack.done;
        await probing;
        // What the flood left open, the daemon closes once their handshake time is up.
        for (const until = Date.now() + 15_000; openFiles(pid) > base && Date.now() < until; ) {
          peak = Math.max(peak, openFiles(pid));
          await new Promise((r) => setTimeout(r, 100));
        }
      } finally {
        attack.release();
      }
      const failed = probes.filter((p) => !p.ok);
      console.log(
        `${tls ? "TLS" : "plaintext"} flood of ${TOTAL}: the daemon closed ${attack.closedByDaemon()}; descriptors ${base} before, ${peak} at most, ` +
          `${openFiles(pid)} after; ${probes.length} calls during it, ${failed.length} failed, ${probes.filter((p) => p.attempts > 1).length} retried, ` +
          `slowest ${Math.max(...probes.map((p) => p.ms)).toFixed(0)} ms`,
      );
      expect(failed).toEqual([]);
      expect(probes.length).toBeGreaterThan(0);
      expect(attack.closedByDaemon()).toBeGreaterThanOrEqual(TOTAL - OPEN_AT_ONCE);
      expect(openFiles(pid)).toBeLessThanOrEqual(base);
      expect(peak).toBeLessThan(256);
      expect(daemon.log()).toContain('"msg":"closed connections that had no call let in"');
      // The guard hooks into grpc-js's HTTP/2 servers; the daemon says so when it cannot.
      expect(daemon.log()).not.toContain("grpc-js internals changed");
      expect(await probe(daemon.address, tls)).toMatchObject({ ok: true });
    } finally {
      await daemon.close();
    }
  }, 60_000);
});
