import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { PermissionDeniedError, ResourceExhaustedError, type ProcessEvent } from "@pincer/controller";
import { spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";
import { eventually } from "../fixtures/poll.js";

let base: string;
let root: string;
let outside: string;

beforeAll(() => {
  // realpath: tmpdir() may itself be reached through a symlink.
  base = realpathSync(mkdtempSync(join(tmpdir(), "pincer-policy-")));
  root = join(base, "root");
  outside = join(base, "outside");
  mkdirSync(root);
  mkdirSync(outside);
  writeFileSync(join(outside, "secret.txt"), "not for clients");
  symlinkSync(outside, join(root, "escape")); // a symlink inside the root that points out
  mkdirSync(join(root, "inner"));
  symlinkSync(join(root, "inner"), join(root, "inner-link")); // one that stays inside
});

afterAll(() => {
  if (base) rmSync(base, { recursive: true, force: true });
});

describe("--file-root", () => {
  let daemon: RunningDaemon;
  beforeAll(async () => {
    daemon = await spawnDaemon({ args: ["--file-root", root] });
  });
  afterAll(() => daemon?.close());

  const denied = async (p: Promise<unknown>, path: string) => {
    const err = await p.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PermissionDeniedError);
    expect((err as Error).message).toContain(path);
    expect((err as Error).message).toContain("--file-root");
  };

  test("paths inside the root work, through a symlink that stays inside too", async () => {
    const f = daemon.env.files;
    await f.write(join(root, "a.txt"), "hello");
    expect(await f.read(join(root, "a.txt"))).toBe("hello");
    await f.write(join(root, "inner-link", "b.txt"), "via link");
    expect(await f.read(join(root, "inner", "b.txt"))).toBe("via link");
    await f.mkdir(join(root, "new", "deep"), { parents: true });
    await f.move(join(root, "a.txt"), join(root, "new", "a.txt"));
    expect((await f.list(root)).entries.map((e) => e.name)).toContain("new");
    await f.write(join(root, "inner", "..", "c.txt"), "dots that stay inside");
    expect(existsSync(join(root, "c.txt"))).toBe(true);
  });

  test("'..' out of the root is refused", async () => {
    const path = join(root, "..", "outside", "secret.txt");
    await denied(daemon.env.files.read(path), join(outside, "secret.txt"));
    await denied(daemon.env.files.write(join(root, "..", "dropped.txt"), "x"), join(base, "dropped.txt"));
    expect(existsSync(join(base, "dropped.txt"))).toBe(false);
  });

  test("absolute paths outside the root are refused, for every Files call", async () => {
    const f = daemon.env.files;
    await denied(f.read("/etc/passwd"), "/etc/passwd");
    await denied(f.stat("/etc"), "/etc");
    await denied(f.list("/"), "/");
    await denied(f.mkdir(join(outside, "made")), join(outside, "made"));
    await denied(f.remove(join(outside, "secret.txt")), join(outside, "secret.txt"));
    await denied(f.upload(Buffer.from("x"), join(outside, "up.txt")), join(outside, "up.txt"));
    await f.write(join(root, "to-move.txt"), "x");
    await denied(f.move(join(root, "to-move.txt"), join(outside, "moved.txt")), join(outside, "moved.txt"));
    await denied(f.move(join(outside, "secret.txt"), join(root, "stolen.txt")), join(outside, "secret.txt"));
    expect(readdirSync(outside).sort()).toEqual(["secret.txt"]);
    expect(existsSync(join(root, "to-move.txt"))).toBe(true);
  });

  test("a symlink inside the root that points out is refused, also for new files under it", async () => {
    const f = daemon.env.files;
    await denied(f.read(join(root, "escape", "secret.txt")), join(root, "escape", "secret.txt"));
    // The link itself is an entry of the root: Stat describes it (as List does) without following it.
    expect(await f.stat(join(root, "escape"))).toMatchObject({ type: "symlink", symlinkTarget: outside });
    await denied(f.list(join(root, "escape")), join(root, "escape"));
    await denied(f.download(join(root, "escape", "secret.txt")), join(root, "escape", "secret.txt"));
    await denied(f.write(join(root, "escape", "planted.txt"), "x"), join(root, "escape", "planted.txt"));
    await denied(f.mkdir(join(root, "escape", "a", "b"), { parents: true }), join(root, "escape", "a", "b"));
    expect(readdirSync(outside).sort()).toEqual(["secret.txt"]);
  });

  test("process working directories obey the root, and default to it", async () => {
    await expect(daemon.env.process.run(["pwd"], { cwd: outside })).rejects.toBeInstanceOf(PermissionDeniedError);
    await expect(daemon.env.process.run(["pwd"], { cwd: join(root, "escape") })).rejects.toBeInstanceOf(PermissionDeniedError);
    expect((await daemon.env.process.run(["pwd"])).stdout.trim()).toBe(root);
    expect((await daemon.env.process.run(["pwd"], { cwd: join(root, "inner") })).stdout.trim()).toBe(join(root, "inner"));
  });
});

