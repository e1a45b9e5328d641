import { describe, expect, test } from "vitest";
import { createMemoryEnv } from "@pincer/controller";
import { openPool, type MachineProvider, type ProvidedMachine } from "@pincer/controller/machines";

/** A provider of in-memory machines that logs what the pool asks of it; `failOn` names an acquire that fails. */
function countingProvider(opts: { capacity?: number; failOn?: string } = {}) {
  const log: string[] = [];
  let made = 0;
  const live = new Set<string>();
  const make = (label: string): ProvidedMachine => {
    const address = `${label}#${++made}`;
    live.add(address);
    return { env: createMemoryEnv(), address, fresh: true };
  };
  const provider: MachineProvider = {
    name: "counting",
    ...(opts.capacity ? { capacity: opts.capacity } : {}),
    config: () => ({ kind: "memory" }),
    acquire: async (name, slot) => {
      log.push(`acquire ${name}/${slot}`);
      if (`${name}/${slot}` === opts.failOn) throw new Error(`no machine for ${name} in slot ${slot}`);
      return make(`${name}/${slot}`);
    },
    reset: async (machine) => {
      log.push(`reset ${machine.address}`);
      live.delete(machine.address);
      return { machine: make(machine.address.split("#")[0]!), method: "replaced" };
    },
    release: async (machine) => {
      log.push(`release ${machine.address}`);
      live.delete(machine.address);
    },
  };
  return { provider, log, live };
}

describe("openPool over a provider", () => {
  test("a slot's first reset keeps the fresh machine; later resets replace only the machines named", async () => {
    const { provider, log, live } = countingProvider();
    const pool = await openPool(provider, ["desktop", "server"], 2);
    expect(pool.slots.map((s) => s.addresses)).toEqual([
      { desktop: "desktop/0#1", server: "server/0#2" },
      { desktop: "desktop/1#3", server: "server/1#4" },
    ]);
    expect(pool.provider).toEqual({ name: "counting", config: { kind: "memory" } });
    const [slot] = pool.slots;
    expect(await slot!.reset!()).toEqual({
      desktop: { provider: "counting", method: "fresh", ms: 0 },
      server: { provider: "counting", method: "fresh", ms: 0 },
    });
    const before = slot!.envs.desktop;
    const second = await slot!.reset!(["desktop"]);
    expect(Object.keys(second)).toEqual(["desktop"]);
    expect(second.desktop).toMatchObject({ provider: "counting", method: "replaced" });
    // The slot now hands out the new machine; the server was not touched.
    expect(slot!.envs.desktop).not.toBe(before);
    expect(slot!.addresses).toEqual({ desktop: "desktop/0#5", server: "server/0#2" });
    expect(log.filter((l) => l.startsWith("reset"))).toEqual(["reset desktop/0#1"]);
    await pool.close();
    expect(live.size).toBe(0);
  });

  test("if one machine cannot be had, the ones acquired are released and the error is thrown", async () => {
    const { provider, live } = countingProvider({ failOn: "server/1" });
    await expect(openPool(provider, ["desktop", "server"], 2)).rejects.toThrow("no machine for server in slot 1");
    expect(live.size).toBe(0);
  });

  test("no more slots than the provider's capacity", async () => {
    const { provider } = countingProvider({ capacity: 1 });
    const pool = await openPool(provider, ["desktop"], 4);
    expect(pool.slots).toHaveLength(1);
    await pool.close();
  });
});
