import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rename, rm, symlink, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { FailedPreconditionError, InvalidArgumentError } from "@pincer/shared";
import { execa } from "execa";
import { type AptExtras, type AptExtrasOptions, readAptExtras } from "./aptExtras.js";
import { type BuildInputs, extrasHooks, prepareHooks, unmountUnder } from "./buildHooks.js";
import { buildDaemon, daemonDigest, daemonSources, stageDaemon } from "./daemonBundle.js";
import { customizeScript, daemonUnit, entrypoint, networkUnit, session } from "./guestFiles.js";
import { withBuildLock } from "./lock.js";
import { BASE_PACKAGES, PACKAGE_NAME, profileOf, VM_PACKAGES, type ProfileName } from "./profiles.js";

/** The source and settings of an adopted image. */
export interface AdoptedFrom {
  /** The disk it was copied from (never written), its format and its SHA-256 when adopted. */
  source: string;
  format: string;
  sha256: string;
  user: string;
  display: string;
  xauthority?: string;
  bundle: { daemon: string; digest: string };
}

/** The two outputs of one recipe. */
export type ImageOutput = "container" | "qcow2";

/** What `pincer image build` made, written as image.json in the image's cache folder. */
export interface ImageManifest {
  /** The profile it was built from, or "adopted" for a disk Pincer did not build (`pincer image adopt`). */
  profile: ProfileName | "adopted";
  /** Digest of every input (first 16 hex digits): same inputs, same key, same image. */
  key: string;
  created: string;
  suite: string;
  mirror: string;
  /** Every Debian package asked for (the profile's, every image's, and --add-packages). */
  packages: string[];
  addPackages: string[];
  /** The extra apt sources, their keys (by name in /etc/apt/keyrings) and local .deb files (package and version), if any. */
  apt?: { sources: string[]; keys: string[]; debs: string[] };
  /** The root filesystem both outputs are made from. */
  rootfs: string;
  /** The container image, once imported into an engine. */
  container?: { tag: string; engine: string };
  /**
   * The virtual machine's disk (ext4, no partition table), kernel and initrd; an adopted image's disk
   * boots with its own bootloader (no kernel).
   */
  qcow2?: { disk: string; kernel?: string; initrd?: string; append?: string; firmware?: "bios" | "uefi" };
  /** What `pincer image adopt` made this image from, and how its daemon finds the session. */
  adopted?: AdoptedFrom;
  /** The folder this manifest is in. */
  dir: string;
}

/**
 * Options of {@link buildImage}. `aptSources` (one-line entries, or .list/.sources files), `aptKeys`
 * (the keys their signed-by names) and `debs` (local .deb files) add to Debian's packages; see aptExtras.ts.
 */
export interface ImageBuildOptions extends AptExtrasOptions {
  profile: string;
  /** The outputs to make. @default both: ["container", "qcow2"] */
  formats?: readonly ImageOutput[];
  addPackages?: readonly string[];
  /** Default: $PINCER_CACHE_DIR, else $XDG_CACHE_HOME/pincer, else ~/.cache/pincer. */
  cacheDir?: string;
  /**
   * Where the Debian packages builds download are kept for the next build, one folder per suite;
   * removing it only costs downloads. @default <cacheDir>/images/apt-archives
   */
  packageCacheDir?: string;
  /** Debian suite (default bookworm, the system Pincer's native parts are built for). */
  suite?: string;
  mirror?: string;
  /** Build again even if the cache holds an image with the same inputs. */
  rebuild?: boolean;
  /** The container engine for --format container (socket path or URL; default: found or started). */
  engine?: string;
  log?: (line: string) => void;
}

/** Bump when the recipe changes in a way its inputs do not show. */
const RECIPE_VERSION = 1;
const DEFAULT_MIRROR = "http://deb.debian.org/debian";

/** Pincer's cache folder: $PINCER_CACHE_DIR, $XDG_CACHE_HOME/pincer or ~/.cache/pincer. */
export function cacheRoot(dir?: string): string {
  return resolve(dir ?? process.env.PINCER_CACHE_DIR ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "pincer"));
}

/** The packages of an image, sorted and without repeats. */
function packagesOf(profile: ProfileName, addPackages: readonly string[]): string[] {
  return [...new Set([...BASE_PACKAGES, ...VM_PACKAGES, ...profileOf(profile).packages, ...addPackages])].sort();
}

