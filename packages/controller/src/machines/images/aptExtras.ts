/**
 * What `pincer image build` installs beyond Debian's archive: extra apt sources (`--apt-source`), the
 * keys that sign them (`--apt-key`), and local .deb files (`--deb`). All of it is checked before
 * anything is built, and digested into the image's key: a changed .deb, key, source or local
 * repository gives a new image, the same ones the cached image.
 *
 * In the image, sources on the network stay (in /etc/apt/sources.list.d/pincer.list or
 * pincer.sources, signed-by their keys in /etc/apt/keyrings), so `apt-get update` works there later;
 * file: sources name folders of the build host, and are removed once the packages are installed.
 */

import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { copyFile, mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { basename, join, resolve } from "node:path";
import { FailedPreconditionError, InvalidArgumentError } from "@pincer/shared";
import { execa } from "execa";
import {
  type AptSource,
  keepUris,
  localFolder,
  quote,
  readSourceArg,
  renderSources,
  signedByOf,
  SOURCE_FORM,
  suitesOf,
  urisOf,
  withSignedBy,
} from "./aptSources.js";

/** Where the image keeps the keys of its extra sources. */
export const KEYRING_DIR = "/etc/apt/keyrings";

/** An `--apt-key` file: an OpenPGP public key, as apt reads it from `signed-by`. */
export interface AptKey {
  file: string;
  /** Its name in {@link KEYRING_DIR}: .asc if ASCII-armored (apt needs the extension to read it so), else .gpg. */
  name: string;
  sha256: string;
}

/** A `--deb` file, by the fields of its control file. */
export interface LocalDeb {
  file: string;
  package: string;
  version: string;
  architecture: string;
  sha256: string;
}

/** Checked extra inputs of an image build. */
export interface AptExtras {
  keys: AptKey[];
  /** The sources; a signed-by names its key by its name in {@link KEYRING_DIR}. */
  sources: AptSource[];
  debs: LocalDeb[];
  /** The folders of the build host that file: sources name (none inside another). */
  localFolders: string[];
  /** What the image's key digests. */
  digest: object;
  /** The options as given, for the image's manifest. */
  given: { aptSources: string[]; aptKeys: string[]; debs: string[] };
}

/** Options of {@link readAptExtras}: the values of `--apt-source`, `--apt-key` and `--deb`. */
export interface AptExtrasOptions {
  aptSources?: readonly string[];
  aptKeys?: readonly string[];
  debs?: readonly string[];
}

const MAX_KEY_BYTES = 1 << 20;

/** A file's SHA-256 (hex), read as a stream. */
export async function fileSha256(file: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

async function checkFile(flag: string, file: string): Promise<number> {
  try {
    const s = await stat(file);
    if (!s.isFile()) throw new InvalidArgumentError(`${flag} ${file}: not a file`);
    return s.size;
  } catch (e) {
    if (e instanceof InvalidArgumentError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    throw new InvalidArgumentError(`${flag} ${file}: ${code === "ENOENT" ? "no such file" : `cannot read it (${code ?? String(e)})`}`);
  }
}

/** The OpenPGP packet tag of the first packet in `bytes` (6: public key, 5: secret key), or undefined. */
function firstPacketTag(bytes: Uint8Array): number | undefined {
  const b = bytes[0];
  if (b === undefined || (b & 0x80) === 0) return undefined;
  return b & 0x40 ? b & 0x3f : (b >> 2) & 0x0f;
}

const PRIVATE = "a private key: give its public key (gpg --export KEYID > key.gpg, or gpg --armor --export KEYID > key.asc)";

/** "armored" or "binary" for an OpenPGP public key, else what the file is instead. */
function keyKind(bytes: Buffer): { kind: "armored" | "binary" } | { problem: string } {
  const text = bytes.subarray(0, 4096).toString("latin1").trimStart();
  if (text.startsWith("-----BEGIN PGP PRIVATE KEY BLOCK-----")) return { problem: PRIVATE };
  if (text.startsWith("-----BEGIN PGP PUBLIC KEY BLOCK-----")) {
    // The armor's body: base64 lines after the header lines and the blank line, up to the checksum.
    const body = bytes.toString("latin1").trimStart().split(/\r?\n/);
    const start = body.findIndex((l) => l.trim() === "");
    const end = body.findIndex((l, i) => i > start && (l.startsWith("=") || l.startsWith("-----END")));
    const packets = Buffer.from(body.slice(start + 1, end).join(""), "base64");
    if (start > 0 && end > start && firstPacketTag(packets) === 6) return { kind: "armored" };
    return { problem: "an armored block that does not hold a public key (is the file cut short?)" };
  }
  if (text.startsWith("-----BEGIN")) return { problem: `an armored ${quote(text.split(/\r?\n/)[0]!)}, not a public key` };
  if (bytes.subarray(8, 12).toString("latin1") === "KBXf")
    return { problem: "a GnuPG keybox, which apt cannot read: export the key with gpg --export KEYID > key.gpg" };
  const tag = firstPacketTag(bytes);
  if (tag === 6) return { kind: "binary" };
  if (tag === 5) return { problem: PRIVATE };
  return { problem: "neither an ASCII-armored public key (-----BEGIN PGP PUBLIC KEY BLOCK-----) nor a binary one" };
}

async function readKey(given: string): Promise<AptKey> {
  const file = resolve(given);
  const size = await checkFile("--apt-key", file);
  if (size > MAX_KEY_BYTES) throw new InvalidArgumentError(`--apt-key ${given}: ${size} bytes is too large for a key`);
  const bytes = await readFile(file);
  const k = keyKind(bytes);
  if ("problem" in k) throw new InvalidArgumentError(`--apt-key ${given}: not an OpenPGP public key: ${k.problem}`);
  const stem = basename(file)
    .replace(/\.(asc|gpg|pub|key|pgp)$/i, "")
    .replace(/[^A-Za-z0-9._-]/g, "_");
  return { file, name: `${stem}.${k.kind === "armored" ? "asc" : "gpg"}`, sha256: createHash("sha256").update(bytes).digest("hex") };
}

/** The source with its signed-by pointing at one of `keys` by name. */
function bindKey(s: AptSource, keys: readonly AptKey[]): AptSource {
  const value = signedByOf(s);
  if (value === undefined) return s;
  // deb822 may hold the key itself (an armored block on continuation lines): it needs no file.
  if (value.includes("\n")) {
    if (!value.includes("BEGIN PGP PUBLIC KEY BLOCK"))
      throw new InvalidArgumentError(`--apt-source ${s.origin}: Signed-By spans lines but is not a public key block`);
    return s;
  }
  const items = value.split(/[,\s]+/).filter(Boolean);
  if (items.length !== 1) throw new InvalidArgumentError(`--apt-source ${s.origin}: signed-by names ${items.length} keys; give one key file per source`);
  const item = items[0]!;
  const key = keys.find((k) => k.file === resolve(item) || basename(k.file) === basename(item) || k.name === basename(item));
  if (!key) {
    throw new InvalidArgumentError(
      `--apt-source ${s.origin}: signed-by=${quote(item)} is not one of the --apt-key files; add --apt-key ${item} (the key file, ASCII-armored or binary)`,
    );
  }
  return withSignedBy(s, key.name);
}

async function readDeb(given: string, arch: () => Promise<string>): Promise<LocalDeb> {
  const file = resolve(given);
  await checkFile("--deb", file);
  const r = await execa("dpkg-deb", ["--field", file, "Package", "Version", "Architecture"], { reject: false });
  if ((r as { code?: string }).code === "ENOENT") throw new FailedPreconditionError("dpkg-deb is not installed: apt-get install dpkg (it reads --deb files)");
  if (r.exitCode !== 0) {
    const why = r.stderr.split("\n")[0]?.replace(/^dpkg-deb: error: /, "") ?? "";
    throw new InvalidArgumentError(`--deb ${given}: not a Debian package (dpkg-deb: ${why.slice(0, 200)}); give a .deb file`);
  }
  const fields: Record<string, string> = {};
  for (const l of r.stdout.split("\n")) {
    const fm = /^([A-Za-z-]+): (.*)$/.exec(l);
    if (fm) fields[fm[1]!] = fm[2]!;
  }
  const [pkg, version, architecture] = [fields.Package, fields.Version, fields.Architecture];
  if (!pkg || !version || !architecture) throw new InvalidArgumentError(`--deb ${given}: its control file lacks Package, Version or Architecture`);
  const native = await arch();
  if (architecture !== "all" && architecture !== native) {
    throw new InvalidArgumentError(`--deb ${given}: package ${pkg} is for ${architecture}; the image is ${native} (give a ${native} or "all" package)`);
  }
  return { file, package: pkg, version, architecture, sha256: await fileSha256(file) };
}

/** A digest of a file: repository's index (its InRelease or Release), which changes with what it holds. */
async function localRepositoryDigest(folder: string, suite: string, origin: string): Promise<string> {
  const base = suite.endsWith("/") ? join(folder, suite) : join(folder, "dists", suite);
  const hash = createHash("sha256");
  let found = false;
  for (const name of ["InRelease", "Release"]) {
    const bytes = await readFile(join(base, name)).catch(() => undefined);
    if (bytes) {
      hash.update(`${name}\0`).update(bytes);
      found = true;
    }
  }
  if (!found) {
    throw new InvalidArgumentError(
      `--apt-source ${origin}: no InRelease or Release file in ${base}: not an apt repository ` +
        "(index it with dpkg-scanpackages and write its Release, or use apt-ftparchive)",
    );
  }
  return hash.digest("hex");
}

async function checkFolder(folder: string, origin: string): Promise<void> {
  if (folder.includes("\n")) throw new InvalidArgumentError(`--apt-source ${origin}: a file: folder's name holds a line break`);
  const s = await stat(folder).catch(() => undefined);
  if (!s?.isDirectory())
    throw new InvalidArgumentError(`--apt-source ${origin}: ${folder} is not a folder on this computer (file: sources are read at build time)`);
}

/** The extra inputs, checked; undefined when none is given (the image's key is then as without this feature). */
export async function readAptExtras(o: AptExtrasOptions): Promise<AptExtras | undefined> {
  const given = { aptSources: [...(o.aptSources ?? [])], aptKeys: [...(o.aptKeys ?? [])], debs: [...(o.debs ?? [])] };
  if (given.aptSources.length + given.aptKeys.length + given.debs.length === 0) return undefined;
  const keys: AptKey[] = [];
  for (const k of given.aptKeys) {
    const key = await readKey(k);
    const clash = keys.find((x) => x.name === key.name);
    if (clash && clash.sha256 !== key.sha256) throw new InvalidArgumentError(`--apt-key ${k}: another key is also named ${key.name}; rename one of them`);
    if (!clash) keys.push(key);
  }
  const sources: AptSource[] = [];
  for (const arg of given.aptSources) for (const s of await readSourceArg(arg)) sources.push(bindKey(s, keys));
  for (const key of keys) {
    if (!sources.some((s) => signedByOf(s) === key.name)) {
      throw new InvalidArgumentError(
        `--apt-key ${key.file}: no --apt-source is signed-by it; write [signed-by=${basename(key.file)}] in the source it signs, as in ${SOURCE_FORM}`,
      );
    }
  }
  const local: [string, string, string][] = [];
  for (const s of sources) {
    for (const uri of urisOf(s)) {
      const folder = localFolder(uri, s.origin);
      if (folder === undefined) continue;
      await checkFolder(folder, s.origin);
      for (const suite of suitesOf(s)) local.push([folder, suite, await localRepositoryDigest(folder, suite, s.origin)]);
    }
  }
  let native: Promise<string> | undefined;
  const arch = () => (native ??= execa("dpkg", ["--print-architecture"]).then((r) => r.stdout.trim()));
  const debs: LocalDeb[] = [];
  for (const d of given.debs) {
    const deb = await readDeb(d, arch);
    const same = debs.find((x) => x.package === deb.package);
    if (same) throw new InvalidArgumentError(`--deb ${d}: ${same.file} is package ${deb.package} too; give one file per package`);
    debs.push(deb);
  }
  const folders = [...new Set(local.map(([f]) => f))].sort();
  const localFolders = folders.filter((f) => !folders.some((g) => g !== f && f.startsWith(`${g}/`)));
  return {
    keys,
    sources,
    debs,
    localFolders,
    digest: {
      sources: renderSources(sources),
      keys: keys.map((k) => [k.name, k.sha256]).sort(),
      debs: debs.map((d) => [d.package, d.version, d.architecture, d.sha256]).sort(),
      local,
    },
    given,
  };
}

/** The sources with each signed-by key name made a path under `keyDir`. */
function sourcesWithKeysIn(sources: readonly AptSource[], keyDir: string): AptSource[] {
  return sources.map((s) => {
    const v = signedByOf(s);
    return v !== undefined && !v.includes("\n") ? withSignedBy(s, `${keyDir}/${v}`) : s;
  });
}

/** Files of {@link stageAptExtras}, all under its folder. */
export interface StagedExtras {
  dir: string;
  /** The .deb copies, each named after its package. */
  debs: string[];
  /** Sources apt reads while the image is built: signed-by the staged keys, file: sources included. */
  build: { list: string; deb822: string };
  /**
   * Sources the image keeps, one file each (pincer-1.list, pincer-2.sources, …) in final/: signed-by
   * keys in /etc/apt/keyrings, file: sources left out.
   */
  final: { name: string; text: string }[];
  keys: string[];
}

/** Where {@link stageAptExtras} puts each file in `dir`, and the sources it writes. */
export function stagedLayout(x: AptExtras, dir: string): StagedExtras {
  const kept = x.sources.flatMap((s) => keepUris(s, (uri) => localFolder(uri, s.origin) === undefined) ?? []);
  return {
    dir,
    debs: x.debs.map((d) => join(dir, "debs", `${d.package}.deb`)),
    build: renderSources(sourcesWithKeysIn(x.sources, join(dir, "keyrings"))),
    final: sourcesWithKeysIn(kept, KEYRING_DIR).map((s, i) => {
      const { list, deb822 } = renderSources([s]);
      return s.kind === "one-line" ? { name: `pincer-${i + 1}.list`, text: list } : { name: `pincer-${i + 1}.sources`, text: deb822 };
    }),
    keys: x.keys.map((k) => join(dir, "keyrings", k.name)),
  };
}

async function copyChecked(from: string, to: string, sha256: string, flag: string): Promise<void> {
  await copyFile(from, to);
  if ((await fileSha256(to)) !== sha256) throw new InvalidArgumentError(`${flag} ${from} changed during the build; build again`);
}

/**
 * Copies the keys and .deb files into `dir`, checking they are what the image's key digests, and
 * writes the sources for the build (build.list, build.sources) and for the image (final/).
 */
export async function stageAptExtras(x: AptExtras, dir: string): Promise<StagedExtras> {
  const staged = stagedLayout(x, dir);
  await mkdir(join(dir, "keyrings"), { recursive: true });
  await mkdir(join(dir, "debs"), { recursive: true });
  for (const [i, k] of x.keys.entries()) await copyChecked(k.file, staged.keys[i]!, k.sha256, "--apt-key");
  for (const [i, d] of x.debs.entries()) await copyChecked(d.file, staged.debs[i]!, d.sha256, "--deb");
  await mkdir(join(dir, "final"), { recursive: true });
  const texts = {
    "build.list": staged.build.list,
    "build.sources": staged.build.deb822,
    ...Object.fromEntries(staged.final.map((f) => [`final/${f.name}`, f.text])),
  };
  for (const [name, text] of Object.entries(texts)) await writeFile(join(dir, name), text);
  return staged;
}
