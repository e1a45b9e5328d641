import { describe, expect, test } from "vitest";
import { resolveKeyOrThrow } from "@pincer/shared";
import { chooseDriverSet, openDriverSet, portableUsesX11 } from "../../../packages/daemon/src/drivers/driverSets.js";
import { nutKeysFor, nutStrokeFor } from "../../../packages/daemon/src/drivers/nutKeys.js";
import { shellArgv } from "../../../packages/daemon/src/drivers/processes.js";

// The platform is injected: what the daemon picks on Windows and macOS is checked here, on Linux,
// without claiming that the daemon was run there.
describe("choosing the driver set", () => {
  test("auto: native on Linux, portable on Windows and macOS", () => {
    expect(chooseDriverSet(undefined, "linux")).toBe("native");
    expect(chooseDriverSet("auto", "linux")).toBe("native");
    expect(chooseDriverSet(undefined, "win32")).toBe("portable");
    expect(chooseDriverSet("auto", "darwin")).toBe("portable");
  });

  test("portable anywhere; native only on Linux, else an error that names the way out", () => {
    expect(chooseDriverSet("portable", "linux")).toBe("portable");
    expect(chooseDriverSet("portable", "win32")).toBe("portable");
    expect(() => chooseDriverSet("native", "win32")).toThrow(/--drivers native needs Linux with X11 \(this is win32\); use --drivers portable/);
    expect(() => chooseDriverSet("native", "darwin")).toThrow(/this is darwin/);
    expect(() => chooseDriverSet("fast", "linux")).toThrow(/--drivers fast: use native, portable or auto/);
  });

  test("the portable set drives X11 on Linux and the platform's own desktop on Windows and macOS", async () => {
    expect([portableUsesX11("linux"), portableUsesX11("freebsd"), portableUsesX11("win32"), portableUsesX11("darwin")]).toEqual([true, true, false, false]);
    const onX11 = openDriverSet("portable", { display: ":9", platform: "linux" });
    expect(onX11.parts).toEqual({ input: "nut-js", screen: "nut-js", windows: "x11", clipboard: "x11", processes: "execa" });
    expect(onX11.displayName).toBe(":9");
    const onWindows = openDriverSet("portable", { display: ":9", platform: "win32" });
    expect(onWindows.parts).toEqual({ input: "nut-js", screen: "nut-js", windows: "nut-js", clipboard: "nut-js", processes: "execa" });
    expect(onWindows.displayName).toBe("");
    const native = openDriverSet("native", { display: ":9", captureMethod: "getimage", spawner: "node" });
    expect(native.parts).toEqual({ input: "xtest", screen: "getimage", windows: "x11", clipboard: "x11", processes: "node-spawner" });
    await Promise.all([onX11.close(), onWindows.close(), native.close()]);
  });

  test("shell command lines: /bin/sh -c, or cmd.exe on Windows", () => {
    expect(shellArgv("echo hi", "linux")).toEqual(["/bin/sh", ["-c", "echo hi"]]);
    const [file, args] = shellArgv("echo hi", "win32");
    expect(file).toMatch(/cmd\.exe$/i);
    expect(args).toEqual(["/d", "/s", "/c", "echo hi"]);
  });
});

describe("Pincer's keys as nut-js keys", () => {
  const keys = (name: string) => nutKeysFor(resolveKeyOrThrow(name));

  test("named keys, modifiers and aliases", () => {
    expect(keys("ctrl")).toEqual(["LeftControl"]);
    expect(keys("Return")).toEqual(["Return"]);
    expect(keys("KP_Enter")).toEqual(["Enter"]);
    expect(keys("Page_Down")).toEqual(["PageDown"]);
    expect(keys("F5")).toEqual(["F5"]);
    expect(keys("cmd")).toEqual(["LeftSuper"]);
    expect(keys("KP_7")).toEqual(["NumPad7"]);
  });

  test("characters of the US layout, with Shift where it needs it", () => {
    expect(keys("a")).toEqual(["A"]);
    expect(keys("A")).toEqual(["LeftShift", "A"]);
    expect(keys("5")).toEqual(["Num5"]);
    expect(keys("%")).toEqual(["LeftShift", "Num5"]);
    expect(keys("percent")).toEqual(["LeftShift", "Num5"]);
    expect(keys("space")).toEqual(["Space"]);
    expect(keys("?")).toEqual(["LeftShift", "Slash"]);
    expect(keys("~")).toEqual(["LeftShift", "Grave"]);
  });

  test("keys outside nut-js's US keyboard are undefined, so the driver can say so", () => {
    expect(keys("€")).toBeUndefined();
    expect(keys("XF86Search")).toBeUndefined();
    expect(keys("F30")).toBeUndefined();
  });

  test("typed characters: line breaks and tabs are keys too", () => {
    expect(nutStrokeFor("\n")).toEqual(["Return"]);
    expect(nutStrokeFor("\t")).toEqual(["Tab"]);
    expect(nutStrokeFor('"')).toEqual(["LeftShift", "Quote"]);
    expect(nutStrokeFor("é")).toBeUndefined();
  });
});
