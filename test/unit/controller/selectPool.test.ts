import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { InvalidArgumentError } from "@pincer/controller";
import { openPoolFromSpec, poolProviderOf, type PoolSpec } from "@pincer/controller/machines";
import { openMachinePool, poolSpecOf, type MachineCliOptions } from "../../../packages/controller/src/cli/pools.js";

// An image cache with no images: the container and qemu providers find nothing in it and stop
// before starting anything.
const emptyCache = mkdtempSync(join(tmpdir(), "pincer-select-pool-"));
afterAll(() => rmSync(emptyCache, { recursive: true, force: true }));

/** `value` frozen all the way down: any write to it, however deep, throws. */
function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object") {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

const base = { names: ["desktop"], concurrency: 2 } as const;

describe("poolProviderOf picks the provider as documented", () => {
  test.each<[string, PoolSpec, string]>([
    ["nothing given: local", { ...base }, "local"],
    ["env entries: remote", { ...base, env: ["desktop=127.0.0.1:50051"] }, "remote"],
    ["a machines file: remote", { ...base, machinesFile: "machines.yaml" }, "remote"],
    ["an empty env list: still local", { ...base, env: [] }, "local"],
    ["provider container", { ...base, provider: "container" }, "container"],
    ["provider qemu with an image", { ...base, provider: "qemu", image: "minimal" }, "qemu"],
    ["provider local with local options", { ...base, provider: "local", network: true, drivers: "portable", accessibilityBus: true }, "local"],
  ])("%s", (_, spec, provider) => {
    expect(poolProviderOf(deepFreeze(spec))).toBe(provider);
  });

  test.each<[string, PoolSpec, RegExp]>([
    ["env and a machines file", { ...base, env: ["a=h:1"], machinesFile: "m.json" }, /^give machines with machinesFile or with env, not both$/],
    ["network off local", { ...base, provider: "container", network: true }, /^network is for local machines; container machines have the network/],
    ["drivers off local", { ...base, provider: "qemu", drivers: "native" }, /^drivers is for local machines; qemu machines run the daemon/],
    ["remote without machines", { ...base, provider: "remote" }, /^provider remote needs env name=host:port or machinesFile FILE$/],
    [
      "machines with another provider",
      { ...base, provider: "qemu", env: ["a=h:1"] },
      /^env and machinesFile give remote machines; they do not go with provider qemu$/,
    ],
    ["an image for local machines", { ...base, image: "minimal" }, /^image needs provider container or provider qemu$/],
  ])("refuses %s with an InvalidArgumentError naming the options", (_, spec, message) => {
    expect(() => poolProviderOf(deepFreeze(spec))).toThrow(InvalidArgumentError);
    expect(() => poolProviderOf(deepFreeze(spec))).toThrow(message);
  });

  test("names the options as the front end calls them", () => {
    const optionName = (o: keyof PoolSpec) => `--${o}`;
    expect(() => poolProviderOf({ ...base, image: "x" }, { optionName })).toThrow(/^--image needs --provider container or --provider qemu$/);
  });
});

describe("openPoolFromSpec never changes its spec", () => {
  test("container and qemu without an image look up minimal, with the spec frozen", async () => {
    for (const provider of ["container", "qemu"] as const) {
      const spec = deepFreeze<PoolSpec>({ ...base, provider, cacheDir: emptyCache });
      const err = await openPoolFromSpec(spec, { log: () => undefined }).catch((e: unknown) => e);
      // Not a TypeError from a write to the frozen spec: the image was looked up, and is not there.
      expect(err).toBeInstanceOf(InvalidArgumentError);
      expect((err as Error).message).toMatch(/"minimal": no such image; build one with `pincer image build --profile minimal`/);
      expect(spec.image).toBeUndefined();
    }
  });

  test("remote machines are checked all at once; a frozen spec stays as it was", async () => {
    const spec = deepFreeze<PoolSpec>({ ...base, env: ["desktop=127.0.0.1:1"], connectOptions: { defaultTimeoutMs: 5_000 } });
    const before = structuredClone(spec);
    const err = await openPoolFromSpec(spec, { log: () => undefined }).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/desktop \(slot 1\)/);
    expect(spec).toEqual(before);
  }, 30_000);

  test("an invalid combination is refused before anything starts", async () => {
    await expect(openPoolFromSpec(deepFreeze<PoolSpec>({ ...base, provider: "remote" }))).rejects.toThrow(InvalidArgumentError);
  });
});

describe("the CLI's adapter", () => {
  const options = (o: Partial<MachineCliOptions>): MachineCliOptions => deepFreeze({ env: [], ...o });
  const screen = { width: 1024, height: 768 };

  test("turns flags into a spec without changing them", () => {
    const o = options({ provider: "qemu", image: "web", vmMemory: 2048, vmCpus: 2, vmSpare: true, tokenFile: "/t" });
    const spec = poolSpecOf(["desktop"], o, 3, screen);
    expect(spec).toMatchObject({
      names: ["desktop"],
      concurrency: 3,
      provider: "qemu",
      image: "web",
      vmMemoryMb: 2048,
      vmCpus: 2,
      vmSpare: true,
      screen,
      credentials: { tokenFile: "/t" },
    });
    expect(o.image).toBe("web");
  });

  test("its errors name the flags, as the CLI always did", async () => {
    await expect(openMachinePool(["desktop"], options({ provider: "container", network: true }), 1, screen)).rejects.toThrow(
      /^--network is for local machines; container machines have the network their engine or image gives them$/,
    );
    await expect(openMachinePool(["desktop"], options({ image: "minimal" }), 1, screen)).rejects.toThrow(
      /^--image needs --provider container or --provider qemu$/,
    );
    await expect(openMachinePool(["desktop"], options({ provider: "container", env: ["a=h:1"] }), 1, screen)).rejects.toThrow(
      "--env and --machines give remote machines; they do not go with --provider container",
    );
  });
});
