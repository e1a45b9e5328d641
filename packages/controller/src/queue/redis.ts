import { InvalidArgumentError, PermissionDeniedError, UnavailableError } from "@pincer/shared";
import { readFileSync } from "node:fs";
import type { ConnectionOptions } from "node:tls";
import { Redis, type RedisOptions } from "ioredis";

/**
 * A Redis connection for a queue: `redis://[:password@]host:port[/db]`, `rediss://…` (TLS, the
 * system's trusted CAs or `?ca=/path.pem`; `?servername=` names the certificate's host), or a unix socket
 * `unix:/path/to/redis.sock` (`?password=…&db=N`). Without a password in the URL, PINCER_QUEUE_PASSWORD
 * gives it. Commands wait for a connection that is down to
 * come back (a Redis restart) instead of failing, as BullMQ needs.
 */
export function redisConnection(url: string, env: NodeJS.ProcessEnv = process.env): Redis {
  // A password from the environment (kept out of command lines, which other users can read in /proc).
  const fromEnv = env.PINCER_QUEUE_PASSWORD ? { password: env.PINCER_QUEUE_PASSWORD } : {};
  const common: RedisOptions = { maxRetriesPerRequest: null, enableReadyCheck: true };
  if (url.startsWith("unix:")) {
    const u = new URL(url.replace(/^unix:(\/\/)?/, "unix://"));
    const path = decodeURIComponent(u.pathname);
    if (!path) throw new InvalidArgumentError(`--queue ${url}: give the socket's path, e.g. unix:/run/redis/redis.sock`);
    const password = u.searchParams.get("password");
    const db = Number(u.searchParams.get("db") ?? 0);
    return new Redis({ ...common, ...fromEnv, path, ...(password ? { password } : {}), db });
  }
  if (!/^rediss?:\/\//.test(url)) {
    throw new InvalidArgumentError(`--queue ${redacted(url)}: write redis://[:password@]host:port, rediss://… (TLS) or unix:/path/to/redis.sock`);
  }
  const u = new URL(url);
  const inUrl = u.password ? {} : fromEnv;
  return new Redis(url, { ...common, ...inUrl, ...(u.protocol === "rediss:" ? { tls: tlsOptions(u) } : {}) });
}

/** TLS options of a rediss:// URL: `?servername=` (the certificate's host) and `?ca=/path.pem` (a CA of your own). */
function tlsOptions(u: URL): ConnectionOptions {
  const servername = u.searchParams.get("servername");
  const ca = u.searchParams.get("ca");
  let caPem: Buffer | undefined;
  if (ca) {
    try {
      caPem = readFileSync(ca);
    } catch (err) {
      throw new InvalidArgumentError(`--queue: cannot read the CA file ${ca} (${(err as NodeJS.ErrnoException).code}); give a readable PEM file in ?ca=`);
    }
  }
  return { ...(servername ? { servername } : {}), ...(caPem ? { ca: caPem } : {}) };
}

/** The URL with its password hidden, for messages and manifests. */
export function redacted(url: string): string {
  return url.replace(/(\/\/[^:/@]*:)[^@]*@/, "$1***@").replace(/([?&]password=)[^&]*/, "$1***");
}

/**
 * A connection to the queue's Redis that answers: a refused password, a TLS failure or a Redis
 * that cannot be reached within `timeoutMs` is an error that says what to do, not a wait forever
 * (a connection, once up, waits through later outages).
 */
export async function openRedis(url: string, timeoutMs = 15_000): Promise<Redis> {
  const redis = redisConnection(url);
  let last: Error | undefined;
  const onError = (err: Error) => (last = err);
  redis.on("error", onError);
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(unreachable(url, last)), timeoutMs);
      const fail = (err: Error) => {
        if (!/WRONGPASS|NOAUTH|invalid password|certificate|self.signed|SSL|TLS/i.test(`${err.message} ${(err as NodeJS.ErrnoException).code ?? ""}`)) return;
        clearTimeout(timer);
        reject(refused(url, err));
      };
      redis.on("error", fail);
      redis.ping().then(
        () => {
          clearTimeout(timer);
          redis.off("error", fail);
          resolve();
        },
        (err: Error) => fail(err),
      );
    });
  } catch (err) {
    redis.disconnect();
    throw err;
  }
  redis.off("error", onError);
  return redis;
}

function unreachable(url: string, err: Error | undefined): Error {
  return new UnavailableError(
    `cannot reach the queue's Redis at ${redacted(url)}${err ? ` (${err.message})` : ""}: is redis-server running there, and can this host reach it?`,
  );
}

function refused(url: string, err: Error): Error {
  if (/WRONGPASS|NOAUTH|invalid password/i.test(err.message)) {
    return new PermissionDeniedError(
      `the queue's Redis at ${redacted(url)} refused the password (${err.message.split("\n")[0]}): give its requirepass in the URL or PINCER_QUEUE_PASSWORD`,
    );
  }
  return new UnavailableError(
    `TLS to the queue's Redis at ${redacted(url)} failed (${err.message}): ` +
      "give its CA with rediss://…?ca=/path/ca.pem, and ?servername= if the certificate names another host",
  );
}
