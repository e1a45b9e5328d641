/**
 * Python's `urllib.parse` as OSWorld's Chrome getters and metrics use it (CPython 3.11): `urlparse`
 * and `urlunparse`, `parse_qs`, `unquote`. Its rules are not the WHATWG URL parser's: no host is
 * lower-cased, no path normalised, and a string without a scheme is all path.
 */

/** `urllib.parse.ParseResult`. */
export interface PyParsedUrl {
  scheme: string;
  netloc: string;
  path: string;
  params: string;
  query: string;
  fragment: string;
}

const SCHEME_CHARS = /^[A-Za-z0-9+\-.]+$/;
const USES_PARAMS = new Set(["", "ftp", "hdl", "prospero", "http", "imap", "https", "shttp", "rtsp", "rtspu", "sip", "sips", "mms", "sftp", "tel"]);
const USES_NETLOC = new Set([
  ..."ftp http gopher nntp telnet imap wais file mms https shttp snews prospero rtsp rtspu rsync svn svn+ssh sftp nfs git git+ssh ws wss".split(" "),
  "",
]);
/** WHATWG's C0 controls and space, which `urlsplit` strips from the start. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters Python strips
const C0_OR_SPACE = /^[\x00-\x20]+/;

/** `_splitnetloc(url, 2)`: the authority up to the first `/`, `?` or `#`, and the rest. */
function splitNetloc(url: string): [string, string] {
  let delim = url.length;
  for (const c of "/?#") {
    const i = url.indexOf(c, 2);
    if (i >= 0) delim = Math.min(delim, i);
  }
  return [url.slice(2, delim), url.slice(delim)];
}

/** `urlsplit(url)`; raises (throws) on an unbalanced IPv6 bracket, as Python does. */
function urlsplit(input: string): Omit<PyParsedUrl, "params"> {
  let url = input.replace(C0_OR_SPACE, "").replace(/[\t\r\n]/g, "");
  let scheme = "";
  let netloc = "";
  let query = "";
  let fragment = "";
  const i = url.indexOf(":");
  if (i > 0 && /^[A-Za-z]/.test(url) && SCHEME_CHARS.test(url.slice(0, i))) {
    scheme = url.slice(0, i).toLowerCase();
    url = url.slice(i + 1);
  }
  if (url.startsWith("//")) {
    [netloc, url] = splitNetloc(url);
    if (netloc.includes("[") !== netloc.includes("]")) throw new Error(`Invalid IPv6 URL: ${input}`);
  }
  const hash = url.indexOf("#");
  if (hash >= 0) [url, fragment] = [url.slice(0, hash), url.slice(hash + 1)];
  const q = url.indexOf("?");
  if (q >= 0) [url, query] = [url.slice(0, q), url.slice(q + 1)];
  return { scheme, netloc, path: url, query, fragment };
}

/** `urllib.parse.urlparse(url)`. */
export function urlparse(url: string): PyParsedUrl {
  const s = urlsplit(url);
  let path = s.path;
  let params = "";
  if (USES_PARAMS.has(s.scheme) && path.includes(";")) {
    const i = path.includes("/") ? path.indexOf(";", path.lastIndexOf("/")) : path.indexOf(";");
    if (i >= 0) [path, params] = [path.slice(0, i), path.slice(i + 1)];
  }
  return { ...s, path, params };
}

/** `urllib.parse.urlunparse(parts)` (3.11: a netloc-using scheme gets `//` even with an empty netloc). */
export function urlunparse(p: PyParsedUrl): string {
  let url = p.params ? `${p.path};${p.params}` : p.path;
  if (p.netloc || (p.scheme && USES_NETLOC.has(p.scheme) && !url.startsWith("//"))) {
    if (url && !url.startsWith("/")) url = `/${url}`;
    url = `//${p.netloc}${url}`;
  }
  if (p.scheme) url = `${p.scheme}:${url}`;
  if (p.query) url = `${url}?${p.query}`;
  if (p.fragment) url = `${url}#${p.fragment}`;
  return url;
}

/** `urllib.parse.unquote(s)`: `%XX` runs decoded as UTF-8 (invalid bytes become U+FFFD); a `%` not followed by two hex digits is kept. */
export function unquote(s: string): string {
  if (!s.includes("%")) return s;
  return s.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
    const bytes = Uint8Array.from(run.slice(1).split("%"), (h) => Number.parseInt(h, 16));
    return new TextDecoder("utf-8", { fatal: false }).decode(bytes);
  });
}

/** `urllib.parse.parse_qs(qs)`: each name's values in order; pairs without `=` or with an empty value are dropped. */
export function parseQs(qs: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const pair of qs.split("&")) {
    if (!pair) continue;
    const eq = pair.indexOf("=");
    if (eq < 0) continue;
    const value = pair.slice(eq + 1);
    if (value === "") continue;
    const name = unquote(pair.slice(0, eq).replaceAll("+", " "));
    const list = out.get(name) ?? [];
    list.push(unquote(value.replaceAll("+", " ")));
    out.set(name, list);
  }
  return out;
}
