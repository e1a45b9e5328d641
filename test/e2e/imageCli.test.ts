import { mkdtempSync, rmSync } from "node:fs";
import { copyFile, mkdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { planImage } from "../../packages/controller/src/machines/images/build.js";
import { makeDeb, makeSignedRepository } from "../fixtures/aptRepository.js";
import { runPincer } from "../fixtures/cli.js";

// An empty cache: nothing here builds an image (that is test/images' part).
const cache = mkdtempSync(join(tmpdir(), "pincer-image-cli-"));
const env = { ...process.env, PINCER_CACHE_DIR: cache };
afterAll(() => rmSync(cache, { recursive: true, force: true }));

describe("pincer image and --provider on the command line", () => {
  test("profiles and an empty cache are listed; a wrong profile or package name is refused before anything is built", async () => {
    const profiles = await runPincer(["image", "profiles"], { env });
    expect(profiles.stdout).toMatch(/^minimal: .*\n {2}xvfb .*imagemagick/m);
    expect(profiles.stdout).toMatch(/^desktop: .*\n {2}.*openbox/m);
    expect(profiles.stdout).toMatch(/^office: .*\n {2}.*libreoffice-calc.*chromium.*gimp.*vlc.*thunderbird/m);
    expect((await runPincer(["image", "list"], { env })).stdout).toContain("no images yet: pincer image build --profile minimal");
    const profile = await runPincer(["image", "build", "--profile", "tiny"], { env });
    expect(profile.code).not.toBe(0);
    expect(profile.stderr).toMatch(/--profile.*tiny.*minimal, desktop, office/s);
    const pkg = await runPincer(["image", "build", "--add-packages", "jq, rm -rf"], { env });
    expect(pkg.code).not.toBe(0);
    expect(pkg.stderr).toContain('"-rf" is not a Debian package name');
  });

  test("image list shows the cache's images newest first and passes over a manifest a crash cut short", async () => {
    const own = mkdtempSync(join(tmpdir(), "pincer-image-list-"));
    try {
      const manifest = (key: string, created: string) => ({
        ...{ profile: "minimal", key, created, suite: "bookworm", mirror: "http://deb.debian.org/debian" },
        ...{ packages: ["xvfb"], addPackages: [], rootfs: join(own, "images", `minimal-${key}`, "rootfs.tar"), dir: join(own, "images", `minimal-${key}`) },
      });
      for (const [key, created] of [
        ["0000000000000001", "2026-01-01T00:00:00.000Z"],
        ["0000000000000002", "2026-02-01T00:00:00.000Z"],
      ] as const) {
        await mkdir(join(own, "images", `minimal-${key}`), { recursive: true });
        await writeFile(join(own, "images", `minimal-${key}`, "image.json"), JSON.stringify(manifest(key, created)));
      }
      await mkdir(join(own, "images", "minimal-0000000000000003"));
      await writeFile(join(own, "images", "minimal-0000000000000003", "image.json"), '{"profile":"minimal","ke');
      const r = await runPincer(["image", "list", "--cache-dir", own], { env });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout.match(/^image \S+/gm)).toEqual(["image minimal-0000000000000002", "image minimal-0000000000000001"]);
    } finally {
      rmSync(own, { recursive: true, force: true });
    }
  });

  test("--provider qemu or container without a built image, or with --env, says what to do", async () => {
    const task = ["run", "examples", "--task", "terminal/write-greeting", "--out", join(cache, "results")];
    const qemu = await runPincer([...task, "--provider", "qemu"], { env });
    expect(qemu.code).not.toBe(0);
    expect(qemu.stderr).toContain('--image "minimal": no such image; build one with `pincer image build --profile minimal`');
    const mixed = await runPincer([...task, "--provider", "container", "--env", "desktop=127.0.0.1:1"], { env });
    expect(mixed.stderr).toContain("--env and --machines give remote machines; they do not go with --provider container");
    const local = await runPincer([...task, "--image", "minimal"], { env });
    expect(local.stderr).toContain("--image needs --provider container or --provider qemu");
  });

  test("an image's key changes with its packages and nothing else given the same inputs", async () => {
    const a = await planImage({ profile: "minimal", cacheDir: cache });
    const b = await planImage({ profile: "minimal", cacheDir: cache });
    const c = await planImage({ profile: "minimal", cacheDir: cache, addPackages: ["jq"] });
    const d = await planImage({ profile: "desktop", cacheDir: cache });
    expect(a.key).toMatch(/^[0-9a-f]{16}$/);
    expect(b.key).toBe(a.key);
    expect(c.key).not.toBe(a.key);
    expect(c.packages).toContain("jq");
    expect(d.key).not.toBe(a.key);
    expect(a.dir).toBe(join(cache, "images", `minimal-${a.key}`));
  });

  describe("--deb, --apt-source and --apt-key", () => {
    // If a check were missing, a build would start: this mirror answers nothing, so it would fail at once.
    const build = ["image", "build", "--profile", "minimal", "--mirror", "http://127.0.0.1:9/debian"];
    const files = join(cache, "apt");
    let deb: string;
    let repo: { folder: string; key: string };
    const plan = (o: object) => planImage({ profile: "minimal", cacheDir: cache, mirror: "http://127.0.0.1:9/debian", ...o });

    beforeAll(async () => {
      await mkdir(files, { recursive: true });
      deb = await makeDeb(files, { name: "pincer-hello", line: "hello", depends: "hello" });
      repo = await makeSignedRepository(files, [await makeDeb(files, { name: "pincer-greeting", line: "greeting" })]);
    });

    test("bad input is refused with what to do, before anything is built", async () => {
      await writeFile(join(files, "text.deb"), "not a package\n");
      await writeFile(join(files, "page.asc"), "<html>404 Not Found</html>\n");
      const cases: [string[], string][] = [
        [["--deb", join(files, "missing.deb")], `--deb ${join(files, "missing.deb")}: no such file`],
        [["--deb", join(files, "text.deb")], "is not a Debian format archive); give a .deb file"],
        [
          ["--apt-source", "deb https://dl.google.com/linux/chrome/deb/ stable"],
          'no component after suite "stable" (e.g. main); write it as "deb [signed-by=KEYFILE] URI',
        ],
        [["--apt-source", "https://dl.google.com/linux/chrome/deb/ stable main"], "neither a source line (it starts with deb) nor a .list or .sources file"],
        [["--apt-key", join(files, "page.asc")], "page.asc: not an OpenPGP public key: neither an ASCII-armored public key"],
        [
          ["--apt-source", `deb [signed-by=pincer-test-repo.asc] file:${repo.folder} ./`],
          "is not one of the --apt-key files; add --apt-key pincer-test-repo.asc",
        ],
      ];
      const results = await Promise.all(cases.map(([args]) => runPincer([...build, ...args], { env })));
      for (const [i, r] of results.entries()) {
        expect(r.code, r.stderr).not.toBe(0);
        expect(r.stderr).toContain(cases[i]![1]);
        expect(r.stderr).not.toMatch(/mmdebstrap|installing pincer-daemon/);
      }
      // The same checks through the library, each stopping before the daemon is built or mmdebstrap runs.
      const source = `deb [signed-by=${repo.key}] file:${repo.folder} ./`;
      await execa("gpg", ["--batch", "--armor", "--export-secret-keys", "--output", join(files, "secret.asc")], {
        env: { ...process.env, GNUPGHOME: join(files, "gnupg") },
      });
      await execa("gpgconf", ["--kill", "gpg-agent"], { env: { ...process.env, GNUPGHOME: join(files, "gnupg") }, reject: false });
      await writeFile(join(files, "bad.sources"), "Types: deb\nURIs: http://deb.debian.org/debian\nComponents: main\n");
      await writeFile(join(files, "two.list"), `# Comments are fine\n${source}\ndeb http://deb.debian.org/debian bookworm-backports\n`);
      const refused: [object, RegExp][] = [
        [{ aptKeys: [repo.key] }, /--apt-key .*pincer-test-repo\.asc: no --apt-source is signed-by it; write \[signed-by=pincer-test-repo\.asc\]/],
        [{ aptKeys: [join(files, "secret.asc")], aptSources: [source] }, /secret\.asc: not an OpenPGP public key: a private key: give its public key/],
        [{ aptKeys: [join(files, "gnupg", "pubring.kbx")] }, /a GnuPG keybox, which apt cannot read: export the key with gpg --export/],
        [{ aptKeys: [repo.key], aptSources: [source.replace("/repo", "/no-repo")] }, /no-repo is not a folder on this computer/],
        [{ aptKeys: [repo.key], aptSources: [source.replace("/repo", "")] }, /no InRelease or Release file in .*: not an apt repository/],
        [{ aptKeys: [repo.key], aptSources: [`${source} main`] }, /suite "\.\/" is an exact path .* takes no components/],
        [{ aptSources: [join(files, "bad.sources")] }, /bad\.sources:1: a stanza with no Suites/],
        [{ aptKeys: [repo.key], aptSources: [join(files, "two.list")] }, /two\.list:3: no component after suite "bookworm-backports"/],
        [{ debs: [deb, deb] }, /is package pincer-hello too; give one file per package/],
        [{ debs: [await makeDeb(files, { name: "pincer-arm", line: "arm", architecture: "arm64" })] }, /package pincer-arm is for arm64; the image is amd64/],
      ];
      for (const [o, message] of refused) await expect(plan(o)).rejects.toThrow(message);
    });

    test("the image's key covers each .deb, source, key and local repository: same inputs, same key", async () => {
      const inputs = { debs: [deb], aptKeys: [repo.key], aptSources: [`deb [signed-by=${repo.key}] file:${repo.folder} ./`], addPackages: ["pincer-greeting"] };
      const a = await plan(inputs);
      expect((await plan(inputs)).key).toBe(a.key);
      expect(a.key).not.toBe((await plan({ addPackages: ["pincer-greeting"] })).key);
      expect(a.extras?.sources).toHaveLength(1);
      // The same source in a .list file, its key from another folder: the same image.
      await mkdir(join(files, "other"), { recursive: true });
      await copyFile(repo.key, join(files, "other", "pincer-test-repo.asc"));
      await writeFile(join(files, "repo.list"), `deb [signed-by=pincer-test-repo.asc] file:${repo.folder} ./\n`);
      const moved = await plan({ ...inputs, aptKeys: [join(files, "other", "pincer-test-repo.asc")], aptSources: [join(files, "repo.list")] });
      expect(moved.key).toBe(a.key);
      // A changed .deb (same name, another program), source option, or repository index: a new key.
      const before = await readFile(deb);
      await makeDeb(files, { name: "pincer-hello", line: "hello, changed", depends: "hello" });
      expect(await readFile(deb)).not.toEqual(before);
      const changedDeb = await plan(inputs);
      expect(changedDeb.key).not.toBe(a.key);
      await writeFile(deb, before);
      expect((await plan(inputs)).key).toBe(a.key);
      const withArch = await plan({ ...inputs, aptSources: [`deb [arch=amd64 signed-by=${repo.key}] file:${repo.folder} ./`] });
      expect(withArch.key).not.toBe(a.key);
      const release = await readFile(join(repo.folder, "InRelease"));
      await writeFile(join(repo.folder, "InRelease"), `${release}\n`);
      expect((await plan(inputs)).key).not.toBe(a.key);
      await writeFile(join(repo.folder, "InRelease"), release);
      expect((await plan(inputs)).key).toBe(a.key);
    });
  });
});
