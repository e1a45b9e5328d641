import { readFile } from "node:fs/promises";
import { join } from "node:path";
import initSqlJs, { type Database, type SqlJsStatic } from "sql.js";
import { z } from "zod";
import { defineConfigType } from "../configType.js";
import type { OsworldContext } from "../context.js";
import { defineGetter, type OsworldGetter } from "../getter.js";
import { destName } from "../cacheFiles.js";
import { fetchProfileFile, profileDir } from "./browser.js";

/**
 * Chrome's SQLite files (History, Cookies), downloaded from the machine and read on the controller
 * with sql.js (SQLite compiled to WebAssembly), as OSWorld reads them with Python's sqlite3; and
 * `update_browse_history`, which writes visits into an empty History and puts it on the machine.
 */

let sqlite: Promise<SqlJsStatic> | undefined;
/** sql.js, loaded once. */
const loadSqlite = () => (sqlite ??= initSqlJs());

/** A query's rows, each a list of column values (`cursor.fetchall()`); integers as numbers. */
function rows(db: Database, sql: string): unknown[][] {
  const stmt = db.prepare(sql);
  try {
    const out: unknown[][] = [];
    while (stmt.step()) out.push(stmt.get());
    return out;
  } finally {
    stmt.free();
  }
}

/**
 * A profile's SQLite file copied into the cache folder as `dest` and queried; `null` when it is
 * missing or the query fails (OSWorld logs the error and returns None).
 */
async function queryProfileDb(ctx: OsworldContext, what: string, relative: string, dest: string, sql: string): Promise<unknown[][] | null> {
  const local = await fetchProfileFile(ctx, relative, dest);
  if (local === null) return null;
  const SQL = await loadSqlite();
  let db: Database | undefined;
  try {
    db = new SQL.Database(await readFile(local));
    return rows(db, sql);
  } catch (err) {
    ctx.log(`${what}: ${(err as Error).message}`);
    return null;
  } finally {
    db?.close();
  }
}

const destConfig = z.looseObject({
  dest: destName,
});

/** OSWorld's `history` (url, title, last_visit_time of every URL) and `cookie_data` (every column of every cookie) getters. */
export const chromeDbGetters: OsworldGetter[] = [
  defineGetter({
    name: "history",
    config: destConfig,
    get: (c, ctx) => queryProfileDb(ctx, "history", "Default/History", c.dest, "SELECT url, title, last_visit_time FROM urls"),
  }),
  // OSWorld reads Default/Cookies; current Chrome keeps cookies in Default/Network/Cookies, where it does not look.
  defineGetter({
    name: "cookie_data",
    config: destConfig,
    get: (c, ctx) => queryProfileDb(ctx, "cookie_data", "Default/Cookies", c.dest, "SELECT * FROM cookies"),
  }),
];

/** The empty History OSWorld fills (from its file cache). */
export const EMPTY_HISTORY_URL =
  "https://huggingface.co/datasets/xlangai/ubuntu_osworld_file_cache/resolve/main/chrome/" +
  "44ee5668-ecd5-4366-a6ce-c1c9b8d4e938/history_empty.sqlite?download=true";

/** Microseconds between 1601-01-01 (Chrome's epoch) and 1970-01-01. */
const CHROME_EPOCH_OFFSET_US = 11_644_473_600_000_000;

/**
 * A Chrome timestamp as OSWorld computes it: the controller's local wall-clock time, `seconds`
 * ago, in microseconds since 1601 (a naive `datetime.now()`, so the local time is taken as UTC).
 */
export function chromeTimestamp(seconds: number, now = new Date()): number {
  const localMs = now.getTime() - now.getTimezoneOffset() * 60_000;
  return Math.trunc((localMs - seconds * 1000) * 1000 + CHROME_EPOCH_OFFSET_US);
}

const historyParams = z.strictObject({
  history: z.array(z.strictObject({ url: z.string(), title: z.string(), visit_time_from_now_in_seconds: z.number() })),
});

/**
 * OSWorld's `update_browse_history`: each entry is inserted into the empty History (a `urls` row
 * and a `visits` row, typed as a link), which then replaces the profile's History on the machine.
 */
async function updateBrowseHistory(p: z.infer<typeof historyParams>, ctx: OsworldContext): Promise<void> {
  const SQL = await loadSqlite();
  const db = new SQL.Database(await readFile(await ctx.downloads.get(EMPTY_HISTORY_URL, { signal: ctx.signal })));
  try {
    for (const item of p.history) {
      const t = chromeTimestamp(item.visit_time_from_now_in_seconds);
      db.run("INSERT INTO urls (url, title, visit_count, typed_count, last_visit_time, hidden) VALUES (?, ?, ?, ?, ?, ?)", [item.url, item.title, 1, 0, t, 0]);
      const id = rows(db, "SELECT last_insert_rowid()")[0]![0] as number;
      db.run("INSERT INTO visits (url, visit_time, from_visit, transition, segment_id, visit_duration) VALUES (?, ?, ?, ?, ?, ?)", [id, t, 0, 805306368, 0, 0]);
    }
    await ctx.env.files.upload(db.export(), join(await profileDir(ctx), "Default/History"), { signal: ctx.signal, createParents: true });
  } finally {
    db.close();
  }
}

/** The `update_browse_history` config type. */
export const updateBrowseHistoryType = defineConfigType({ name: "update_browse_history", parameters: historyParams, run: updateBrowseHistory });
