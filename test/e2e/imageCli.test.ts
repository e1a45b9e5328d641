import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { planImage } from "../../packages/controller/src/images/build.js";
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
});
