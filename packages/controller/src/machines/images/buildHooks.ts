/**
 * The shell mmdebstrap runs around an image build (each with the root filesystem as `$1`, on the
 * build host, as root): a cache of the Debian packages earlier builds downloaded, and the extra
 * sources, keys and .deb files of `--apt-source`, `--apt-key` and `--deb`.
 *
 * mmdebstrap runs apt outside the root filesystem and dpkg inside it, handing dpkg the paths of the
 * .deb files verbatim: a .deb of a file: repository or of `--deb` has to be at the same path inside
 * while packages are installed. The essential hook (after base-files made /tmp, /root and the rest
 * with their modes) binds those folders read-only at their own paths; the customize hook unbinds
 * them and removes the folders it made, so nothing of the build host stays in the image.
 */

import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import { type AptExtras, type StagedExtras, stageAptExtras, stagedLayout } from "./aptExtras.js";

/** A word quoted for /bin/sh. */
export function shellQuote(s: string): string {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}

const SOURCES_DIR = '"$root/etc/apt/sources.list.d"';

/**
 * Setup hook: links the cached packages into the root filesystem's apt cache (apt checks their size
 * and reuses them instead of downloading), and adds the extra sources before apt reads its indexes.
 */
export function setupHook(o: { packageCache: string; extras?: StagedExtras | undefined }): string {
  const lines = [
    "set -eu",
    'root="$1"',
    `cache=${shellQuote(o.packageCache)}`,
    // Hard links where the cache and the build share a file system; a copy otherwise. A package
    // another build removes meanwhile is simply downloaded.
    'if [ -d "$cache" ]; then',
    '  cp -al "$cache"/*.deb "$root/var/cache/apt/archives/" 2>/dev/null || cp -a "$cache"/*.deb "$root/var/cache/apt/archives/" 2>/dev/null || true',
    "fi",
  ];
  if (o.extras) {
    const d = o.extras.dir;
    lines.push(`mkdir -p ${SOURCES_DIR}`);
    if (o.extras.build.list) lines.push(`cp ${shellQuote(`${d}/build.list`)} ${SOURCES_DIR}/pincer.list`);
    if (o.extras.build.deb822) lines.push(`cp ${shellQuote(`${d}/build.sources`)} ${SOURCES_DIR}/pincer.sources`);
  }
  return `${lines.join("\n")}\n`;
}

/**
 * Shell that adds the image's sources one by one, keeping each that apt reads beside the others
 * without an error or a "configured multiple times": a package may configure its own repository
 * (Google Chrome's writes google-chrome.list, VS Code's vscode.list), and apt refuses two entries of
 * one repository with different keys. The package's entry is kept then, as it maintains it.
 */
function keepSources(x: StagedExtras): string {
  return `aptcheck() { chroot "$root" apt-get indextargets 2>&1 >/dev/null; }
judge=yes
if ! aptcheck >/dev/null; then
  judge=no
  echo "W: pincer: apt in the image reads its sources with an error already: --apt-source's are added unchecked" >&2
fi
for name in ${x.final.map((f) => shellQuote(f.name)).join(" ")}; do
  install -m 0644 ${shellQuote(`${x.dir}/final/`)}"$name" ${SOURCES_DIR}/"$name"
  [ "$judge" = yes ] || continue
  if ! out="$(aptcheck)" || printf '%s\n' "$out" | grep -q "configured multiple times.*$name"; then
    rm ${SOURCES_DIR}/"$name"
    echo "W: pincer: the image's packages configure the repository of $name themselves: it is left out ($(printf '%s' "$out" | head -n 1))" >&2
  fi
done`;
}

/** The folders of the build host the install step needs inside the root filesystem. */
export function hostFolders(extras: StagedExtras, localFolders: readonly string[]): string[] {
  return [...localFolders, ...(extras.debs.length ? [`${extras.dir}/debs`] : [])];
}

/**
 * Essential hook: binds each folder read-only at its own path inside, writing to `record` the
 * topmost folder it had to make for each, for the customize hook to remove.
 */
export function essentialHook(folders: readonly string[], record: string): string {
  return `set -eu
root="$1"
: > ${shellQuote(record)}
for dir in ${folders.map(shellQuote).join(" ")}; do
  if [ -e "$root$dir" ]; then
    echo "E: pincer: $dir exists in the image already, so the build cannot show the host's folder there: move it elsewhere" >&2
    exit 1
  fi
  top="$dir"
  while [ ! -e "$root$(dirname "$top")" ]; do top="$(dirname "$top")"; done
  mkdir -p "$root$dir"
  printf '%s\\n' "$top" >> ${shellQuote(record)}
  mount -o ro,bind "$dir" "$root$dir"
done
`;
}

