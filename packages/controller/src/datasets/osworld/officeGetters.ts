import { readFile } from "node:fs/promises";
import { join, posix } from "node:path";
import JSZip from "jszip";
import { z } from "zod";
import { destName, writeCacheFile } from "./cacheFiles.js";
import type { OsworldContext } from "./context.js";
import { defineGetter, type OsworldGetter } from "./getter.js";
import { fetchToCache } from "./machineGetters.js";
import { descendants, kids, parseXml } from "./metrics/office/xml.js";

/**
 * OSWorld's getters of a slide's media (getters/impress.py): the background image or the audio
 * of one slide of a .pptx on the machine — extracted from the file when it is embedded, fetched
 * from the machine when the slide links to a `file://` path.
 */

const config = z.looseObject({
  ppt_file_path: z.string().min(1),
  slide_index: z.union([z.number().int(), z.string().regex(/^\s*[-+]?\d+\s*$/)]).transform(Number),
  dest: destName,
});
type Config = z.infer<typeof config>;

/**
 * The target of the slide's first relationship `pick` accepts: an embedded part is extracted into
 * the cache folder (under its path in the zip), a `file://` target fetched from the machine as
 * `dest`; null when there is none.
 */
async function slideMedia(
  c: Config,
  ctx: OsworldContext,
  pick: (zip: JSZip, slide: string) => Promise<{ Id?: string; Type?: string; Target?: string } | null | undefined>,
): Promise<string | null> {
  const pptx = await fetchToCache(ctx, c.ppt_file_path, posix.basename(c.ppt_file_path));
  if (pptx === null) throw new Error(`${c.ppt_file_path} is not on the machine (OSWorld's zipfile raises)`);
  const zip = await JSZip.loadAsync(await readFile(pptx));
  const rel = await pick(zip, `ppt/slides/slide${c.slide_index + 1}.xml`);
  if (!rel) return null;
  const target = rel.Target ?? "";
  if (target.startsWith("..")) {
    const inZip = posix.normalize(posix.join("ppt/slides", target));
    const file = zip.file(inZip);
    if (!file) throw new Error(`${inZip} is not in ${c.ppt_file_path} (OSWorld's extract raises KeyError)`);
    // The part's name comes from the file on the machine: it is confined to the cache folder like a task's paths.
    await writeCacheFile(ctx, inZip, await file.async("uint8array"), "the slide's relationship target");
    return join(ctx.cacheDir, inZip);
  }
  if (!target.startsWith("file://"))
    throw new Error(`the slide's media target ${JSON.stringify(target)} is neither in the file nor a file:// path (OSWorld asserts)`);
  return fetchToCache(ctx, target.slice(7), c.dest);
}

/** The relationships of a slide, in file order (null when the slide has no relationships part). */
async function slideRels(zip: JSZip, slide: string): Promise<Array<Record<string, string>> | null> {
  const f = zip.file(`${posix.dirname(slide)}/_rels/${posix.basename(slide)}.rels`);
  if (!f) return null;
  return kids(parseXml(await f.async("string")), "Relationship").map((r) => r.attrs);
}

/** `get_background_image_in_slide`: the image a `p:bgPr` of the slide shows (its first `a:blip`). */
async function backgroundImage(c: Config, ctx: OsworldContext): Promise<string | null> {
  return slideMedia(c, ctx, async (zip, slide) => {
    const f = zip.file(slide);
    if (!f) return null;
    const root = parseXml(await f.async("string"));
    const id = descendants(root, "p:bgPr")
      .map((bg) => descendants(bg, "a:blip")[0]?.attrs["r:embed"])
      .find((v) => v !== undefined);
    if (id === undefined) return null;
    return (await slideRels(zip, slide))?.find((r) => (r.Type ?? "").includes("image") && r.Id === id);
  });
}

/** `get_audio_in_slide`: the slide's first audio relationship. */
async function audio(c: Config, ctx: OsworldContext): Promise<string | null> {
  return slideMedia(c, ctx, async (zip, slide) => (await slideRels(zip, slide))?.find((r) => (r.Type ?? "").includes("audio")));
}

/** The slide media getters. */
export const officeGetters: OsworldGetter[] = [
  defineGetter({ name: "background_image_in_slide", config, get: backgroundImage }),
  defineGetter({ name: "audio_in_slide", config, get: audio }),
];