function checkPackages(addPackages: readonly string[]): void {
  const bad = addPackages.filter((p) => !PACKAGE_NAME.test(p));
  if (bad.length > 0)
    throw new InvalidArgumentError(
      `--add-packages: ${bad.map((p) => JSON.stringify(p)).join(", ")} is not a Debian package name (e.g. gnumeric, or gnumeric=1.12.55-1)`,
    );
}

/** The guest files by name, as written into the image. */
function guestFiles(profile: ProfileName, manifestStub: object): Record<string, string> {
  const { session: line, userFiles = {} } = profileOf(profile);
  return {
    "pincer-entrypoint": entrypoint(),
    ...(line ? { session: session(line) } : {}),
    ...Object.fromEntries(Object.entries(userFiles).map(([path, text]) => [`home/${path}`, text])),
    "pincer-daemon.service": daemonUnit(),
    "10-eth0.network": networkUnit(),
    "image.json": `${JSON.stringify(manifestStub, null, 2)}\n`,
  };
}

/**
 * The mmdebstrap command line for a root filesystem at `target`, customized by `hook` (after
 * `hooks`, the other hook options), with `debs` (paths of .deb files) installed too.
 */
function mmdebstrapArgs(o: { suite: string; mirror: string; packages: string[]; target: string; hook: string; debs?: string[]; hooks?: string[] }): string[] {
  const security = o.mirror === DEFAULT_MIRROR ? [`deb http://deb.debian.org/debian-security ${o.suite}-security main`] : [];
  return [
    "--variant=minbase",
    "--mode=root",
    `--include=${o.packages.join(",")}`,
    // A path is an --include of its own: mmdebstrap splits a list at commas and spaces.
    ...(o.debs ?? []).map((d) => `--include=${d}`),
    '--aptopt=Acquire::Retries "3"',
    "--dpkgopt=path-exclude=/usr/share/doc/*",
    "--dpkgopt=path-exclude=/usr/share/man/*",
    "--dpkgopt=path-exclude=/usr/share/locale/*",
    "--dpkgopt=path-include=/usr/share/locale/locale.alias",
    ...(o.hooks ?? []),
    `--customize-hook=sh '${o.hook}' "$1"`,
    o.suite,
    o.target,
    `deb ${o.mirror} ${o.suite} main`,
    `deb ${o.mirror} ${o.suite}-updates main`,
    ...security,
  ];
}

/**
 * mmdebstrap's warnings that a --deb path is not inside the root filesystem yet: it is checked after
 * the setup hook, and the essential hook binds it there (see buildHooks.ts). Kept in build.log only.
 */
const MISLEADING =
  /^W: (path given via --include is not present inside|apt runs chrooted dpkg which needs access|maybe try running mmdebstrap with --hook-dir)/;

/** Runs mmdebstrap for the root filesystem into `target`, logging its progress lines. */
async function debootstrap(m: ImageManifest, inputs: BuildInputs, target: string, scratch: string, log: (l: string) => void): Promise<void> {
  const src = daemonSources();
  const bundle = join(scratch, "bundle");
  log("installing pincer-daemon and its dependencies for the image");
  await stageDaemon(src, bundle, join(scratch, "stage"));
  const files = join(scratch, "files");
  await mkdir(files);
  const profile = m.profile as ProfileName; // only built images come here, never adopted ones
  const stub = { profile, key: m.key, created: m.created, packages: m.packages };
  for (const [name, text] of Object.entries(guestFiles(profile, stub))) {
    await mkdir(dirname(join(files, name)), { recursive: true });
    await writeFile(join(files, name), text);
  }
  // The customize script copies home/ with `cp -a`, which keeps these links as links.
  for (const [path, target] of Object.entries(profileOf(profile).userLinks ?? {})) {
    await mkdir(dirname(join(files, "home", path)), { recursive: true });
    await symlink(target, join(files, "home", path));
  }
  const hook = join(scratch, "customize.sh");
  await writeFile(hook, customizeScript(bundle, files));
  const { hooks, debs } = await prepareHooks(inputs, scratch);
  const extra = debs.length ? ` and ${debs.length} .deb file(s)` : "";
  log(`mmdebstrap ${m.suite} (${m.packages.length} packages asked for${extra}) into ${target}`);
  const child = execa("mmdebstrap", mmdebstrapArgs({ suite: m.suite, mirror: m.mirror, packages: m.packages, target, hook, debs, hooks }), {
    all: true,
    reject: false,
  });
  const lines: string[] = [];
  child.all?.setEncoding("utf8");
  let rest = "";
  child.all?.on("data", (chunk: string) => {
    const parts = (rest + chunk).split("\n");
    rest = parts.pop() ?? "";
    for (const l of parts) {
      lines.push(l);
      if (lines.length > 400) lines.shift();
      if (/^(I|E|W): /.test(l) && !MISLEADING.test(l)) log(`  ${l}`);
    }
  });
  const r = await child;
  await unmountUnder(target);
  await writeFile(join(m.dir, "build.log"), `${lines.join("\n")}\n${rest}`);
  if (r.exitCode !== 0) {
    const tail =
      lines
        .filter((l) => /^E: |error/i.test(l))
        .slice(-8)
        .join("\n") || lines.slice(-12).join("\n");
    throw new FailedPreconditionError(`mmdebstrap failed (exit ${r.exitCode ?? r.signal}); the log is ${join(m.dir, "build.log")}:\n${tail}`);
  }
}

