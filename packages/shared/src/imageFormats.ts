/**
 * The screenshot image formats, one table for the daemon and the controller: each format's name,
 * its wire enum value (`pincer.v1.ImageFormat`), its MIME type and its file extension.
 */
import type { ImageFormat__Output as WireImageFormat } from "./generated/pincer/v1/ImageFormat.js";

/** A screenshot's format: encoded PNG, JPEG or WebP, or raw RGB bytes (3 a pixel, rows top to bottom). */
export type ImageFormat = "png" | "jpeg" | "webp" | "raw";

/** What one {@link ImageFormat} is on the wire, as a MIME type and as a file extension. */
export interface ImageFormatInfo {
  /** The wire enum value, e.g. "IMAGE_FORMAT_PNG". */
  readonly wire: WireImageFormat;
  /** The MIME type, e.g. "image/png"; raw RGB is "application/octet-stream". */
  readonly mimeType: string;
  /** The file extension without its dot, e.g. "png", "jpg". */
  readonly extension: string;
}

/** Every screenshot format, with its wire value, MIME type and file extension. */
export const IMAGE_FORMATS: Readonly<Record<ImageFormat, ImageFormatInfo>> = {
  png: { wire: "IMAGE_FORMAT_PNG", mimeType: "image/png", extension: "png" },
  jpeg: { wire: "IMAGE_FORMAT_JPEG", mimeType: "image/jpeg", extension: "jpg" },
  webp: { wire: "IMAGE_FORMAT_WEBP", mimeType: "image/webp", extension: "webp" },
  raw: { wire: "IMAGE_FORMAT_RAW_RGB", mimeType: "application/octet-stream", extension: "rgb" },
};

/** The encoded (compressed) formats: every format but raw RGB. */
export const ENCODED_IMAGE_FORMATS = ["png", "jpeg", "webp"] as const satisfies readonly ImageFormat[];

const BY_WIRE = new Map<string, ImageFormat>(Object.entries(IMAGE_FORMATS).map(([name, info]) => [info.wire, name as ImageFormat]));
const BY_MIME = new Map<string, ImageFormat>(Object.entries(IMAGE_FORMATS).map(([name, info]) => [info.mimeType, name as ImageFormat]));

/**
 * The format a wire enum value names; "IMAGE_FORMAT_UNSPECIFIED" (proto3's default, a request that
 * names none) is PNG. Undefined for a value this version does not know.
 */
export function imageFormatOfWire(value: string): ImageFormat | undefined {
  return value === "IMAGE_FORMAT_UNSPECIFIED" ? "png" : BY_WIRE.get(value);
}

/** The format of a MIME type ("image/png" → "png"), or undefined for one that is no screenshot format. */
export function imageFormatOfMime(mimeType: string): ImageFormat | undefined {
  return BY_MIME.get(mimeType);
}

/** The MIME type the image bytes really are (by their signature), else `declared`. */
export function imageMimeType(data: Buffer, declared: string): string {
  if (data.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return IMAGE_FORMATS.png.mimeType;
  if (data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff) return IMAGE_FORMATS.jpeg.mimeType;
  if (data.subarray(0, 4).toString("latin1") === "RIFF" && data.subarray(8, 12).toString("latin1") === "WEBP") return IMAGE_FORMATS.webp.mimeType;
  return declared;
}
