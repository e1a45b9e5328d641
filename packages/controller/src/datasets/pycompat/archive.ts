import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { gunzipSync } from "node:zlib";

/**
 * Unpacking archives as Python's `shutil.unpack_archive` does for zip and tar (plain or gzip):
 * entries whose names are absolute or contain ".." are skipped (as shutil does for zip), links and
 * devices are not created. bzip2 and xz tarballs are refused (Node has no decoder for them).
 */

/** One member: its path inside the archive ("/"-separated) and its bytes, or a directory. */
interface Member {
  name: string;
  dir: boolean;
  data?: Uint8Array;
}

function unsafe(name: string): boolean {
  return name.startsWith("/") || name.includes("..");
}

async function zipMembers(data: Buffer): Promise<Member[]> {
  const { default: JSZip } = await import("jszip");
  const zip = await JSZip.loadAsync(data);
  const out: Member[] = [];
  for (const entry of Object.values(zip.files)) {
    out.push(entry.dir ? { name: entry.name, dir: true } : { name: entry.name, dir: false, data: await entry.async("uint8array") });
  }
  return out;
}

/** A tar header's number: octal text, or base-256 when the first byte has its high bit set. */
function tarNumber(field: Uint8Array): number {
  if (field[0]! & 0x80) return field.subarray(1).reduce((n, b) => n * 256 + b, field[0]! & 0x7f);
  const text = new TextDecoder().decode(field).replace(/\0.*$/s, "").trim();
  return text ? Number.parseInt(text, 8) : 0;
}

const cstring = (field: Uint8Array) => new TextDecoder().decode(field).replace(/\0.*$/s, "");

/** The `path` record of a pax extended header, if any. */
function paxPath(data: Uint8Array): string | undefined {
  const text = new TextDecoder().decode(data);
  for (const m of text.matchAll(/^\d+ path=(.*)$/gm)) return m[1];
  return undefined;
}

function tarMembers(data: Uint8Array): Member[] {
  const out: Member[] = [];
  let longName: string | undefined;
  for (let off = 0; off + 512 <= data.length; ) {
    const h = data.subarray(off, off + 512);
    if (h.every((b) => b === 0)) break;
    const size = tarNumber(h.subarray(124, 136));
    const type = String.fromCharCode(h[156]!);
    const body = data.subarray(off + 512, off + 512 + size);
    off += 512 + Math.ceil(size / 512) * 512;
    if (type === "L" || type === "x") {
      longName = type === "L" ? cstring(body) : (paxPath(body) ?? longName);
      continue;
    }
    if (type === "g") continue;
    const prefix = h[257] === 0x75 && cstring(h.subarray(257, 262)) === "ustar" ? cstring(h.subarray(345, 500)) : "";
    const name = longName ?? (prefix ? `${prefix}/${cstring(h.subarray(0, 100))}` : cstring(h.subarray(0, 100)));
    longName = undefined;
    if (type === "5") out.push({ name, dir: true });
    else if (type === "0" || type === "\0" || type === "7") out.push({ name, dir: false, data: body });
  }
  return out;
}

/** Extracts the archive at `path` into `dest` (created); throws for a format it cannot read. */
export async function unpackArchive(path: string, dest: string): Promise<void> {
  const raw = await readFile(path);
  let members: Member[];
  if (raw[0] === 0x50 && raw[1] === 0x4b) members = await zipMembers(raw);
  else {
    if (raw[0] === 0x42 && raw[1] === 0x5a && raw[2] === 0x68) throw new Error("bzip2-compressed tar archives are not supported");
    if (raw[0] === 0xfd && raw[1] === 0x37 && raw[2] === 0x7a) throw new Error("xz-compressed tar archives are not supported");
    const tar = raw[0] === 0x1f && raw[1] === 0x8b ? gunzipSync(raw) : raw;
    if (tar.length < 512 || (cstring(tar.subarray(257, 262)) !== "ustar" && !tarChecksumOk(tar.subarray(0, 512)))) {
      throw new Error(`${path} is not a zip or tar archive`);
    }
    members = tarMembers(tar);
  }
  await mkdir(dest, { recursive: true });
  for (const m of members) {
    const parts = m.name.split("/").filter((p) => p !== "" && p !== ".");
    if (unsafe(m.name) || parts.length === 0) continue;
    const target = join(dest, ...parts);
    if (m.dir) await mkdir(target, { recursive: true });
    else {
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, m.data ?? new Uint8Array());
    }
  }
}

/** A pre-POSIX tar header is recognised by its checksum (the header's bytes summed, the checksum field as spaces). */
function tarChecksumOk(h: Uint8Array): boolean {
  let sum = 0;
  for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 32 : h[i]!;
  return sum === tarNumber(h.subarray(148, 156));
}
