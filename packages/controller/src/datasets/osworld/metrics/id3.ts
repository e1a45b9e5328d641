import { readFile } from "node:fs/promises";

/**
 * An MP3's ID3v2 text frames as mutagen's `EasyID3` names them (`title` is TIT2, `artist` TPE1, …):
 * each a list of strings (ID3v2.4 separates values with NUL). ID3v2.2's three-letter frames are
 * read under their v2.3 names, as mutagen upgrades them.
 */

/** EasyID3's keys for the text frames. */
const EASY: Record<string, string> = {
  TALB: "album",
  TBPM: "bpm",
  TCMP: "compilation",
  TCOM: "composer",
  TCOP: "copyright",
  TENC: "encodedby",
  TEXT: "lyricist",
  TLEN: "length",
  TMED: "media",
  TMOO: "mood",
  TIT1: "grouping",
  TIT2: "title",
  TIT3: "version",
  TPE1: "artist",
  TPE2: "albumartist",
  TPE3: "conductor",
  TPE4: "arranger",
  TPOS: "discnumber",
  TPUB: "organization",
  TRCK: "tracknumber",
  TOLY: "author",
  TSO2: "albumartistsort",
  TSOA: "albumsort",
  TSOC: "composersort",
  TSOP: "artistsort",
  TSOT: "titlesort",
  TSRC: "isrc",
  TSST: "discsubtitle",
  TLAN: "language",
  TCON: "genre",
  TDRC: "date",
  TDOR: "originaldate",
};

/** ID3v2.2 frame names and the v2.3 ones mutagen reads them as. */
const V22: Record<string, string> = {
  TAL: "TALB",
  TBP: "TBPM",
  TCM: "TCOM",
  TCO: "TCON",
  TCR: "TCOP",
  TEN: "TENC",
  TXT: "TEXT",
  TLE: "TLEN",
  TMT: "TMED",
  TT1: "TIT1",
  TT2: "TIT2",
  TT3: "TIT3",
  TP1: "TPE1",
  TP2: "TPE2",
  TP3: "TPE3",
  TP4: "TPE4",
  TPA: "TPOS",
  TPB: "TPUB",
  TRK: "TRCK",
  TOL: "TOLY",
  TRC: "TSRC",
  TLA: "TLAN",
  TYE: "TDRC",
};

const syncsafe = (b: Buffer, at: number) => ((b[at]! & 0x7f) << 21) | ((b[at + 1]! & 0x7f) << 14) | ((b[at + 2]! & 0x7f) << 7) | (b[at + 3]! & 0x7f);

/** A text frame's strings: its encoding byte, then the text (NUL-separated values, trailing NULs dropped). */
function textFrame(body: Buffer): string[] {
  const enc = body[0];
  const raw = body.subarray(1);
  let text: string;
  if (enc === 0) text = raw.toString("latin1");
  else if (enc === 3) text = raw.toString("utf8");
  else if (enc === 2) text = Buffer.from(raw).swap16().toString("utf16le");
  else {
    const even = raw.subarray(0, raw.length - (raw.length % 2));
    text = even.subarray(0, 2).equals(Buffer.from([0xfe, 0xff]))
      ? Buffer.from(even.subarray(2)).swap16().toString("utf16le")
      : even.subarray(even[0] === 0xff ? 2 : 0).toString("utf16le");
    // Each value of a UTF-16 frame may carry its own byte-order mark.
    text = text.replaceAll("\u0000\ufeff", "\u0000").replaceAll("\u0000\ufffe", "\u0000");
  }
  let end = text.length;
  while (end > 0 && text[end - 1] === "\u0000") end--;
  return text.slice(0, end).split("\u0000");
}

/** The file's EasyID3 text values by key; undefined when it has no ID3v2 tag (mutagen raises ID3NoHeaderError). */
export async function id3Text(path: string): Promise<Map<string, string[]> | undefined> {
  let b: Buffer;
  try {
    b = await readFile(path);
  } catch {
    return undefined;
  }
  if (b.length < 10 || b.toString("latin1", 0, 3) !== "ID3") return undefined;
  const version = b[3]!;
  const flags = b[5]!;
  const end = Math.min(b.length, 10 + syncsafe(b, 6));
  let at = 10;
  if (flags & 0x40 && version >= 3) at += version === 4 ? syncsafe(b, at) : 4 + b.readUInt32BE(at);
  const out = new Map<string, string[]>();
  const idLen = version === 2 ? 3 : 4;
  const headLen = version === 2 ? 6 : 10;
  while (at + headLen <= end) {
    let id = b.toString("latin1", at, at + idLen);
    if (!/^[A-Z0-9]+$/.test(id)) break;
    const size = version === 2 ? b.readUIntBE(at + 3, 3) : version === 4 ? syncsafe(b, at + 4) : b.readUInt32BE(at + 4);
    const body = b.subarray(at + headLen, at + headLen + size);
    at += headLen + size;
    if (version === 2) id = V22[id] ?? id;
    const key = EASY[id];
    if (key && body.length > 0) out.set(key, [...(out.get(key) ?? []), ...textFrame(body)]);
  }
  return out;
}
