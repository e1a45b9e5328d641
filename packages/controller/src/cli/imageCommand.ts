import { join, resolve } from "node:path";
import { type Command, InvalidArgumentError as CliArgumentError, Option } from "commander";
import { buildImage, cacheRoot, type ImageOutput, type ImageManifest } from "../machines/images/build.js";
import { PROFILE_NAMES, PROFILES } from "../machines/images/profiles.js";
import { cachedImages, describeEntry, formatBytes, pruneImages } from "../machines/images/prune.js";

function formatsOf(v: string): ImageOutput[] {
  const list = v.split(",").map((s) => s.trim());
  const bad = list.filter((f) => f !== "container" && f !== "qcow2");
  if (bad.length > 0 || list.length === 0) throw new CliArgumentError(`${JSON.stringify(v)}: give container, qcow2, or container,qcow2`);
  return list as ImageOutput[];
}

function packagesOf(v: string, previous: string[] = []): string[] {
  return [
    ...previous,
    ...v
      .split(/[,\s]+/)
      .map((s) => s.trim())
      .filter(Boolean),
  ];
}

function positiveInt(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new CliArgumentError(`${JSON.stringify(v)}: give a whole number of 1 or more`);
  return n;
}

function collect(v: string, previous: string[] = []): string[] {
  return [...previous, v];
}

function describe(m: ImageManifest): string {
  const lines = [`image ${m.profile}-${m.key} (${m.dir})`, `  root filesystem: ${m.rootfs}`];
  if (m.container) lines.push(`  container image: ${m.container.tag} (in ${m.container.engine})`);
  if (m.qcow2) lines.push(`  qcow2 disk: ${m.qcow2.disk}`, `  kernel: ${m.qcow2.kernel}`);
  if (m.apt?.debs.length) lines.push(`  local packages: ${m.apt.debs.join(", ")}`);
  if (m.apt?.sources.length) lines.push(`  extra apt sources: ${m.apt.sources.length}${m.apt.keys.length ? ` (keys ${m.apt.keys.join(", ")})` : ""}`);
  const providers = [...(m.container ? ["container"] : []), ...(m.qcow2 ? ["qemu"] : [])];
  for (const p of providers) lines.push(`  use it: pincer run TASKS --provider ${p} --image ${m.profile}`);
  return lines.join("\n");
}

