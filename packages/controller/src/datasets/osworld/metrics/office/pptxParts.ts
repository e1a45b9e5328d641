import { openPackage, type OoxmlPackage, PythonWouldRaise, relOfType, relTarget } from "./package.js";
import { fillOf } from "./pptxShapes.js";
import { kid, kidPath, kids, type XEl } from "./xml.js";

/**
 * What OSWorld's slide-layout metrics read of a .pptx through python-pptx: the slide size, each
 * slide's pictures (with their image bytes and geometry) and background fill, and its layout's
 * master's background fill.
 */

/** A picture on a slide (`shape.shape_type == 13`): geometry in EMU (null when not set) and `image.blob`. */
export interface SlidePicture {
  left: number | null;
  top: number | null;
  width: number | null;
  height: number | null;
  blob(): Promise<Buffer>;
}

/** A background fill as python-pptx's `FillFormat` reads it. */
export interface BackgroundFill {
  /** MSO_FILL: 1 solid, 2 patterned, 3 gradient, 4 textured, 5 background (no fill), 6 picture, 7 group; null for none. */
  type: number | null;
  /** `fore_color.rgb` as "RRGGBB" when the solid fill's colour is an sRGB one, else null (`hasattr(color, "rgb")` is false). */
  rgb: string | null;
}

/** One slide. */
export interface SlideParts {
  pictures: SlidePicture[];
  /** `slide.background.fill` (a slide without its own `p:bgPr` counts as no fill). */
  background: BackgroundFill;
  /** `slide.slide_layout.slide_master.background.fill`. */
  masterBackground(): Promise<BackgroundFill>;
}

/** A presentation. */
export interface PresentationParts {
  slideWidth: number | null;
  slideHeight: number | null;
  slides: SlideParts[];
}

const FILL_TYPES: Record<string, number> = { "a:solidFill": 1, "a:pattFill": 2, "a:gradFill": 3, "a:blipFill": 6, "a:grpFill": 7, "a:noFill": 5 };
const intAttr = (v: string | undefined) => (v === undefined ? null : Number.parseInt(v, 10));

/** A `p:cSld`'s background: `p:bg/p:bgPr`'s fill, or no fill where python-pptx replaces a missing one. */
function backgroundOf(root: XEl | undefined): BackgroundFill {
  const bgPr = kidPath(root, "p:cSld", "p:bg", "p:bgPr");
  if (!bgPr) return { type: 5, rgb: null };
  const fill = fillOf(bgPr);
  if (!fill) return { type: null, rgb: null };
  const type = FILL_TYPES[fill.tag] ?? null;
  const srgb = type === 1 ? kids(fill)[0] : undefined;
  const val = srgb?.tag === "a:srgbClr" ? srgb.attrs.val : undefined;
  if (val !== undefined && !/^[0-9A-Fa-f]{6}$/.test(val)) throw new PythonWouldRaise(`a:srgbClr ${JSON.stringify(val)} is not a colour (python-pptx raises)`);
  return { type, rgb: val === undefined ? null : val.toUpperCase() };
}

function picturesOf(pkg: OoxmlPackage, part: string, root: XEl | undefined): SlidePicture[] {
  const pics = kids(kidPath(root, "p:cSld", "p:spTree"), "p:pic").filter(
    (p) => !kidPath(p, "p:nvPicPr", "p:nvPr", "p:ph") && !kidPath(p, "p:nvPicPr", "p:nvPr", "a:videoFile"),
  );
  return pics.map((p) => {
    const xfrm = kidPath(p, "p:spPr", "a:xfrm");
    const off = kid(xfrm, "a:off");
    const ext = kid(xfrm, "a:ext");
    return {
      left: intAttr(off?.attrs.x),
      top: intAttr(off?.attrs.y),
      width: intAttr(ext?.attrs.cx),
      height: intAttr(ext?.attrs.cy),
      blob: async () => {
        const target = await relTarget(pkg, part, kidPath(p, "p:blipFill", "a:blip")?.attrs["r:embed"]);
        const bytes = target ? await pkg.bytes(target) : undefined;
        if (!bytes) throw new PythonWouldRaise("a picture's image is missing (python-pptx raises)");
        return bytes;
      },
    };
  });
}

/** Opens a presentation; `undefined` when it is missing or not a readable .pptx. */
export async function readPresentationParts(path: string): Promise<PresentationParts | undefined> {
  const pkg = await openPackage(path);
  if (!pkg) return undefined;
  const presPart = await relOfType(pkg, "", "officeDocument");
  const pres = presPart ? await pkg.xml(presPart).catch(() => undefined) : undefined;
  if (!presPart || !pres || pres.tag !== "p:presentation") return undefined;
  const size = kid(pres, "p:sldSz");
  const slides: SlideParts[] = [];
  for (const id of kids(kid(pres, "p:sldIdLst"), "p:sldId")) {
    const part = await relTarget(pkg, presPart, id.attrs["r:id"]);
    if (!part) throw new PythonWouldRaise(`slide ${id.attrs["r:id"]} is missing (python-pptx raises)`);
    const root = await pkg.xml(part);
    slides.push({
      pictures: picturesOf(pkg, part, root),
      background: backgroundOf(root),
      masterBackground: async () => {
        const layout = await relOfType(pkg, part, "slideLayout");
        const master = layout ? await relOfType(pkg, layout, "slideMaster") : undefined;
        if (!master) throw new PythonWouldRaise("the slide has no layout or master (python-pptx raises)");
        return backgroundOf(await pkg.xml(master));
      },
    });
  }
  return { slideWidth: intAttr(size?.attrs.cx), slideHeight: intAttr(size?.attrs.cy), slides };
}
