import * as grpc from "@grpc/grpc-js";
import { expect, test } from "vitest";
import { createLogger } from "../../../packages/daemon/src/logger.js";
import { defineService, type ServiceHandlers } from "../../../packages/daemon/src/services/rpc.js";

const log = createLogger({ write: () => undefined });
const info = async () => ({ text: "" });

/** Every System method answering something trivial; tests change one entry at a time. */
function systemHandlers(): ServiceHandlers<"System"> {
  return {
    GetInfo: async () => ({}),
    GetClipboard: info,
    SetClipboard: async () => ({}),
    ListWindows: async () => ({ windows: [] }),
    FocusWindow: async () => ({}),
    CloseWindow: async () => ({}),
  };
}

test("defineService wraps every method of the service by its streaming kind, from the generated definition", () => {
  const service = defineService("System", log, systemHandlers());
  expect(service.name).toBe("System");
  expect(Object.keys(service.implementation).sort()).toEqual(Object.keys(service.definition).sort());
  expect(service.definition.GetInfo.path).toBe("/pincer.v1.System/GetInfo");
  const files = defineService("Files", log, {
    Upload: async () => ({}),
    Download: async () => undefined,
    Stat: async () => ({}),
    List: async () => ({}),
    MakeDir: async () => ({}),
    Remove: async () => ({}),
    Move: async () => ({}),
  });
  // grpc-js tells the kinds apart by arity: unary and client streaming take a callback.
  expect(files.implementation.Upload!.length).toBe(2);
  expect(files.implementation.Download!.length).toBe(1);
  expect(files.implementation.Stat!.length).toBe(2);
});

test("a missing or unknown method is refused, at compile time and at run time", () => {
  const { CloseWindow: _, ...missing } = systemHandlers();
  // @ts-expect-error CloseWindow is missing
  expect(() => defineService("System", log, missing)).toThrow("System/CloseWindow: no handler");
  // @ts-expect-error Reboot is not a method of System
  expect(() => defineService("System", log, { ...systemHandlers(), Reboot: info })).toThrow("System: no such method Reboot");
  // @ts-expect-error a unary handler takes the request, not a stream, and must answer with the response type
  defineService("System", log, { ...systemHandlers(), GetClipboard: async () => 42 });
});

/** A System service with `GetInfo` replaced, served by grpc-js on loopback, and a client of it. */
async function serveGetInfo(getInfo: ServiceHandlers<"System">["GetInfo"]) {
  const service = defineService("System", log, { ...systemHandlers(), GetInfo: getInfo });
  const server = new grpc.Server();
  server.addService(service.definition, service.implementation);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  const client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  const def = service.definition.GetInfo;
  const call = () => {
    let cancel = () => undefined as void;
    const done = new Promise<unknown>((resolve, reject) => {
      const c = client.makeUnaryRequest(def.path, def.requestSerialize, def.responseDeserialize, {}, (err, res) => (err ? reject(err) : resolve(res)));
      cancel = () => c.cancel();
    });
    return { done, cancel: () => cancel() };
  };
  return { call, close: () => (client.close(), server.forceShutdown()) };
}

test("a call that ended well does not abort its handler's signal; a call the client cancels does, saying so", async () => {
  const signals: AbortSignal[] = [];
  let entered: () => void = () => undefined;
  const { call, close } = await serveGetInfo(async (_req, ctx) => {
    signals.push(ctx.signal);
    if (signals.length === 1) return {};
    entered();
    await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve, { once: true }));
    return {};
  });
  try {
    await call().done;
    // grpc-js reports every call as cancelled once its status is sent, on a later tick.
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    expect(signals[0]!.aborted).toBe(false);

    const inside = new Promise<void>((r) => (entered = r));
    const second = call();
    await inside;
    second.cancel();
    await expect(second.done).rejects.toMatchObject({ code: grpc.status.CANCELLED });
    await expect.poll(() => signals[1]!.aborted).toBe(true);
    expect((signals[1]!.reason as Error).message).toBe("the client cancelled the call");
  } finally {
    close();
  }
});