/** `pincer image build|list|profiles`: Pincer's machine images, built from Debian packages. */
export function registerImageCommand(program: Command): void {
  const image = program.command("image").description("machine images for the container and qemu providers, built from Debian packages");
  image
    .command("build")
    .description("build (or find in the cache) an image: a root filesystem made by mmdebstrap, as a container image and/or a qcow2 disk")
    .addOption(new Option("--profile <name>", "what is installed (pincer image profiles lists them)").choices([...PROFILE_NAMES]).default("minimal"))
    .option("--format <formats>", "container, qcow2, or both (the default: the container and qemu providers each use one)", formatsOf, [
      "container",
      "qcow2",
    ] as ImageOutput[])
    .option("--add-packages <list>", "more Debian packages, comma- or space-separated (repeatable)", packagesOf, [] as string[])
    .option(
      "--apt-source <source>",
      'an apt source for --add-packages and --deb: "deb [signed-by=KEYFILE] URI SUITE COMPONENT...", or a .list or .sources file (repeatable)',
      collect,
      [] as string[],
    )
    .option(
      "--apt-key <file>",
      "the OpenPGP public key (armored or binary) a source's signed-by names; put in /etc/apt/keyrings (repeatable)",
      collect,
      [] as string[],
    )
    .option("--deb <file>", "a local .deb to install, its dependencies from Debian and the --apt-source sources (repeatable)", collect, [] as string[])
    .option("--cache-dir <dir>", "where images are kept (default $PINCER_CACHE_DIR, else ~/.cache/pincer)")
    .option("--engine <socket>", "container engine (Docker or Podman API socket; default: found, or a private podman service)")
    .option("--mirror <url>", "Debian mirror", "http://deb.debian.org/debian")
    .option("--rebuild", "build again even if the cache has this image", false)
    .action(
      async (o: {
        profile: string;
        format: ImageOutput[];
        addPackages: string[];
        aptSource: string[];
        aptKey: string[];
        deb: string[];
        cacheDir?: string;
        engine?: string;
        mirror: string;
        rebuild: boolean;
      }) => {
        const t0 = performance.now();
        const m = await buildImage({
          profile: o.profile,
          formats: o.format,
          addPackages: o.addPackages,
          aptSources: o.aptSource,
          aptKeys: o.aptKey,
          debs: o.deb,
          mirror: o.mirror,
          rebuild: o.rebuild,
          ...(o.cacheDir ? { cacheDir: o.cacheDir } : {}),
          ...(o.engine ? { engine: o.engine } : {}),
          log: (l) => process.stderr.write(`${l}\n`),
        });
        process.stdout.write(`${describe(m)}\n  took ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
        await sayOlderImages(m, o.cacheDir);
      },
    );
  image
    .command("list")
    .description("the images in the cache, newest first")
    .option("--cache-dir <dir>", "where images are kept")
    .action(async (o: { cacheDir?: string }) => {
      const list = (await cachedImages(join(cacheRoot(o.cacheDir), "images"))).map((i) => i.manifest);
      if (list.length === 0) process.stdout.write("no images yet: pincer image build --profile minimal\n");
      for (const m of list) process.stdout.write(`${describe(m)}\n  built ${m.created}${m.addPackages.length ? `, added ${m.addPackages.join(" ")}` : ""}\n`);
    });
  registerPrune(image);
  registerBundle(image);
  registerAdopt(image);
  image
    .command("profiles")
    .description("what each profile installs")
    .action(() => {
      for (const p of Object.values(PROFILES)) process.stdout.write(`${p.name}: ${p.description}\n  ${p.packages.join(" ")}\n`);
    });
}

/** `pincer image bundle`: the daemon, its dependencies and Node.js in one folder or archive. */
function registerBundle(image: Command): void {
  image
    .command("bundle")
    .description("write the self-contained daemon bundle (pincer-daemon, its native parts and a Node.js) for x86-64 Linux with glibc 2.31 or newer")
    .requiredOption("--out <path>", "a new folder, or a file ending in .tar.gz")
    .option("--cache-dir <dir>", "where the built bundle is kept (default $PINCER_CACHE_DIR, else ~/.cache/pincer)")
    .option("--rebuild", "build it again even if the cache has it", false)
    .action(async (o: { out: string; cacheDir?: string; rebuild: boolean }) => {
      const { daemonBundle, writeBundle } = await import("../machines/images/portableBundle.js");
      const b = await daemonBundle({ rebuild: o.rebuild, ...(o.cacheDir ? { cacheDir: o.cacheDir } : {}), log: (l) => process.stderr.write(`${l}\n`) });
      const written = await writeBundle(b, resolve(o.out));
      const m = b.manifest;
      process.stdout.write(
        `${written}: pincer-daemon ${m.daemon} with Node.js ${m.node}, ${formatBytes(m.bytes)} unpacked\n` +
          `  runs on x86-64 Linux with glibc ≥ ${m.glibcNeeded} (made for 2.31: Debian 11, Ubuntu 20.04 and newer)\n` +
          `  takes from the system: ${m.systemLibraries.join(", ")}\n` +
          `  install on a host: sudo ./install.sh --user USER (in the unpacked folder), or pincer machine install ssh://root@HOST --user USER\n`,
      );
    });
}

