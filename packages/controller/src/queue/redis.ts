import { InvalidArgumentError } from "@pincer/shared";
import { Redis, type RedisOptions } from "ioredis";

/**
 * A Redis connection for a queue: `redis://[:password@]host:port[/db]`, `rediss://…` (TLS, the
 * system's trusted CAs; `?servername=` names the certificate's host), or a unix socket
 * `unix:/path/to/redis.sock` (`?password=…&db=N`). Commands wait for a connection that is down to
 * come back (a Redis restart) instead of failing, as BullMQ needs.
 */
export function redisConnection(url: string): Redis {
  const common: RedisOptions = { maxRetriesPerRequest: null, enableReadyCheck: true };
  if (url.startsWith("unix:")) {
    const u = new URL(url.replace(/^unix:(\/\/)?/, "unix://"));
    const path = decodeURIComponent(u.pathname);
    if (!path) throw new InvalidArgumentError(`--queue ${url}: give the socket's path, e.g. unix:/run/redis/redis.sock`);
    const password = u.searchParams.get("password");
    const db = Number(u.searchParams.get("db") ?? 0);
    return new Redis({ ...common, path, ...(password ? { password } : {}), db });
  }
  if (!/^rediss?:\/\//.test(url)) {
    throw new InvalidArgumentError(`--queue ${redacted(url)}: write redis://[:password@]host:port, rediss://… (TLS) or unix:/path/to/redis.sock`);
  }
  const servername = new URL(url).searchParams.get("servername");
  return new Redis(url, { ...common, ...(url.startsWith("rediss:") ? { tls: servername ? { servername } : {} } : {}) });
}

/** The URL with its password hidden, for messages and manifests. */
export function redacted(url: string): string {
  return url.replace(/(\/\/[^:/@]*:)[^@]*@/, "$1***@").replace(/([?&]password=)[^&]*/, "$1***");
}
