import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { hostname } from "node:os";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { RemoteEnv } from "../../packages/controller/src/env/index.js";
import { containerProvider, type ContainerProvider } from "../../packages/controller/src/machines/containerProvider.js";
import { importContainerImage } from "../../packages/controller/src/machines/images/containerImage.js";
import { openEngine, onPath } from "../../packages/controller/src/machines/dockerEngine.js";
import { openPool, type MachinePool } from "../../packages/controller/src/machines/provider.js";
import { probeMachine, startHostBait } from "../fixtures/hostileProbe.js";
import { expectTokenRequired, IMAGE_BUILD_TIMEOUT_MS, minimalImage } from "../fixtures/image.js";

const FAKE_KEYS = { OPENAI_API_KEY: "sk-fake-runner-key", ANTHROPIC_API_KEY: "sk-ant-fake", AWS_SECRET_ACCESS_KEY: "fake-aws-secret" };

/** The children of this process whose command is `name` (read from /proc: no tool in between). */
function childrenNamed(name: string): number[] {
  return readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        const [, comm, rest] = /^\d+ \((.*)\) (.*)$/s.exec(stat) ?? [];
        return comm === name && rest?.split(" ")[1] === String(process.pid);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** Containers labelled as made by this process, through an engine of their own. */
async function ourContainers(): Promise<string[]> {
  const engine = await openEngine();
  try {
    const list = await engine.docker.listContainers({ all: true, filters: { label: [`pincer.controller=${hostname()}:${process.pid}`] } });
    return list.map((c) => c.Names[0] ?? c.Id);
  } finally {
    await engine.close();
  }
}

const MARKER = "/home/user/left-behind.txt";
const TITLE = "left-open-by-task-1";

describe.skipIf(!onPath("podman") && !onPath("docker"))("the container provider", () => {
  let tag: string;
  let rootfs: string;
  let provider: ContainerProvider | undefined;
  let pool: MachinePool | undefined;

  beforeAll(async () => {
    const image = await minimalImage(["container"]);
    tag = image.container!.tag;
    rootfs = image.rootfs;
  }, IMAGE_BUILD_TIMEOUT_MS);
  afterAll(async () => {
    await pool?.close();
    await provider?.close();
    for (const k of Object.keys(FAKE_KEYS)) delete process.env[k];
  });

  test("a reset gives the slot a new container that sees nothing the last task left: file, clipboard, window", async () => {
    // Secrets in the runner's environment, as `pincer run` has them: no container may see them.
    Object.assign(process.env, FAKE_KEYS);
    provider = containerProvider({ image: tag, screen: "1024x768" });
    pool = await openPool(provider, ["desktop"], 1);
    const slot = pool.slots[0]!;
    // The runner resets before the first attempt too: a machine nothing ran on is left as it is.
    expect((await slot.reset!()).desktop).toMatchObject({ provider: "container", method: "fresh" });
    const first = slot.envs.desktop!;
    expect((await first.system.info()).screen).toEqual({ width: 1024, height: 768 });
    // What the engine needs here: ulimits it can set, an init as PID 1 that reaps orphans.
    const limits = (await first.process.run(["cat", "/proc/self/limits"])).stdout;
    expect(limits).toMatch(/^Max open files\s+20000\s+20000/m);
    expect(limits).toMatch(/^Max processes\s+32768\s+32768/m);
    const [user, init] = (await first.process.run("id -un; cat /proc/1/comm")).stdout.trim().split("\n");
    expect(user).toBe("user");
    expect(init).toMatch(/^(podman-init|catatonit|docker-init|tini)$/);

    // Task 1 leaves a file, the clipboard and a window; the control checks see them.
    await first.files.write(MARKER, "left behind");
    await first.clipboard.set("set by task 1");
    // Not a shell in it: bash's prompt would retitle the window.
    await first.process.launch(["xterm", "-T", TITLE, "-e", "sleep", "600"], { waitForTitle: TITLE });
    expect(await first.files.exists(MARKER)).toBe(true);
    expect(await first.clipboard.get()).toBe("set by task 1");
    expect((await first.windows.list()).map((w) => w.title)).toContain(TITLE);
    const firstAddress = slot.addresses.desktop;

    const reset = (await slot.reset!()).desktop!;
    expect(reset).toMatchObject({ provider: "container", method: "new container" });
    const second = slot.envs.desktop!;
    expect(second).not.toBe(first);
    expect(slot.addresses.desktop).not.toBe(firstAddress);
    expect(await second.files.exists(MARKER)).toBe(false);
    expect(await second.clipboard.get()).toBe("");
    expect((await second.windows.list()).map((w) => w.title)).not.toContain(TITLE);
    // The used container is removed behind the reset (the spare was handed out), and its daemon with it.
    await expect(first.system.info({ timeoutMs: 3_000 })).rejects.toThrow();
    const usedName = /\(container (\S+)\)/.exec(firstAddress ?? "")![1]!;
    const stillThere = async () => (await ourContainers()).some((c) => c.replace(/^\//, "") === usedName);
    for (let i = 0; i < 150 && (await stillThere()); i++) await new Promise((r) => setTimeout(r, 100));
    expect(await stillThere()).toBe(false);

    expect(pool.provider).toMatchObject({ name: "container", config: { image: tag, ulimits: { nofile: 20000, nproc: 32768 } } });
  }, 120_000);

  test("the daemon in a container refuses a call without its token", async () => {
    const env = pool!.slots[0]!.envs.desktop as RemoteEnv;
    await expectTokenRequired(env);
  });

  test("a hostile task in a container: what the container provider guarantees, and no key of the runner's", async () => {
    const env = pool!.slots[0]!.envs.desktop as RemoteEnv;
    const bait = await startHostBait();
    try {
      const found = await probeMachine(env, bait);
      console.log(`hostile task in a container: ${JSON.stringify(found)}`);
      // Tasks run as the image's user; their commands have no capability.
      expect(BigInt(`0x${found.cap_eff as string}`)).toBe(0n);
      // Namespaces of its own but the user and (Podman on cgroup v1) cgroup namespaces: root in the
      // container (sudo) is this computer's root, with Podman's default capabilities.
      const namespaces = found.namespaces as Record<string, string>;
      for (const ns of ["mnt", "net", "uts", "ipc", "pid"]) expect(namespaces[ns], ns).not.toBe(readlinkSync(`/proc/self/ns/${ns}`));
      expect(namespaces.user).toBe(readlinkSync("/proc/self/ns/user"));
      for (const [path, writable] of Object.entries(found.writable as Record<string, boolean>)) expect(writable, path).toBe(false);
      expect(found.sethostname).toBe("EPERM");
      expect(found.mount).toBe("EPERM");
      // The image's files, not this computer's.
      expect(found.shadow).toMatch(/^error: EACCES/);
      // Its own network: this computer's loopback and displays are out of reach; its other addresses are not.
      expect(found.host_loopback_service).toBe("ECONNREFUSED");
      expect(found.host_display_abstract).toBe("ECONNREFUSED");
      expect(found.host_display_path).toBe("ENOENT");
      expect(found.host_address_service).toBe("connected");
      for (const k of Object.keys(FAKE_KEYS)) expect(found.environ_keys as string[]).not.toContain(k);
    } finally {
      await bait.close();
    }
  }, 60_000);

  test(
    "an image import leaves no temporary copy on this computer once the engine is closed",
    async () => {
      // Read-only probe of /var/tmp: Podman 4.3's API keeps each imported image's tar there by default.
      const before = new Set(readdirSync("/var/tmp"));
      const engine = await openEngine();
      const probeTag = `localhost/pincer-import-probe:${process.pid}`;
      try {
        await importContainerImage(engine, { rootfs, tag: probeTag });
      } finally {
        await engine.docker
          .getImage(probeTag)
          .remove({ force: true })
          .catch(() => undefined);
        await engine.close();
      }
      expect(readdirSync("/var/tmp").filter((f) => f.startsWith("api_load") && !before.has(f))).toEqual([]);
    },
    5 * 60_000,
  );

  test("closing the pool removes every container it made and stops the Podman service Pincer started", async () => {
    // The slot's machine and its spare (the container its next reset hands out).
    expect(await ourContainers()).toHaveLength(2);
    await pool!.close();
    pool = undefined;
    expect(await ourContainers()).toEqual([]);
    expect(childrenNamed("podman")).toEqual([]);
  }, 60_000);
});

describe.skipIf(!onPath("podman") && !onPath("docker"))("the container provider after a failed reset", () => {
  test("a reset that could not start the next container leaves the slot's machine to the next reset, which starts one", async () => {
    const image = await minimalImage(["container"]);
    // Without a spare, a reset removes the used container and then starts the next one.
    const pool = await openPool(containerProvider({ image: image.container!.tag, spare: false }), ["desktop"], 1);
    try {
      const slot = pool.slots[0]!;
      expect((await slot.reset!()).desktop).toMatchObject({ method: "fresh" });
      await slot.envs.desktop!.files.write(MARKER, "left by task 1");
      // Cancelled as the next container starts (a run stopping): the reset fails, and leaves no container.
      await expect(slot.reset!(undefined, AbortSignal.abort())).rejects.toThrow();
      expect(await ourContainers()).toEqual([]);

      const reset = (await slot.reset!()).desktop!;
      expect(reset).toMatchObject({ provider: "container", method: "new container" });
      expect(await slot.envs.desktop!.files.exists(MARKER)).toBe(false);
      expect(await ourContainers()).toHaveLength(1);
    } finally {
      await pool.close();
    }
    expect(await ourContainers()).toEqual([]);
  }, 120_000);
});