describe("limits", () => {
  let daemon: RunningDaemon;
  beforeAll(async () => {
    daemon = await spawnDaemon({
      args: ["--max-upload-bytes", "1K", "--max-processes", "2", "--max-output-bytes", "4K", "--max-message-bytes", "64K"],
    });
  });
  afterAll(() => daemon?.close());

  const exhausted = async (p: Promise<unknown>, flag: string) => {
    const err = await p.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ResourceExhaustedError);
    expect((err as Error).message).toContain(flag);
  };

  test("an upload over --max-upload-bytes is refused and leaves nothing", async () => {
    const target = join(base, "limits-up");
    mkdirSync(target);
    await exhausted(daemon.env.files.upload(Buffer.alloc(2048, 1), join(target, "big.bin")), "--max-upload-bytes");
    expect(readdirSync(target)).toEqual([]);
    await daemon.env.files.upload(Buffer.alloc(1024, 1), join(target, "ok.bin"));
    expect(readdirSync(target)).toEqual(["ok.bin"]);
  });

  test("--max-output-bytes caps Run's output and refuses asking for more", async () => {
    const r = await daemon.env.process.run("head -c 10000 /dev/zero");
    expect(r.stdoutBytes.length).toBe(4096);
    expect(r.stdoutTruncated).toBe(true);
    await exhausted(daemon.env.process.run(["true"], { maxOutputBytes: 8192 }), "--max-output-bytes");
  });

  test("--max-processes bounds the commands running at once", async () => {
    const started: ProcessEvent[] = [];
    const handles = [daemon.env.process.start(["sleep", "30"]), daemon.env.process.start(["sleep", "30"])];
    const iterators = handles.map((h) => h[Symbol.asyncIterator]());
    for (const it of iterators) started.push((await it.next()).value as ProcessEvent);
    expect(started.map((e) => e.type)).toEqual(["started", "started"]);
    await exhausted(daemon.env.process.run(["true"]), "--max-processes");
    for (const h of handles) h.kill();
    // Once they are gone, commands run again.
    await eventually(async () => (await daemon.env.process.list()).length === 0);
    expect((await daemon.env.process.run(["true"])).exitCode).toBe(0);
  });

  test("a message over --max-message-bytes is refused with the flag named", async () => {
    await exhausted(daemon.env.process.run(["cat"], { stdin: Buffer.alloc(100 * 1024, 0x61) }), "--max-message-bytes");
  });
});

describe("--no-exec", () => {
  let daemon: RunningDaemon;
  beforeAll(async () => {
    daemon = await spawnDaemon({ args: ["--no-exec"] });
  });
  afterAll(() => daemon?.close());

  test("every Process call is PERMISSION_DENIED and nothing runs; files still work", async () => {
    const marker = join(base, "no-exec-marker");
    for (const call of [
      daemon.env.process.run(["touch", marker]),
      daemon.env.process.launch(["touch", marker]),
      daemon.env.process.list(),
      daemon.env.process.signal(1),
      (async () => {
        for await (const _ of daemon.env.process.start(["touch", marker])) void _;
      })(),
    ]) {
      const err = await call.catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PermissionDeniedError);
      expect((err as Error).message).toContain("--no-exec");
    }
    expect(existsSync(marker)).toBe(false);
    await daemon.env.files.write(join(base, "no-exec.txt"), "files are not commands");
  });
});

describe("--exec-allow", () => {
  let daemon: RunningDaemon;
  beforeAll(async () => {
    daemon = await spawnDaemon({ args: ["--exec-allow", "echo,/bin/true,touch"] });
  });
  afterAll(() => daemon?.close());

  const refused = async (p: Promise<unknown>) => {
    const err = await p.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PermissionDeniedError);
    expect((err as Error).message).toContain("--exec-allow");
  };

  test("listed programs run, by name or by absolute path", async () => {
    expect((await daemon.env.process.run(["echo", "hi"])).stdout).toBe("hi\n");
    expect((await daemon.env.process.run(["/bin/true"])).exitCode).toBe(0);
  });

  test("anything else is refused before it runs", async () => {
    const marker = join(base, "allow-marker");
    await refused(daemon.env.process.run(["ls"]));
    await refused(daemon.env.process.run(["true"])); // only /bin/true is listed, not the name
    await refused(daemon.env.process.run(`touch ${marker}`)); // a shell line needs sh on the list
    await refused(daemon.env.process.launch(["xterm"]));
    // A program that merely carries an allowed name is not the allowed program.
    const fake = join(base, "echo");
    copyFileSync("/bin/sh", fake);
    await refused(daemon.env.process.run([fake, "-c", `touch ${marker}`]));
    await refused(daemon.env.process.run(["./echo"], { cwd: base }));
    // Nor may a client redirect the name lookup or preload code into an allowed program.
    await refused(daemon.env.process.run(["echo"], { env: { PATH: base } }));
    await refused(daemon.env.process.run(["echo"], { env: { LD_PRELOAD: "/tmp/evil.so" } }));
    expect(existsSync(marker)).toBe(false);
  });
});