/** `pincer image adopt DISK`: a VM image from a disk Pincer did not build. */
function registerAdopt(image: Command): void {
  image
    .command("adopt")
    .description("make a VM image for --provider qemu from a disk Pincer did not build (a copy: the disk is never written)")
    .argument("<disk>", "the VM's disk: qcow2, raw, vmdk, vdi or vhdx, booting with its own bootloader (BIOS or UEFI)")
    .requiredOption("--user <user>", "the desktop user its display manager logs in (autologin); the daemon runs as this user")
    .option("--display <display>", "that user's X display", ":0")
    .option("--xauthority <file>", "the session's Xauthority (default: found at boot in the session's processes, else ~/.Xauthority)")
    .option("--name <name>", "the image's name (default: the disk's file name)")
    .addOption(
      new Option("--firmware <firmware>", "how it boots (default: UEFI for a GPT disk with an EFI system partition only, else BIOS)").choices(["bios", "uefi"]),
    )
    .option("--cache-dir <dir>", "where the image is kept (default $PINCER_CACHE_DIR, else ~/.cache/pincer)")
    .action(async (disk: string, o: { user: string; display: string; xauthority?: string; name?: string; firmware?: "bios" | "uefi"; cacheDir?: string }) => {
      const { adoptImage } = await import("../machines/images/adopt.js");
      const t0 = performance.now();
      const m = await adoptImage({
        disk,
        user: o.user,
        display: o.display,
        ...(o.xauthority ? { xauthority: o.xauthority } : {}),
        ...(o.name ? { name: o.name } : {}),
        ...(o.firmware ? { firmware: o.firmware } : {}),
        ...(o.cacheDir ? { cacheDir: o.cacheDir } : {}),
        log: (l) => process.stderr.write(`${l}\n`),
      });
      const file = join(m.dir, "image.json");
      process.stdout.write(
        `adopted ${m.adopted!.source} (sha256 ${m.adopted!.sha256.slice(0, 16)}…, unchanged) as ${file}\n` +
          `  disk: ${m.qcow2!.disk}; the daemon runs as ${m.adopted!.user} on ${m.adopted!.display}\n` +
          `  use it: pincer run TASKS --provider qemu --image ${file}\n  took ${((performance.now() - t0) / 1000).toFixed(1)} s\n`,
      );
    });
}

/** `pincer image prune`: older images out of the cache and the engine; what is in use is skipped. */
function registerPrune(image: Command): void {
  image
    .command("prune")
    .description("remove older images from the cache and the container engine; each profile keeps the one --image <profile> uses")
    .option("--keep <n>", "images kept per profile", positiveInt, 1)
    .addOption(new Option("--profile <name>", "only this profile's images").choices([...PROFILE_NAMES]))
    .option("--dry-run", "say what would be removed, remove nothing", false)
    .option("--cache-dir <dir>", "where images are kept (default $PINCER_CACHE_DIR, else ~/.cache/pincer)")
    .option("--engine <socket>", "container engine holding the images' tags (default: found, or a private podman service)")
    .action(async (o: { keep: number; profile?: string; dryRun: boolean; cacheDir?: string; engine?: string }) => {
      const { openEngine } = await import("../machines/dockerEngine.js");
      const entries = await pruneImages({
        keep: o.keep,
        dryRun: o.dryRun,
        ...(o.profile ? { profile: o.profile } : {}),
        ...(o.cacheDir ? { cacheDir: o.cacheDir } : {}),
        openEngine: () => openEngine({ ...(o.engine ? { address: o.engine } : {}), log: (l) => process.stderr.write(`${l}\n`) }),
      });
      if (entries.length === 0) process.stdout.write("no images in the cache\n");
      for (const e of entries) process.stdout.write(`${describeEntry(e)}\n`);
      const gone = entries.filter((e) => e.outcome === "removed" || e.outcome === "to remove");
      const freed = formatBytes(gone.reduce((n, e) => n + e.bytes, 0));
      const skipped = entries.filter((e) => e.outcome === "skipped").length;
      const kept = entries.length - gone.length - skipped;
      process.stdout.write(`${o.dryRun ? "would free" : "freed"} ${freed} in ${gone.length} image(s); kept ${kept}; skipped ${skipped} in use\n`);
    });
}

/** After a build: how much older images of the profile take, and what removes them. */
async function sayOlderImages(m: ImageManifest, cacheDir: string | undefined): Promise<void> {
  const older = (await pruneImages({ dryRun: true, profile: m.profile, ...(cacheDir ? { cacheDir } : {}) })).filter((e) => e.outcome === "to remove");
  if (older.length === 0) return;
  const bytes = older.reduce((n, e) => n + e.bytes, 0);
  process.stdout.write(`  ${older.length} older ${m.profile} image(s) take ${formatBytes(bytes)}: pincer image prune removes them\n`);
}
