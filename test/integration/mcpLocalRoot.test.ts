import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";

// `pincer mcp --local-root` gives an MCP client upload_file and download_file over one folder of
// this computer. A symlink inside that folder is no way out: the SDK's own client calls the tools
// of a real `pincer mcp` over stdio against a real daemon, through symlinks planted in the root
// (a final name and an intermediate directory), `..` and an absolute path; each call is an error
// result, the stand-in for a host file (in a temp folder this test made) is neither read onto the
// machine nor written, and no new file appears outside the root.

const ROOT = resolve(import.meta.dirname, "../..");
const CLI = resolve(ROOT, "packages/controller/src/cli/main.ts");
const TOKEN = randomBytes(24).toString("hex");
const SECRET = "stand-in for a host file\n";

let daemon: RunningDaemon;
let base: string;
let root: string;
let host: string;
let secret: string;
let secretWritten: number;
let vm: string;
let client: Client;
let stderr = "";

beforeAll(async () => {
  daemon = await spawnDaemon({ env: { PINCER_TOKEN: TOKEN } });
  base = mkdtempSync(join(tmpdir(), "pincer-mcp-root-"));
  root = join(base, "root");
  host = join(base, "host");
  vm = join(base, "machine");
  for (const d of [root, host, vm]) mkdirSync(d);
  secret = join(host, "secret.txt");
  writeFileSync(secret, SECRET);
  secretWritten = statSync(secret).mtimeMs;
  writeFileSync(join(root, "inside.txt"), "inside\n");
  symlinkSync(secret, join(root, "link-out.txt"));
  symlinkSync(host, join(root, "dir-out"));
  writeFileSync(join(vm, "payload.txt"), "PWNED\n");
  const tokenFile = join(base, "token");
  writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ["--conditions=@pincer/source", "--import", "tsx", CLI, "mcp", "--env", `desktop=${daemon.address}`, "--token-file", tokenFile, "--local-root", root],
    cwd: ROOT,
    stderr: "pipe",
  });
  transport.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
  client = new Client({ name: "pincer-test", version: "0.0.0" });
  await client.connect(transport);
});

afterAll(async () => {
  await client?.close();
  await daemon?.close();
  if (base) rmSync(base, { recursive: true, force: true });
});

const text = (r: Awaited<ReturnType<Client["callTool"]>>) => (r.content as Array<{ type: string; text?: string }>).map((c) => c.text ?? "").join("\n");

function hostUnchanged(): void {
  expect(readFileSync(secret, "utf8")).toBe(SECRET);
  expect(statSync(secret).mtimeMs).toBe(secretWritten);
  for (const name of ["new.txt", "dotdot.txt", "absolute.txt"]) expect(existsSync(join(host, name)), name).toBe(false);
}

describe("pincer mcp --local-root", () => {
  test("upload_file: a symlink in the root, .. and an absolute path outside it read nothing onto the machine", async () => {
    const ways: Record<string, string> = {
      "symlink out": "link-out.txt",
      "symlink as a directory": "dir-out/secret.txt",
      dotdot: "../host/secret.txt",
      absolute: secret,
    };
    for (const [how, local] of Object.entries(ways)) {
      const remote = join(vm, `up-${how.replaceAll(" ", "-")}`);
      const r = await client.callTool({ name: "upload_file", arguments: { local_path: local, remote_path: remote } });
      expect(r.isError, `${how}: ${text(r)}`).toBe(true);
      expect(text(r), how).toMatch(/outside|symlink/);
      expect(existsSync(remote), `${how}: the host file reached the machine`).toBe(false);
    }
    hostUnchanged();
  });

  test("download_file: a symlink in the root, .. and an absolute path outside it write nothing outside", async () => {
    const ways: Record<string, string> = {
      "symlink placed where the file goes": "link-out.txt",
      "symlink as a directory": "dir-out/new.txt",
      dotdot: "../host/dotdot.txt",
      absolute: join(host, "absolute.txt"),
    };
    for (const [how, local] of Object.entries(ways)) {
      const r = await client.callTool({ name: "download_file", arguments: { remote_path: join(vm, "payload.txt"), local_path: local } });
      expect(r.isError, `${how}: ${text(r)}`).toBe(true);
      expect(text(r), how).toMatch(/outside|symlink/);
    }
    hostUnchanged();
  });

  test("inside the root both work, a symlink that stays inside included", async () => {
    symlinkSync("inside.txt", join(root, "link-in.txt"));
    const up = await client.callTool({ name: "upload_file", arguments: { local_path: "link-in.txt", remote_path: join(vm, "in.txt") } });
    expect(up.isError, text(up)).toBeFalsy();
    expect(readFileSync(join(vm, "in.txt"), "utf8")).toBe("inside\n");
    const down = await client.callTool({ name: "download_file", arguments: { remote_path: join(vm, "payload.txt"), local_path: "sub/got.txt" } });
    expect(down.isError, text(down)).toBeFalsy();
    expect(readFileSync(join(root, "sub", "got.txt"), "utf8")).toBe("PWNED\n");
    expect(stderr).not.toMatch(/TypeError|at .*\.ts:\d+/);
  });
});