async function preflight(): Promise<void> {
  if (process.getuid?.() !== 0) throw new FailedPreconditionError("pincer image build makes a root filesystem with mmdebstrap as root: run it as root (sudo)");
  for (const tool of ["mmdebstrap"]) {
    const found = await execa("sh", ["-c", `command -v ${tool}`], { reject: false });
    if (found.exitCode !== 0)
      throw new FailedPreconditionError(`${tool} is not installed: apt-get install mmdebstrap (or bash scripts/install-system-deps.sh)`);
  }
}

/**
 * The image's key: a digest of the recipe, the packages, the suite and mirror, the daemon's build,
 * and the extra apt inputs if any. The package cache is left out: it changes how fast an image is
 * built, not what is in it.
 */
async function imageKey(packages: string[], suite: string, mirror: string, profile: ProfileName, extras: AptExtras | undefined): Promise<string> {
  const src = daemonSources();
  await buildDaemon(src);
  const recipe = JSON.stringify({
    RECIPE_VERSION,
    suite,
    mirror,
    packages,
    files: guestFiles(profile, {}),
    ...(profileOf(profile).userLinks ? { links: profileOf(profile).userLinks } : {}),
    customize: customizeScript("B", "F"),
    args: mmdebstrapArgs({ suite, mirror, packages, target: "T", hook: "H", ...(extras ? { debs: extras.debs.map((d) => `D/${d.package}.deb`) } : {}) }),
    daemon: await daemonDigest(src),
    ...(extras ? { apt: extras.digest, aptHooks: extrasHooks(extras, "S", "C") } : {}),
  });
  return createHash("sha256").update(recipe).digest("hex").slice(0, 16);
}

async function readManifest(file: string): Promise<ImageManifest | undefined> {
  if (!existsSync(file)) return undefined;
  return JSON.parse(await readFile(file, "utf8")) as ImageManifest;
}

/** Writes a manifest (atomically), and the profile's pointer to its newest image. */
async function saveManifest(m: ImageManifest, root: string): Promise<void> {
  const text = `${JSON.stringify(m, null, 2)}\n`;
  await writeFile(join(m.dir, "image.json.tmp"), text);
  await rename(join(m.dir, "image.json.tmp"), join(m.dir, "image.json"));
  await writeFile(join(root, `${m.profile}.json.tmp`), text);
  await rename(join(root, `${m.profile}.json.tmp`), join(root, `${m.profile}.json`));
}

