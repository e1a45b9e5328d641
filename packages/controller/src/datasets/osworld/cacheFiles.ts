import { createReadStream } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { type LocalFileProblem, localFileProblem, relativePathProblem, withLocalFileRead, withLocalFileWrite, writeLocalFile } from "../../env/localRoot.js";
import type { OsworldContext } from "./context.js";

/**
 * The attempt's cache folder, where an OSWorld task's steps and getters write on the controller
 * (`execute`'s stdout and stderr, getters' `dest`) and `cache_file` reads. Every name a task file
 * gives is confined to it by the daemon's jail at the open: `..` and absolute paths are refused,
 * and so is a symlink on the way that leads out or one where a file is written.
 */

/** What messages call the folder. */
export const CACHE_FOLDER = "the attempt's cache folder";

/** A path in the cache folder, as a task file writes it: relative, and not leaving the folder. */
export const cachePath = z
  .string()
  .min(1)
  .superRefine((p, c) => {
    const problem = relativePathProblem(p, CACHE_FOLDER);
    if (problem) c.addIssue({ code: "custom", message: problem });
  });

/** A file name in the cache folder (OSWorld's `dest`): one name, without '/'. */
export const destName = z
  .string()
  .min(1)
  .regex(/^(?!\.\.?$)[^/]+$/, "dest is a file name in the cache folder, without '/'");

const options = (field: string) => ({ field, what: CACHE_FOLDER });

/** Writes `data` as the cache-folder file `name` names (`field`: the parameter that named it). */
export function writeCacheFile(
  ctx: OsworldContext,
  name: string,
  data: string | Uint8Array | NodeJS.ReadableStream | AsyncIterable<Uint8Array>,
  field: string,
): Promise<void> {
  return writeLocalFile(ctx.cacheDir, name, data, options(field));
}

/** Downloads `remote` from the machine as the cache-folder file `name`; returns its local path. */
export async function downloadToCache(ctx: OsworldContext, remote: string, name: string, field = "dest"): Promise<string> {
  await withLocalFileWrite(ctx.cacheDir, name, options(field), (at) => ctx.env.files.download(remote, at, { signal: ctx.signal }));
  return join(ctx.cacheDir, name);
}

/** Copies a local file the controller owns (the download cache's) as the cache-folder file `name`; returns its local path. */
export async function copyToCache(ctx: OsworldContext, source: string, name: string, field = "dest"): Promise<string> {
  await writeLocalFile(ctx.cacheDir, name, createReadStream(source), options(field));
  return join(ctx.cacheDir, name);
}

/** Reads the cache-folder file `name`, confined to the folder at the open. */
export function readCacheFile<T>(ctx: OsworldContext, name: string, field: string, fn: (at: string) => Promise<T>): Promise<T> {
  return withLocalFileRead(ctx.cacheDir, name, options(field), fn);
}

/** Why the cache-folder file `name` may not be read (it leads out, is missing, not a file), or undefined. */
export function cacheFileProblem(ctx: OsworldContext, name: string, field: string): LocalFileProblem | undefined {
  return localFileProblem(ctx.cacheDir, name, options(field));
}
