import { parse as parseDomain } from "tldts";
import { urlparse, urlunparse } from "../../../pycompat/pyUrl.js";

/**
 * OSWorld's `compare_urls` (metrics/utils.py): two URLs are the same once each is normalised —
 * `http://` put before one without a scheme, `www.` dropped when it is the only subdomain, the
 * public suffix dropped (`airbnb.com` and `airbnb.com.sg` are both `airbnb`), a lone `/` path
 * dropped. The registered domain comes from the public suffix list (ICANN section), as tldextract
 * finds it.
 */

const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

/** tldextract's `lenient_netloc`: the host of an authority (no userinfo, port, or trailing dots). */
function lenientHost(netloc: string): string {
  const afterUser = netloc.split("/")[0]!.split("?")[0]!.split("#")[0]!;
  const host = afterUser.slice(afterUser.lastIndexOf("@") + 1);
  if (host.startsWith("[")) {
    const end = host.indexOf("]");
    if (end >= 0) return host.slice(0, end + 1);
  }
  return host
    .split(":")[0]!
    .trim()
    .replace(/[.\u3002\uff0e\uff61]+$/, "");
}

/** `tldextract.extract(netloc)`: `{ subdomain, domain }` (the suffix is not needed here). */
export function tldExtract(netloc: string): { subdomain: string; domain: string } {
  const host = lenientHost(netloc).replace(/[\u3002\uff0e\uff61]/g, ".");
  if (host.length >= 4 && host.startsWith("[") && host.endsWith("]")) return { subdomain: "", domain: host };
  const labels = host.split(".");
  const parsed = parseDomain(host, { allowPrivateDomains: false, extractHostname: false, validateHostname: false, detectIp: false });
  // Only a listed ICANN rule makes a suffix; tldextract has no implicit "*" rule.
  const suffixLabels = parsed.isIcann && parsed.publicSuffix ? parsed.publicSuffix.split(".").length : 0;
  const suffixIndex = labels.length - suffixLabels;
  if (suffixIndex === 4 && labels.length === 4 && IPV4.test(host)) return { subdomain: "", domain: host };
  return { subdomain: suffixIndex >= 2 ? labels.slice(0, suffixIndex - 1).join(".") : "", domain: suffixIndex > 0 ? labels[suffixIndex - 1]! : "" };
}

/** `normalize_url` of compare_urls. */
export function normalizeUrl(url: string, full = true): string {
  const p = urlparse(/^[a-zA-Z][a-zA-Z0-9+\-.]*:\/\//.test(url) ? url : `http://${url}`);
  const { subdomain, domain } = tldExtract(p.netloc.toLowerCase());
  const sub = subdomain === "www" ? "" : subdomain;
  return urlunparse({
    scheme: p.scheme.toLowerCase(),
    netloc: sub ? `${sub}.${domain}` : domain,
    path: p.path !== "/" ? p.path : "",
    params: full ? p.params : "",
    query: full ? p.query : "",
    fragment: full ? p.fragment : "",
  });
}

/** `compare_urls(url1, url2)`; a `null` is equal only to `null`. */
export function compareUrls(url1: string | null, url2: string | null, full = true): boolean {
  if (url1 === null || url2 === null) return url1 === url2;
  return normalizeUrl(url1, full) === normalizeUrl(url2, full);
}
