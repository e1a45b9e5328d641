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