/**
 * Customize hook, before Pincer's own: unbinds the host's folders and removes what was made for
 * them, writes the sources and keys the image keeps, and adds the packages this build downloaded to
 * the cache (dropping the versions they replace).
 */
export function customizeHook(o: { packageCache: string; extras?: StagedExtras | undefined; folders: readonly string[]; record: string }): string {
  const lines = ["set -eu", 'root="$1"'];
  if (o.folders.length) {
    lines.push(
      `for dir in ${[...o.folders].reverse().map(shellQuote).join(" ")}; do`,
      '  if mountpoint -q "$root$dir"; then umount "$root$dir"; fi',
      "done",
      `while IFS= read -r top; do if [ -d "$root$top" ]; then find "$root$top" -depth -type d -empty -delete; fi; done < ${shellQuote(o.record)}`,
    );
  }
  if (o.extras) {
    const x = o.extras;
    lines.push(`rm -f ${SOURCES_DIR}/pincer.list ${SOURCES_DIR}/pincer.sources`);
    if (x.keys.length) lines.push('install -d -m 0755 "$root/etc/apt/keyrings"');
    for (const k of x.keys) lines.push(`install -m 0644 ${shellQuote(k)} "$root/etc/apt/keyrings/"`);
    if (x.final.length) lines.push(keepSources(x));
  }
  // name_version_arch.deb: another version of the same package and architecture is one Debian replaced.
  lines.push(`cache=${shellQuote(o.packageCache)}
mkdir -p "$cache"
for f in "$root"/var/cache/apt/archives/*.deb; do
  [ -e "$f" ] || continue
  name="\${f##*/}"
  [ -e "$cache/$name" ] && continue
  ln "$f" "$cache/$name" 2>/dev/null || { cp "$f" "$cache/.$name.part" && mv "$cache/.$name.part" "$cache/$name"; }
  pkg="\${name%%_*}"; arch="\${name##*_}"
  for old in "$cache/\${pkg}_"*"_$arch"; do [ "$old" = "$cache/$name" ] || rm -f "$old"; done
done`);
  return `${lines.join("\n")}\n`;
}

/** What a build takes beyond its manifest: the extra apt inputs, and the folder of packages earlier builds downloaded. */
export interface BuildInputs {
  extras?: AptExtras | undefined;
  packageCache: string;
}

/** The hook scripts of `extras` for files in `dir`, as the image's key digests them and the build writes them. */
export function extrasHooks(x: AptExtras | undefined, dir: string, packageCache: string, staged = x && stagedLayout(x, dir)) {
  const folders = staged && x ? hostFolders(staged, x.localFolders) : [];
  const record = join(dir, "bound-folders");
  return {
    setup: setupHook({ packageCache, extras: staged }),
    ...(folders.length ? { essential: essentialHook(folders, record) } : {}),
    customize: customizeHook({ packageCache, extras: staged, folders, record }),
  };
}

/**
 * Stages the extra inputs in `scratch` and writes the hooks around the build: mmdebstrap options
 * that go before Pincer's customize hook, and the .deb paths to install.
 */
export async function prepareHooks(inputs: BuildInputs, scratch: string): Promise<{ hooks: string[]; debs: string[] }> {
  const staged = inputs.extras ? await stageAptExtras(inputs.extras, join(scratch, "apt")) : undefined;
  const hooks: string[] = [
    // The essential packages stay in the apt cache until the customize hook has added them to
    // Pincer's; mmdebstrap's cleanup (apt-get clean) still leaves the image without them.
    "--skip=essential/unlink",
  ];
  for (const [stage, text] of Object.entries(extrasHooks(inputs.extras, join(scratch, "apt"), inputs.packageCache, staged))) {
    const file = join(scratch, `${stage}-hook.sh`);
    await writeFile(file, text);
    hooks.push(`--${stage}-hook=sh ${shellQuote(file)} "$1"`);
  }
  return { hooks, debs: staged?.debs ?? [] };
}

/** Unmounts what is still mounted under `dir` (a build that failed between its bind and unbind hooks), deepest first. */
export async function unmountUnder(dir: string): Promise<void> {
  const info = await readFile("/proc/self/mountinfo", "utf8").catch(() => "");
  const points = info
    .split("\n")
    .map((l) => (l.split(" ")[4] ?? "").replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(Number.parseInt(o, 8))))
    .filter((p) => p.startsWith(`${dir}/`))
    .sort((a, b) => b.length - a.length);
  for (const p of points) await execa("umount", ["--lazy", p], { reject: false });
}
