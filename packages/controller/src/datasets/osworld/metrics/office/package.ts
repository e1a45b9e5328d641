import { readFile } from "node:fs/promises";
import { posix } from "node:path";
import JSZip from "jszip";
import { kids, parseXml, type XEl } from "./xml.js";

/**
 * An Office Open XML package (a .docx or .pptx zip): its parts and their relationships, read the
 * way python-pptx and python-docx resolve them.
 */

/** One relationship of a part. `target` is the resolved part name (`ppt/slides/slide1.xml`). */
export interface Rel {
  id: string;
  type: string;
  target: string;
  external: boolean;
}

/** An opened package. */
export interface OoxmlPackage {
  /** A part's bytes, or `undefined` when the package has no such part. */
  bytes(part: string): Promise<Buffer | undefined>;
  /** A part parsed as XML, or `undefined` when absent. */
  xml(part: string): Promise<XEl | undefined>;
  /** A part's relationships in file order (`""` is the package itself). */
  rels(part: string): Promise<Rel[]>;
}

/** Thrown (and turned into a score of 0) where OSWorld's Python code would raise. */
export class PythonWouldRaise extends Error {}

function relsPartOf(part: string): string {
  if (part === "") return "_rels/.rels";
  return posix.join(posix.dirname(part), "_rels", `${posix.basename(part)}.rels`);
}

function resolveTarget(source: string, target: string): string {
  if (target.startsWith("/")) return target.slice(1);
  return posix.normalize(posix.join(posix.dirname(source) === "." ? "" : posix.dirname(source), target)).replace(/^\/+/, "");
}

/** Opens a package from a local path; `undefined` when it is missing or not a zip. */
export async function openPackage(path: string): Promise<OoxmlPackage | undefined> {
  let zip: JSZip;
  try {
    zip = await JSZip.loadAsync(await readFile(path));
  } catch {
    return undefined;
  }
  const xmlCache = new Map<string, Promise<XEl | undefined>>();
  const bytes = async (part: string) => {
    const f = zip.file(part);
    return f ? Buffer.from(await f.async("uint8array")) : undefined;
  };
  const xml = (part: string) => {
    let p = xmlCache.get(part);
    if (!p) {
      p = (async () => {
        const f = zip.file(part);
        return f ? parseXml(await f.async("string")) : undefined;
      })();
      xmlCache.set(part, p);
    }
    return p;
  };
  const rels = async (part: string): Promise<Rel[]> => {
    const root = await xml(relsPartOf(part));
    return kids(root, "Relationship").map((r) => {
      const external = r.attrs.TargetMode === "External";
      const target = r.attrs.Target ?? "";
      return { id: r.attrs.Id ?? "", type: r.attrs.Type ?? "", external, target: external ? target : resolveTarget(part, target) };
    });
  };
  return { bytes, xml, rels };
}

/** The part a relationship of `part` with id `rId` points to. */
export async function relTarget(pkg: OoxmlPackage, part: string, rId: string | undefined): Promise<string | undefined> {
  if (rId === undefined) return undefined;
  return (await pkg.rels(part)).find((r) => r.id === rId && !r.external)?.target;
}

/** The first part `part` relates to with a relationship type ending in `/kind` (`slideLayout`). */
export async function relOfType(pkg: OoxmlPackage, part: string, kind: string): Promise<string | undefined> {
  return (await pkg.rels(part)).find((r) => r.type.endsWith(`/${kind}`) && !r.external)?.target;
}
