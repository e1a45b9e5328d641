/**
 * Extra apt sources of `pincer image build --apt-source`: one-line entries ("deb [options] URI SUITE
 * COMPONENT...", given as an argument or in a .list file) and deb822 stanzas (a .sources file). They
 * are parsed so that a malformed one is refused before anything is built, their signed-by can be
 * pointed at the keys Pincer copies into the image, and the ones naming a folder of the build host
 * (file: URIs) can be left out of the image.
 */

import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { InvalidArgumentError } from "@pincer/shared";

/** An option of a one-line entry, as in `[arch=amd64 signed-by=/etc/apt/keyrings/x.gpg]`. */
export interface AptOption {
  name: string;
  op: "=" | "+=" | "-=";
  value: string;
}

/** One entry of the one-line format. */
export interface OneLineSource {
  kind: "one-line";
  type: "deb" | "deb-src";
  options: AptOption[];
  uri: string;
  suite: string;
  components: string[];
  /** Where it was given: the argument, or file:line. */
  origin: string;
}

/** One stanza of the deb822 format, its fields in order; a value keeps its continuation lines. */
export interface Deb822Source {
  kind: "deb822";
  fields: [string, string][];
  origin: string;
}

/** An extra apt source. */
export type AptSource = OneLineSource | Deb822Source;

/** How a source is written: a line, or `"deb [signed-by=KEYFILE] URI SUITE COMPONENT..."`. */
export const SOURCE_FORM = '"deb [signed-by=KEYFILE] URI SUITE COMPONENT..." (or the path of a .list or .sources file)';

function fail(origin: string, problem: string): never {
  throw new InvalidArgumentError(`--apt-source ${origin}: ${problem}; write it as ${SOURCE_FORM}`);
}

/** Quotes user text for a message, cut to a readable length. */
export function quote(text: string): string {
  return JSON.stringify(text.length > 160 ? `${text.slice(0, 160)}…` : text);
}

const URI = /^[a-z][a-z0-9+.-]*:\S+$/i;

function checkSuite(origin: string, suite: string, components: readonly string[]): void {
  // apt: a suite ending in "/" is an exact path (a flat repository) and takes no components.
  if (suite.endsWith("/") && components.length > 0) fail(origin, `suite ${quote(suite)} is an exact path (it ends in "/") and takes no components`);
  if (!suite.endsWith("/") && components.length === 0) fail(origin, `no component after suite ${quote(suite)} (e.g. main)`);
}

/** Parses one one-line entry ("deb [options] URI SUITE [COMPONENT...]"). */
export function parseOneLine(line: string, origin: string): OneLineSource {
  const m = /^(deb|deb-src)\s+(?:\[([^\]]*)\]\s*)?(\S+)(?:\s+(\S+))?((?:\s+\S+)*)\s*$/.exec(line.trim());
  if (!m) fail(origin, "not a source line");
  const [, type, opts, uri, suite, rest] = m as unknown as [string, "deb" | "deb-src", string | undefined, string, string | undefined, string];
  if (!URI.test(uri)) fail(origin, `${quote(uri)} is not a URI (such as https://dl.google.com/linux/chrome/deb/ or file:/srv/repo)`);
  if (!suite) fail(origin, `no suite after ${quote(uri)}`);
  const options = (opts ?? "")
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .map((o) => {
      const om = /^([A-Za-z][A-Za-z-]*)(=|\+=|-=)(\S+)$/.exec(o);
      if (!om) fail(origin, `option ${quote(o)} is not name=value (e.g. signed-by=/path/key.asc or arch=amd64)`);
      return { name: om[1]!.toLowerCase(), op: om[2] as AptOption["op"], value: om[3]! };
    });
  const components = rest.trim().split(/\s+/).filter(Boolean);
  checkSuite(origin, suite, components);
  return { kind: "one-line", type, options, uri, suite, components, origin };
}

/** Parses a deb822 .sources text into its stanzas (comments and blank lines between them ignored). */
export function parseDeb822(text: string, file: string): Deb822Source[] {
  const stanzas: Deb822Source[] = [];
  let current: Deb822Source | undefined;
  text.split(/\r?\n/).forEach((line, i) => {
    const origin = `${file}:${i + 1}`;
    if (line.startsWith("#")) return;
    if (line.trim() === "") {
      current = undefined;
      return;
    }
    if (/^[ \t]/.test(line)) {
      const last = current?.fields.at(-1);
      if (!last) fail(origin, "a continuation line (it starts with a space) with no field before it");
      last[1] += `\n${line}`;
      return;
    }
    const fm = /^([A-Za-z][A-Za-z0-9-]*):(.*)$/.exec(line);
    if (!fm) fail(origin, `${quote(line)} is not "Field: value"`);
    if (!current) {
      current = { kind: "deb822", fields: [], origin };
      stanzas.push(current);
    }
    current.fields.push([fm[1]!, fm[2]!.trim()]);
  });
  for (const s of stanzas) checkStanza(s);
  return stanzas;
}

/** The value of a deb822 field (names are case-insensitive), or undefined. */
export function field(s: Deb822Source, name: string): string | undefined {
  return s.fields.find(([n]) => n.toLowerCase() === name.toLowerCase())?.[1];
}

