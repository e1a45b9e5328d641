import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { expect, test } from "vitest";

// scripts/install-system-deps.sh installs what one job needs: the demo gets no container engine,
// no VM, no browser; the tests get everything. --list prints a job's packages without installing.

const SCRIPT = resolve(import.meta.dirname, "../../scripts/install-system-deps.sh");
const list = (...args: string[]) => {
  const r = spawnSync("bash", [SCRIPT, ...args, "--list"], { encoding: "utf8" });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.trim().split("\n");
};

test("the demo's packages: its X programs and the sandbox, none of the images', the tests' or the bench's", () => {
  const demo = list();
  expect(list("demo")).toEqual(demo);
  expect(demo).toEqual(expect.arrayContaining(["xvfb", "xterm", "x11-apps", "xclip", "python3", "imagemagick", "gcc", "bubblewrap", "util-linux"]));
  for (const heavy of ["podman", "qemu-system-x86", "mmdebstrap", "chromium", "redis-server", "ffmpeg", "openssh-server"]) expect(demo).not.toContain(heavy);
});

test("the tests' packages hold the demo's and the images', and the bench adds sshd and Flask", () => {
  const tests = list("test");
  expect(tests).toEqual(expect.arrayContaining([...list("demo"), ...list("images"), "chromium", "redis-server", "zenity"]));
  expect(tests).not.toContain("openssh-server");
  expect(list("bench")).toEqual([...tests, "openssh-server", "openssh-client", "python3-flask", "python3-pil"]);
  expect(list("all")).toEqual(list("bench"));
});

test("an unknown job is refused, naming the jobs there are", () => {
  const r = spawnSync("bash", [SCRIPT, "tests"], { encoding: "utf8" });
  expect(r.status).toBe(2);
  expect(r.stderr).toContain("unknown job 'tests': give demo (the default), images, test, bench or all");
});

test("a package lock held by another apt is waited for, with a message, then the missing packages are installed", () => {
  // Stand-ins on PATH: dpkg-query finds nothing installed; apt-get's first update finds the lists
  // locked, as while another apt runs; every call is logged.
  const dir = mkdtempSync(join(tmpdir(), "pincer-apt-"));
  try {
    writeFileSync(join(dir, "dpkg-query"), "#!/bin/sh\nexit 1\n", { mode: 0o755 });
    writeFileSync(
      join(dir, "apt-get"),
      `#!/bin/sh\necho "$*" >> ${dir}/calls\ncase "$*" in *update*) if [ ! -f ${dir}/locked-once ]; then touch ${dir}/locked-once; ` +
        `echo "E: Could not get lock /var/lib/apt/lists/lock. It is held by process 1 (apt-get)" >&2; exit 100; fi;; esac\nexit 0\n`,
      { mode: 0o755 },
    );
    const r = spawnSync("bash", [SCRIPT, "demo"], { encoding: "utf8", env: { ...process.env, PATH: `${dir}:${process.env.PATH}` } });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain("another apt or dpkg is running; waiting for it (up to 10 minutes)");
    const calls = readFileSync(join(dir, "calls"), "utf8").trim().split("\n");
    expect(calls).toHaveLength(3);
    expect(calls[2]).toMatch(/^-o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends xvfb .*util-linux$/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 30_000);
