import { execFileSync, spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { connect, UnauthenticatedError } from "@pincer/controller";
import { DAEMON_NODE_FLAGS } from "@pincer/shared";
import { stopProcess } from "../fixtures/xvfb.js";

// systemd is not PID 1 on CI machines (nor in most containers), so `systemctl enable --now` cannot
// be exercised here. What is tested for real: the dry run, the generated unit through
// `systemd-analyze verify`, and a full install into temporary directories with --no-start (npm
// install of the packed packages, token file, config, unit), then the installed daemon started as
// the unit would start it — as the unit's user — and called, then the uninstall.

const ROOT = resolve(import.meta.dirname, "../..");
const INSTALL = join(ROOT, "scripts/install-daemon.sh");
const UNINSTALL = join(ROOT, "scripts/uninstall-daemon.sh");
const USER = "nobody"; // exists on every Debian; any non-root account shows the ownership
const isRoot = process.getuid?.() === 0;

let dir: string;
let dirs: { prefix: string; configDir: string; unitDir: string };
let dirArgs: string[];

function sh(script: string, args: string[]) {
  const r = spawnSync("bash", [script, ...args], { cwd: ROOT, encoding: "utf8", timeout: 180_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The unit file printed by --dry-run (between its "== …service" and the next "==" line). */
function unitFromDryRun(out: string): string {
  const lines = out.split("\n");
  const start = lines.findIndex((l) => /^== .*\.service$/.test(l));
  const end = lines.findIndex((l, i) => i > start && l.startsWith("== "));
  return `${lines.slice(start + 1, end).join("\n")}\n`;
}

function verify(unitText: string, name: string): { code: number | null; problems: string[] } {
  const file = join(dir, name);
  writeFileSync(file, unitText);
  const r = spawnSync("systemd-analyze", ["verify", file], { encoding: "utf8" });
  if (r.error) throw new Error(`systemd-analyze is missing (${r.error.message}): apt-get install systemd (scripts/install-system-deps.sh)`);
  // systemd flags User=nobody itself as unsafe; that is this test's choice of user, not the unit's.
  const problems = r.stderr.split("\n").filter((l) => l.trim() && !l.includes("Special user nobody configured"));
  return { code: r.status, problems };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "pincer-install-"));
  chmodSync(dir, 0o755); // the service user must reach the installed files
  dirs = { prefix: join(dir, "opt"), configDir: join(dir, "etc"), unitDir: join(dir, "units") };
  dirArgs = ["--prefix", dirs.prefix, "--config-dir", dirs.configDir, "--unit-dir", dirs.unitDir];
  // The script installs the built packages and refuses a stale build.
  execFileSync(process.execPath, [join(ROOT, "node_modules/typescript/bin/tsc"), "-b", "packages/daemon"], { cwd: ROOT, stdio: "inherit" });
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("install-daemon.sh --dry-run", () => {
  test("prints the unit, the config and the actions, and changes nothing", () => {
    const r = sh(INSTALL, ["--user", USER, "--display", ":3", "--host", "0.0.0.0", "--port", "50777", "--dry-run", ...dirArgs]);
    expect(r.code).toBe(0);
    const unit = unitFromDryRun(r.stdout);
    for (const line of [
      `User=${USER}`,
      "Group=nogroup",
      "Environment=DISPLAY=:3",
      "Environment=XAUTHORITY=/nonexistent/.Xauthority",
      "Restart=on-failure",
      "LimitNOFILE=65536",
      `ExecStart=${process.execPath} ${DAEMON_NODE_FLAGS.join(" ")} ${dirs.prefix}/node_modules/@pincer/daemon/dist/main.js ` +
        `--config ${dirs.configDir}/daemon.json`,
      "WantedBy=graphical.target",
    ]) {
      expect(unit.split("\n")).toContain(line);
    }
    expect(r.stdout).toContain('"host": "0.0.0.0"');
    expect(r.stdout).toContain(`"tokenFile": "${dirs.configDir}/token"`);
    expect(r.stdout).toMatch(/openssl rand -hex 32 > .*\/token/);
    expect(r.stdout).toContain(`chmod 600 ${dirs.configDir}/token`);
    for (const d of Object.values(dirs)) expect(existsSync(d)).toBe(false);
  });

  test("refuses what it cannot do, with the reason", () => {
    expect(sh(INSTALL, ["--dry-run"]).stderr).toContain("--user is required");
    expect(sh(INSTALL, ["--user", "no-such-user-pincer", "--dry-run"]).stderr).toContain("no such user");
    expect(sh(INSTALL, ["--user", USER, "--port", "99999", "--dry-run"]).stderr).toContain("not a port");
    expect(sh(INSTALL, ["--user", USER, "--tls-cert", "c.pem", "--dry-run"]).stderr).toContain("go together");
  });
});

describe("the generated unit passes systemd-analyze verify", () => {
  test.each([
    ["the user's desktop", ["--display", ":0"]],
    ["its own Xvfb", ["--xvfb", "1920x1080x24"]],
  ])("%s", (_name, extra) => {
    const r = sh(INSTALL, ["--user", USER, ...extra, "--dry-run", ...dirArgs]);
    expect(r.code).toBe(0);
    const result = verify(unitFromDryRun(r.stdout), "pincer-daemon.service");
    expect(result.problems).toEqual([]);
    expect(result.code).toBe(0);
  });

  test("and verify does catch a broken unit (the check is not vacuous)", () => {
    const r = sh(INSTALL, ["--user", USER, "--dry-run", ...dirArgs]);
    const broken = unitFromDryRun(r.stdout)
      .replace(/^ExecStart=\S+/m, "ExecStart=/nonexistent/node")
      .replace("Restart=on-failure", "Restart=sometimes");
    const result = verify(broken, "broken.service");
    expect(result.code).not.toBe(0);
    expect(result.problems.join("\n")).toMatch(/restart specifier/);
  });
});

describe.skipIf(!isRoot)("install for real (into temporary directories, --no-start), run, uninstall", () => {
  test("installs, the token is the user's alone, the installed daemon serves as that user, uninstall removes it all", async () => {
    const r = sh(INSTALL, ["--user", USER, "--host", "0.0.0.0", "--port", "50777", "--no-start", ...dirArgs]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const tokenFile = join(dirs.configDir, "token");
    const st = statSync(tokenFile);
    expect(st.mode & 0o777).toBe(0o600);
    expect(st.uid).toBe(Number(execFileSync("id", ["-u", USER], { encoding: "utf8" }).trim()));
    const token = readFileSync(tokenFile, "utf8").trim();
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    const unitFile = join(dirs.unitDir, "pincer-daemon.service");
    expect(verify(readFileSync(unitFile, "utf8"), "installed.service").problems).toEqual([]);
    const mainJs = join(dirs.prefix, "node_modules/@pincer/daemon/dist/main.js");
    expect(existsSync(mainJs)).toBe(true);
    // The package's install script compiled the native spawner and the heap addon on this machine.
    expect(existsSync(join(dirs.prefix, "node_modules/@pincer/daemon/native/build/pincer-spawner"))).toBe(true);
    expect(existsSync(join(dirs.prefix, "node_modules/@pincer/daemon/native/build/pincer_memory.node"))).toBe(true);
    // The contract travels embedded in @pincer/shared's code: no .proto file is shipped or read.
    expect(existsSync(join(dirs.prefix, "node_modules/@pincer/shared/dist/generated/contractJson.js"))).toBe(true);
    expect(existsSync(join(dirs.prefix, "node_modules/@pincer/shared/proto"))).toBe(false);

    // Start it the way the unit does (its user, its config), on a free port instead of 50777.
    const child = spawn(
      "runuser",
      ["-u", USER, "--", process.execPath, ...DAEMON_NODE_FLAGS, mainJs, "--config", join(dirs.configDir, "daemon.json"), "--port", "0"],
      {
        cwd: "/",
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stderr = "";
    child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
    try {
      const address = await new Promise<string>((res, rej) => {
        let out = "";
        child.stdout!.on("data", (d: Buffer) => {
          out += d.toString();
          const m = /listening on 0\.0\.0\.0:(\d+)/.exec(out);
          if (m) res(`127.0.0.1:${m[1]}`);
        });
        child.once("exit", (code) => rej(new Error(`installed daemon exited with ${code}: ${stderr}`)));
      });
      const env = connect(address, { token });
      const info = await env.system.info();
      env.close();
      expect(info.display).toBe(":0");
      const asUser = connect(address, { token });
      // cwd: nobody's home, the default, does not exist.
      expect((await asUser.process.run(["id", "-un"], { cwd: "/" })).stdout.trim()).toBe(USER);
      asUser.close();
      const anonymous = connect(address);
      await expect(anonymous.system.info()).rejects.toBeInstanceOf(UnauthenticatedError);
      anonymous.close();
    } finally {
      await stopProcess(child);
    }

    // A reinstall keeps the token, so controllers keep working.
    expect(sh(INSTALL, ["--user", USER, "--no-start", ...dirArgs]).code).toBe(0);
    expect(readFileSync(tokenFile, "utf8").trim()).toBe(token);

    const u = sh(UNINSTALL, dirArgs);
    expect(u.code).toBe(0);
    for (const d of [dirs.prefix, dirs.configDir]) expect(existsSync(d)).toBe(false);
    expect(existsSync(unitFile)).toBe(false);
  }, 300_000);
});
