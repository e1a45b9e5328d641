import { existsSync, mkdtempSync, readdirSync, statSync } from "node:fs";
import { readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { RemoteEnv } from "../../packages/controller/src/env/index.js";
import { buildImage, cacheRoot, type ImageBuildOptions, type ImageManifest } from "../../packages/controller/src/machines/images/build.js";
import { containerProvider, type ContainerProvider } from "../../packages/controller/src/machines/containerProvider.js";
import { onPath, openEngine } from "../../packages/controller/src/machines/dockerEngine.js";
import { openPool, type MachinePool } from "../../packages/controller/src/machines/provider.js";
import { makeDeb, makeSignedRepository } from "../fixtures/aptRepository.js";

// The office image with a .deb made here (its dependency, Debian's `hello`, comes from Debian), a
// package from a local apt repository signed with a key made here (a file: source), and network
// sources with their key (Debian's backports, signed-by Debian's keyring given as --apt-key): what a
// user does for Google Chrome or VS Code, with the one archive this machine can reach. Like Chrome's
// package, the repository's package configures a repository itself, without signed-by, which apt
// would refuse beside Pincer's entry for it: backports again at deb.debian.org:80, which apt counts
// as another repository, stands for the vendor's.
// The image goes to a cache folder of its own, removed at the end; the packages it downloads go to
// the usual package cache, so that the next office build does not download them again.
const work = mkdtempSync(join(tmpdir(), "pincer-apt-extras-"));
const DEBIAN_KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg";
const packageCacheDir = join(cacheRoot(), "images", "apt-archives");
const VENDOR_SOURCE = "deb http://deb.debian.org:80/debian bookworm-backports main";

describe.skipIf(!onPath("podman") && !onPath("docker"))("an office image with --deb and --apt-source", () => {
  let inputs: ImageBuildOptions;
  let image: ImageManifest;
  let provider: ContainerProvider | undefined;
  let pool: MachinePool | undefined;
  let env: RemoteEnv;

  beforeAll(async () => {
    const hello = await makeDeb(work, { name: "pincer-hello", line: "hello from a local .deb", depends: "hello" });
    const greeting = await makeDeb(work, {
      name: "pincer-greeting",
      line: "greeting from a file: repository",
      postinst: `echo '${VENDOR_SOURCE}' > /etc/apt/sources.list.d/pincer-greeting.list`,
    });
    const repo = await makeSignedRepository(work, [greeting]);
    const backports = join(work, "backports.sources");
    await writeFile(
      backports,
      "Types: deb\nURIs: http://deb.debian.org/debian\nSuites: bookworm-backports\nComponents: main\nSigned-By: debian-archive-keyring.gpg\n",
    );
    inputs = {
      profile: "office",
      formats: ["container"],
      cacheDir: join(work, "cache"),
      packageCacheDir,
      debs: [hello],
      aptKeys: [repo.key, DEBIAN_KEYRING],
      aptSources: [
        `deb [signed-by=${repo.key}] file:${repo.folder} ./`,
        backports,
        VENDOR_SOURCE.replace("deb ", "deb [signed-by=debian-archive-keyring.gpg] "),
      ],
      addPackages: ["pincer-greeting"],
      log: (l) => {
        if (process.env.PINCER_TEST_VERBOSE) process.stderr.write(`[image] ${l}\n`);
      },
    };
    const t0 = performance.now();
    image = await buildImage(inputs);
    console.log(`office image with a .deb and two extra sources: built in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }, 30 * 60_000);

  afterAll(async () => {
    await pool?.close();
    await provider?.close();
    if (image?.container) {
      const engine = await openEngine();
      try {
        await engine.docker.getImage(image.container.tag).remove();
      } finally {
        await engine.close();
      }
    }
    await rm(work, { recursive: true, force: true });
  });

  test("the same inputs again give the cached image", async () => {
    const t0 = performance.now();
    const again = await buildImage(inputs);
    const seconds = (performance.now() - t0) / 1000;
    console.log(`office image with a .deb and two extra sources: cached in ${seconds.toFixed(1)} s`);
    expect(again.dir).toBe(image.dir);
    expect(again.created).toBe(image.created);
    expect(image.apt).toEqual({
      sources: inputs.aptSources,
      keys: ["pincer-test-repo.asc", "debian-archive-keyring.gpg"],
      debs: ["pincer-hello 1.0"],
    });
  });

  test("in a container of it, the .deb's program, its dependency from Debian and the file: repository's program run", async () => {
    provider = containerProvider({ image: image.container!.tag });
    pool = await openPool(provider, ["desktop"], 1);
    env = pool.slots[0]!.envs.desktop as RemoteEnv;
    const run = async (cmd: string) => {
      const r = await env.process.run(cmd);
      expect(r.exitCode, `${cmd}: ${r.stderr}`).toBe(0);
      return r.stdout;
    };
    expect(await run("pincer-hello")).toBe("hello from a local .deb\n");
    expect(await run("pincer-greeting")).toBe("greeting from a file: repository\n");
    expect(await run("hello")).toBe("Hello, world!\n");
    // Still an office image.
    expect(await run("for p in libreoffice chromium gimp vlc thunderbird; do command -v $p; done | wc -l")).toBe("5\n");
  }, 120_000);

  test("the image keeps a network source signed-by its key unless a package configures its repository; nothing of the file: source", async () => {
    const list = await env.process.run("ls /etc/apt/sources.list.d /etc/apt/keyrings");
    expect(list.stdout).toBe(
      "/etc/apt/keyrings:\ndebian-archive-keyring.gpg\npincer-test-repo.asc\n\n/etc/apt/sources.list.d:\npincer-1.sources\npincer-greeting.list\n",
    );
    const kept = await env.process.run("cat /etc/apt/sources.list.d/pincer-1.sources");
    expect(kept.stdout).toBe(
      "Types: deb\nURIs: http://deb.debian.org/debian\nSuites: bookworm-backports\nComponents: main\nSigned-By: /etc/apt/keyrings/debian-archive-keyring.gpg\n",
    );
    expect((await env.process.run("cat /etc/apt/sources.list.d/pincer-greeting.list")).stdout).toBe(`${VENDOR_SOURCE}\n`);
    const log = await readFile(join(image.dir, "build.log"), "utf8");
    expect(log).toContain("W: pincer: the image's packages configure the repository of pincer-2.list themselves: it is left out (E: Conflicting values");
    // The folders bound in for the build are gone; those they were made in keep their modes.
    // (The staged .deb was under the same folder: this test's cache folder is in it.)
    expect(image.dir.startsWith(work)).toBe(true);
    expect(existsSync(join(image.rootfs, work))).toBe(false);
    expect(readdirSync(join(image.rootfs, "tmp")).filter((f) => f.startsWith("pincer-"))).toEqual([]);
    expect(statSync(join(image.rootfs, "tmp")).mode & 0o7777).toBe(0o1777);
  });

  test("apt-get update works inside: the kept source and its key are usable after the build", async () => {
    // A fetch that cannot reach the archive (a busy host's network, the mirror) says nothing about the
    // source or its key: such an update is tried again, up to three times. Any other warning fails.
    let update = await aptUpdate();
    for (let attempt = 2; attempt <= 3 && onlyUnreachable(update.stderr); attempt++) {
      console.log(`apt-get update could not reach the archive; attempt ${attempt}:\n${update.stderr}`);
      await new Promise((r) => setTimeout(r, 10_000));
      update = await aptUpdate();
    }
    expect(update.exitCode, update.stderr).toBe(0);
    expect(update.stdout).toMatch(/http:\/\/deb\.debian\.org\/debian bookworm-backports InRelease/);
    expect(update.stdout).toMatch(/http:\/\/deb\.debian\.org:80\/debian bookworm-backports InRelease/);
    expect(update.stderr).not.toMatch(/^[EW]: /m);
  }, 720_000);

  const aptUpdate = () => env.process.run("echo password | sudo -S apt-get update", { commandTimeoutMs: 180_000 });
  // True when apt warned and every warning is about reaching a host, none about a source or a key.
  const onlyUnreachable = (stderr: string): boolean => {
    const warnings = stderr.split("\n").filter((l) => /^[EW]: /.test(l.replace(/^\[sudo\] password for user: /, "")));
    const unreachable = /Could not connect|Unable to connect|connection timed out|Temporary failure resolving|Some index files failed to download/;
    return warnings.length > 0 && warnings.every((w) => unreachable.test(w));
  };

  test("the packages the build downloaded are kept for the next build", () => {
    const kept = readdirSync(join(packageCacheDir, "bookworm"));
    for (const name of ["hello", "libreoffice-calc", "chromium"]) expect(kept.some((f) => f.startsWith(`${name}_`))).toBe(true);
    // Packages of the .deb and the file: source are not among them: they are read where they are.
    expect(kept.some((f) => f.startsWith("pincer-"))).toBe(false);
  });
});