function words(value: string | undefined): string[] {
  return (value ?? "").split(/\s+/).filter(Boolean);
}

function checkStanza(s: Deb822Source): void {
  const types = words(field(s, "Types"));
  if (types.length === 0) fail(s.origin, "a stanza with no Types (deb or deb-src)");
  const bad = types.find((t) => t !== "deb" && t !== "deb-src");
  if (bad) fail(s.origin, `Types ${quote(bad)}: give deb or deb-src`);
  const uris = words(field(s, "URIs"));
  if (uris.length === 0) fail(s.origin, "a stanza with no URIs");
  for (const u of uris) if (!URI.test(u)) fail(s.origin, `${quote(u)} is not a URI`);
  const suites = words(field(s, "Suites"));
  if (suites.length === 0) fail(s.origin, "a stanza with no Suites");
  for (const suite of suites) checkSuite(s.origin, suite, words(field(s, "Components")));
}

/**
 * The sources an `--apt-source` value gives: a one-line entry, or a .list (one-line entries) or
 * .sources (deb822) file.
 */
export async function readSourceArg(arg: string): Promise<AptSource[]> {
  const trimmed = arg.trim();
  if (/^deb(-src)?\s/.test(trimmed)) return [parseOneLine(trimmed, quote(trimmed))];
  if (!/\.(list|sources)$/.test(trimmed)) fail(quote(arg), "neither a source line (it starts with deb) nor a .list or .sources file");
  let text: string;
  try {
    text = await readFile(trimmed, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new InvalidArgumentError(`--apt-source ${trimmed}: ${code === "ENOENT" ? "no such file" : `cannot read it (${code ?? String(e)})`}`);
  }
  if (trimmed.endsWith(".sources")) {
    const stanzas = parseDeb822(text, trimmed);
    if (stanzas.length === 0) fail(trimmed, "no stanza in the file");
    return stanzas;
  }
  const entries = text
    .split(/\r?\n/)
    .map((line, i) => ({ line: line.replace(/#.*$/, "").trim(), origin: `${trimmed}:${i + 1}` }))
    .filter((l) => l.line !== "")
    .map((l) => parseOneLine(l.line, l.origin));
  if (entries.length === 0) fail(trimmed, "no source line in the file");
  return entries;
}

/** The URIs of a source. */
export function urisOf(s: AptSource): string[] {
  return s.kind === "one-line" ? [s.uri] : words(field(s, "URIs"));
}

/** The suites of a source. */
export function suitesOf(s: AptSource): string[] {
  return s.kind === "one-line" ? [s.suite] : words(field(s, "Suites"));
}

/** The signed-by value of a source, or undefined. */
export function signedByOf(s: AptSource): string | undefined {
  return s.kind === "one-line" ? s.options.find((o) => o.name === "signed-by")?.value : field(s, "Signed-By");
}

/** The source with its signed-by value replaced. */
export function withSignedBy(s: AptSource, value: string): AptSource {
  if (s.kind === "one-line") return { ...s, options: s.options.map((o) => (o.name === "signed-by" ? { ...o, value } : o)) };
  return { ...s, fields: s.fields.map(([n, v]) => [n, n.toLowerCase() === "signed-by" ? value : v]) };
}

/** The source with only the URIs `keep` accepts, or undefined if none is left. */
export function keepUris(s: AptSource, keep: (uri: string) => boolean): AptSource | undefined {
  const left = urisOf(s).filter(keep);
  if (left.length === 0) return undefined;
  if (s.kind === "one-line") return s;
  return { ...s, fields: s.fields.map(([n, v]) => [n, n.toLowerCase() === "uris" ? left.join(" ") : v]) };
}

/** The folder of the build host a file: (or copy:) URI names, or undefined for any other URI. */
export function localFolder(uri: string, origin: string): string | undefined {
  const m = /^(file|copy):(.*)$/i.exec(uri);
  if (!m) return undefined;
  if (!m[2]!.startsWith("/")) fail(origin, `${quote(uri)}: a file: URI names a folder by its absolute path (file:/srv/repo)`);
  try {
    return fileURLToPath(`file:${m[2]}`).replace(/(.)\/+$/, "$1");
  } catch {
    fail(origin, `${quote(uri)} is not a folder of this computer (write file:/path/to/repository)`);
  }
}

/** apt's text for the sources: the one-line entries (a .list file) and the deb822 stanzas (a .sources file). */
export function renderSources(sources: readonly AptSource[]): { list: string; deb822: string } {
  const lines = sources
    .filter((s): s is OneLineSource => s.kind === "one-line")
    .map((s) => {
      const opts = s.options.length ? ` [${s.options.map((o) => `${o.name}${o.op}${o.value}`).join(" ")}]` : "";
      return `${s.type}${opts} ${s.uri} ${s.suite}${s.components.map((c) => ` ${c}`).join("")}\n`;
    });
  const stanzas = sources.filter((s): s is Deb822Source => s.kind === "deb822").map((s) => `${s.fields.map(([n, v]) => `${n}: ${v}`).join("\n")}\n`);
  return { list: lines.join(""), deb822: stanzas.join("\n") };
}
