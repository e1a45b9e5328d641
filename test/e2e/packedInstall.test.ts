import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { sandboxSupport } from "../../packages/controller/src/machines/sandbox.js";
import { stopProcess } from "../fixtures/xvfb.js";

// The three packages as a user gets them: `npm pack` of each workspace, installed with
// `npm i ./pincer-*.tgz zod` into an empty folder under the OS temp dir, outside the repository.
// Everything then runs there with the repository hidden (a bubblewrap mount namespace puts an
// empty tmpfs over it), so any file still looked up in the checkout makes a step fail.

const ROOT = resolve(import.meta.dirname, "../..");
const PACKAGES = ["shared", "daemon", "controller"] as const;

let scratch: string;
let project: string;
let sharedOnly: string;
let tarballs: string[];

/** This process's environment without what npm and vitest put there (a workspace, a node loader). */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(npm_|VITEST|NODE_OPTIONS$|INIT_CWD$)/i.test(k)));
}

/** argv run with the repository replaced by an empty folder (and the command killed if bwrap dies). */
function hidden(argv: string[]): string[] {
  return ["bwrap", "--dev-bind", "/", "/", "--tmpfs", ROOT, "--die-with-parent", "--", ...argv];
}

function run(argv: string[], cwd: string, timeoutMs = 120_000): { code: number | null; stdout: string; stderr: string } {
  const [file, ...args] = argv;
  const r = spawnSync(file!, args, { cwd, env: cleanEnv(), encoding: "utf8", timeout: timeoutMs });
  if (r.error) throw new Error(`${argv.join(" ")}: ${r.error.message}`);
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** npm install into `dir` (a fresh project), failing with npm's own output. */
function npmInstall(dir: string, specs: string[]): void {
  writeFileSync(join(dir, "package.json"), `${JSON.stringify({ name: "pincer-user", private: true, type: "module" }, null, 2)}\n`);
  const r = run(["npm", "install", ...specs, "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"], dir, 170_000);
  if (r.code !== 0) throw new Error(`npm install ${specs.join(" ")} failed (${r.code}): ${r.stderr.slice(-3000)}`);
}

beforeAll(() => {
  // The tarballs hold dist/: build it as `npm ci` does.
  execFileSync(process.execPath, [join(ROOT, "node_modules/typescript/bin/tsc"), "-b", "packages/daemon", "packages/controller"], {
    cwd: ROOT,
    stdio: "inherit",
  });
  const probe = spawnSync("bwrap", ["--dev-bind", "/", "/", "--tmpfs", ROOT, "--", "ls", "-A", ROOT], { encoding: "utf8" });
  if (probe.status !== 0 || probe.stdout !== "") {
    throw new Error(
      `this test hides the repository with bubblewrap, which failed here (${probe.error?.message ?? probe.stderr}): apt-get install bubblewrap, run as root`,
    );
  }
  scratch = mkdtempSync(join(tmpdir(), "pincer-packed-"));
  expect(scratch.startsWith(`${ROOT}/`)).toBe(false);
  // Closed to other users, as a project under /root is: local machines' sandboxes must not need to
  // walk into it to reach the installed daemon.
  chmodSync(scratch, 0o700);
  const packs = join(scratch, "packs");
  mkdirSync(packs);
  const workspaces = PACKAGES.flatMap((p) => ["-w", `@pincer/${p}`]);
  execFileSync("npm", ["pack", "--silent", "--pack-destination", packs, ...workspaces], { cwd: ROOT, env: cleanEnv(), stdio: ["ignore", "ignore", "inherit"] });
  tarballs = readdirSync(packs)
    .filter((f) => f.endsWith(".tgz"))
    .map((f) => join(packs, f));
  expect(tarballs.map((t) => t.replace(/-[\d.]+\.tgz$/, "").slice(packs.length + 1)).sort()).toEqual(["pincer-controller", "pincer-daemon", "pincer-shared"]);
  project = join(scratch, "project");
  sharedOnly = join(scratch, "shared-only");
  mkdirSync(project);
  mkdirSync(sharedOnly);
  npmInstall(project, [...tarballs, "zod"]);
  npmInstall(
    sharedOnly,
    tarballs.filter((t) => t.includes("pincer-shared-")),
  );
}, 240_000);

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe("the packed packages, installed into an empty folder", () => {
  test("install a complete tree: npm ls finds nothing missing, nothing is linked back, the native helpers are built, grpc-js is the pinned one", () => {
    const ls = run(["npm", "ls", "--all"], project);
    expect(ls.code, `${ls.stdout}\n${ls.stderr}`).toBe(0);
    for (const p of PACKAGES) expect(lstatSync(join(project, "node_modules/@pincer", p)).isDirectory()).toBe(true);
    expect(existsSync(join(project, "node_modules/@pincer/daemon/native/build/pincer-spawner"))).toBe(true);
    expect(existsSync(join(project, "node_modules/@pincer/daemon/native/build/pincer_memory.node"))).toBe(true);
    expect(existsSync(join(project, "node_modules/@pincer/controller/native/build/pincer-sandbox"))).toBe(true);
    const pin = (JSON.parse(readFileSync(join(ROOT, "packages/daemon/package.json"), "utf8")) as { dependencies: Record<string, string> }).dependencies[
      "@grpc/grpc-js"
    ];
    const installed = (JSON.parse(readFileSync(join(project, "node_modules/@grpc/grpc-js/package.json"), "utf8")) as { version: string }).version;
    expect(installed).toBe(pin);
  });

  test("@pincer/shared on its own installs its dependencies and loads the contract from its embedded copy", () => {
    const script = `import { serviceNames } from "@pincer/shared";\nconsole.log(JSON.stringify(serviceNames()));\n`;
    writeFileSync(join(sharedOnly, "contract.mjs"), script);
    const r = run(hidden([process.execPath, "contract.mjs"]), sharedOnly);
    expect(r.stderr).toBe("");
    expect(JSON.parse(r.stdout)).toEqual(expect.arrayContaining(["Input", "Screen", "System", "Files", "Process", "Accessibility"]));
    expect(existsSync(join(sharedOnly, "node_modules/@pincer/shared/proto"))).toBe(false);
  });

  describe("a script drives the installed pincer-daemon through the installed @pincer/controller", () => {
    let daemon: ChildProcess | undefined;
    afterAll(async () => {
      if (daemon) {
        daemon.stdin!.end();
        await stopProcess(daemon, 10_000);
      }
    });

    // Both driver sets from the tarball: the portable one forks dist/drivers/nutWorker.js and loads nut-js from the install.
    test.each(["native", "portable"])("a screenshot, the pointer and a command (%s drivers)", async (drivers) => {
      const [file, ...args] = hidden([
        join(project, "node_modules/.bin/pincer-daemon"),
        "--xvfb",
        "1280x800x24",
        "--port",
        "0",
        "--exit-with-stdin",
        "--drivers",
        drivers,
      ]);
      const own = spawn(file!, args, { cwd: project, env: cleanEnv(), stdio: ["pipe", "pipe", "pipe"] });
      daemon = own;
      try {
        let stderr = "";
        own.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
        const address = await new Promise<string>((res, rej) => {
          let out = "";
          own.stdout!.on("data", (d: Buffer) => {
            out += d.toString();
            const m = /listening on (\S+)/.exec(out);
            if (m) res(m[1]!);
          });
          own.once("exit", (code) => rej(new Error(`the installed pincer-daemon exited with ${code}: ${stderr}`)));
        });
        const script = `import { connect } from "@pincer/controller";
const env = connect(process.argv[2]);
const shot = await env.screen.screenshot();
await env.mouse.move({ x: 321, y: 123 });
const cursor = await env.mouse.position();
const cmd = await env.process.run(["sh", "-c", "echo packed-$((6 * 7))"]);
const { drivers } = await env.system.info();
env.close();
console.log(JSON.stringify({
  controller: import.meta.resolve("@pincer/controller"),
  shot: { width: shot.width, height: shot.height, mimeType: shot.mimeType, png: shot.data.subarray(1, 4).toString() },
  cursor,
  stdout: cmd.stdout,
  exitCode: cmd.exitCode,
  set: drivers.set,
}));
`;
        writeFileSync(join(project, "drive.mjs"), script);
        const r = run(hidden([process.execPath, "drive.mjs", address]), project, 60_000);
        expect(r.stderr).toBe("");
        expect(JSON.parse(r.stdout)).toEqual({
          controller: `file://${project}/node_modules/@pincer/controller/dist/index.js`,
          shot: { width: 1280, height: 800, mimeType: "image/png", png: "PNG" },
          cursor: { x: 321, y: 123 },
          stdout: "packed-42\n",
          exitCode: 0,
          set: drivers,
        });
      } finally {
        own.stdin!.end();
        await stopProcess(own, 10_000);
        daemon = undefined;
      }
    });
  });

  test("npx pincer validate and npx pincer run a one-task dataset on local machines", () => {
    const task = join(project, "tasks", "cli", "greet");
    mkdirSync(task, { recursive: true });
    const json = {
      id: "greet",
      snapshot: "pincer-xvfb",
      instruction: "Create /tmp/greet/greeting.txt containing the line: Hello from Pincer",
      related_apps: ["bash"],
      action_number: 1,
      config: [{ func: "execute", arguments: { command: "rm -rf /tmp/greet && mkdir -p /tmp/greet" } }],
      evaluation: { func: "compare_text_file", arguments: { local_expected: "expected.txt", vm_result: "/tmp/greet/greeting.txt" } },
    };
    writeFileSync(join(task, "greet.json"), JSON.stringify(json, null, 2));
    writeFileSync(join(task, "expected.txt"), "Hello from Pincer\n");
    const solution = [{ tool: "desktop__run_command", args: { command: "printf 'Hello from Pincer\\n' > /tmp/greet/greeting.txt" } }];
    writeFileSync(join(task, "solution.json"), JSON.stringify(solution));

    const validate = run(hidden(["npx", "--no", "pincer", "validate", "tasks"]), project);
    expect(validate.stdout, validate.stderr).toContain("1 task(s) valid; 0 error(s)");
    expect(validate.code).toBe(0);

    const r = run(hidden(["npx", "--no", "pincer", "run", "tasks", "--provider", "local", "--run-id", "packed", "--strict"]), project);
    expect(r.stdout, r.stderr).toContain("passed 1, failed 0, errors 0");
    expect(r.code).toBe(0);
    const runDir = join(project, "results", "packed");
    const summary = JSON.parse(readFileSync(join(runDir, "cli", "greet", "attempt-1", "summary.json"), "utf8")) as { results: { score: number } };
    expect(summary.results.score).toBe(1);
    // The machine ran in the sandbox this computer supports, from the installed daemon and helper.
    const manifest = JSON.parse(readFileSync(join(runDir, "manifest.json"), "utf8")) as { provider: { config: { sandbox: string } } };
    expect(manifest.provider.config.sandbox).toBe(sandboxSupport().mode);
  });
});
