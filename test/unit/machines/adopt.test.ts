import { describe, expect, test } from "vitest";
import { adoptedUnit, firmwareOf, sessionStarter } from "../../../packages/controller/src/machines/images/adopt.js";

const ESP = "C12A7328-F81F-11D2-BA4B-00A0C93EC93B";
const BIOS_BOOT = "21686148-6449-6E6F-744E-656564454649";
const LINUX = "0FC63DAF-8483-4772-8E79-3D69D8477DE4";

describe("how an adopted disk boots, from its partition table", () => {
  test("MBR: BIOS; GPT with only an EFI system partition: UEFI; GPT with a BIOS boot partition too: BIOS", () => {
    expect(firmwareOf(["msdos"])).toBe("bios");
    expect(firmwareOf(["gpt", ESP, LINUX])).toBe("uefi");
    expect(firmwareOf(["gpt", BIOS_BOOT, ESP.toLowerCase(), LINUX])).toBe("bios");
    expect(firmwareOf(["gpt", LINUX])).toBe("bios");
  });
});

describe("what adoption writes into the guest", () => {
  test("the unit runs as the user, takes the token from fw_cfg, and restarts until the session is up", () => {
    const unit = adoptedUnit("user");
    expect(unit).toContain("User=user\n");
    expect(unit).toContain("/sys/firmware/qemu_fw_cfg/by_name/opt/pincer/token/raw");
    expect(unit).toContain("install -o user -m 0400");
    expect(unit).toContain("Restart=on-failure");
  });

  test("the starter waits for the display's socket and takes the session's Xauthority and bus, unless one is given", () => {
    const found = sessionStarter(":1", undefined);
    expect(found).toContain("/tmp/.X11-unix/X1 ]");
    expect(found).toContain("xauth=''");
    expect(found).toContain("DBUS_SESSION_BUS_ADDRESS");
    expect(found).toMatch(/--display "\$display" --token-file \/run\/pincer\/token\n$/);
    expect(sessionStarter(":0", "/run/user/1000/gdm/Xauthority")).toContain("xauth='/run/user/1000/gdm/Xauthority'");
  });
});