/** Makes the root filesystem of `m` unless the cache has it. */
async function ensureRootfs(m: ImageManifest, inputs: BuildInputs, rebuild: boolean, log: (l: string) => void): Promise<void> {
  if (!rebuild && existsSync(join(m.rootfs, "usr", "local", "bin", "pincer-entrypoint"))) {
    log(`root filesystem: cached (${m.rootfs})`);
    return;
  }
  await preflight();
  const scratch = await mkdtemp(join(m.dir, "build-"));
  const target = join(scratch, "rootfs");
  try {
    const t0 = performance.now();
    await debootstrap(m, inputs, target, scratch, log);
    await rm(m.rootfs, { recursive: true, force: true });
    await rename(target, m.rootfs);
    delete m.qcow2;
    delete m.container;
    log(`root filesystem built in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** Where an image with these options lives in the cache, and its key: what {@link buildImage} would make or reuse. */
export async function planImage(opts: ImageBuildOptions) {
  const profile = profileOf(opts.profile).name;
  const addPackages = [...(opts.addPackages ?? [])];
  checkPackages(addPackages);
  const extras = await readAptExtras(opts);
  const suite = opts.suite ?? "bookworm";
  const mirror = opts.mirror ?? DEFAULT_MIRROR;
  const packages = packagesOf(profile, addPackages);
  const root = join(cacheRoot(opts.cacheDir), "images");
  const key = await imageKey(packages, suite, mirror, profile, extras);
  // Packages downloaded by earlier builds, shared by every image of the suite.
  const packageCache = join(resolve(opts.packageCacheDir ?? join(root, "apt-archives")), suite);
  return { profile, addPackages, extras, packageCache, suite, mirror, packages, root, key, dir: join(root, `${profile}-${key}`) };
}

/**
 * Builds (or finds in the cache) a machine image: one root filesystem made by mmdebstrap from
 * Debian packages (the profile's, plus `addPackages` from Debian or the `aptSources`, and the
 * `debs`), with user `user`, pincer-daemon and its entrypoint, and no secret; then each asked-for
 * output: a container image imported into the engine, or a qcow2 disk with its kernel. The cache is keyed by every input, so a second build
 * with the same inputs returns at once. Concurrent builds of one image wait for each other.
 */
export async function buildImage(opts: ImageBuildOptions): Promise<ImageManifest> {
  const { profile, addPackages, extras, packageCache, suite, mirror, packages, root, key, dir } = await planImage(opts);
  const log = opts.log ?? (() => {});
  await mkdir(dir, { recursive: true });
  return withBuildLock(join(dir, "lock"), log, async () => {
    const cached = opts.rebuild ? undefined : await readManifest(join(dir, "image.json"));
    const m: ImageManifest = cached ?? {
      profile,
      key,
      created: new Date().toISOString(),
      suite,
      mirror,
      packages,
      addPackages,
      ...(extras
        ? { apt: { sources: extras.given.aptSources, keys: extras.keys.map((k) => k.name), debs: extras.debs.map((d) => `${d.package} ${d.version}`) } }
        : {}),
      rootfs: join(dir, "rootfs"),
      dir,
    };
    await ensureRootfs(m, { extras, packageCache }, opts.rebuild ?? false, log);
    await saveManifest(m, root);
    for (const format of opts.formats ?? (["container", "qcow2"] as const)) {
      if (format === "qcow2") await ensureQcow2(m, log);
      else await ensureContainer(m, opts.engine, log);
      await saveManifest(m, root);
    }
    return m;
  });
}

async function ensureQcow2(m: ImageManifest, log: (l: string) => void): Promise<void> {
  if (m.qcow2 && existsSync(m.qcow2.disk) && m.qcow2.kernel && existsSync(m.qcow2.kernel)) {
    log(`qcow2: cached (${m.qcow2.disk})`);
    return;
  }
  const { makeQcow2 } = await import("./qcow2.js");
  const t0 = performance.now();
  m.qcow2 = await makeQcow2(m.rootfs, m.dir);
  log(`qcow2: ${m.qcow2.disk} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

async function ensureContainer(m: ImageManifest, engineAddress: string | undefined, log: (l: string) => void): Promise<void> {
  const { openEngine } = await import("../dockerEngine.js");
  const { containerImageExists, importContainerImage } = await import("./containerImage.js");
  const engine = await openEngine({ ...(engineAddress ? { address: engineAddress } : {}), log });
  try {
    const tag = `localhost/pincer-${m.profile}:${m.key}`;
    if (await containerImageExists(engine, tag)) {
      log(`container image: ${tag} (already in ${engine.description})`);
    } else {
      const t0 = performance.now();
      await importContainerImage(engine, { rootfs: m.rootfs, tag });
      log(`container image: ${tag} imported into ${engine.description} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    }
    // The engine's name and version; not a private service's socket, gone after this build.
    m.container = { tag, engine: engine.description.replace(/ at \S+.*$/, "") };
  } finally {
    await engine.close();
  }
}

/**
 * The manifest an `--image` value names: a path to an image.json (or its folder), or a profile name
 * (the newest image built for it in the cache).
 */
export async function resolveImage(image: string, cacheDir?: string): Promise<ImageManifest> {
  const candidates = [image, join(image, "image.json"), join(cacheRoot(cacheDir), "images", `${image}.json`)];
  for (const file of candidates) {
    if (existsSync(file) && file.endsWith(".json")) {
      const m = await readManifest(file);
      if (m) return m;
    }
  }
  throw new InvalidArgumentError(
    `--image ${JSON.stringify(image)}: no such image; build one with \`pincer image build --profile ${/^[a-z]+$/.test(image) ? image : "minimal"}\`, ` +
      "or give the path of an image.json",
  );
}
