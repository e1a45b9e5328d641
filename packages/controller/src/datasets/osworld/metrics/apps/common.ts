import { readFile, stat } from "node:fs/promises";
import { openPilImage, type PilImage } from "../../../pycompat/pilImage.js";
import { decodePyText } from "../../../pycompat/pyStr.js";

/** Reading the files the apps' getters fetched: a missing file is null (OSWorld would fail opening it; the metric scores 0). */

/** The file's bytes, or null when it does not exist (or is a directory). */
export async function readBytes(path: string): Promise<Buffer | null> {
  try {
    return await readFile(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT" || (e as NodeJS.ErrnoException).code === "EISDIR") return null;
    throw e;
  }
}

/** The file's size in bytes (`os.path.getsize`), or null when it does not exist. */
export async function fileSize(path: string): Promise<number | null> {
  try {
    return (await stat(path)).size;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw e;
  }
}

/**
 * The file as Python's `open(path).read()` gives it (UTF-8, universal newlines unless
 * `universalNewlines` is false), or null when it does not exist or is not valid UTF-8 (where Python raises).
 */
export async function readText(path: string, universalNewlines = true): Promise<string | null> {
  const bytes = await readBytes(path);
  if (bytes === null) return null;
  try {
    return decodePyText(bytes, universalNewlines);
  } catch {
    return null;
  }
}

/** `Image.open(path)` (pycompat/pilImage.ts), or null when there is no file; throws when it is not an image. */
export async function openImageFile(path: string): Promise<PilImage | null> {
  const bytes = await readBytes(path);
  return bytes === null ? null : openPilImage(bytes);
}
