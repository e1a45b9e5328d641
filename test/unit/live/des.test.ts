import { describe, expect, test } from "vitest";
import { desEcbEncrypt, vncAuthResponse } from "../../../packages/controller/src/live/des.js";

// DES against published vectors, and the VNC-authentication response (DES with each key byte's bits
// reversed) against values other implementations give: TigerVNC's `vncpasswd -f` and OpenSSL's DES.

const hex = (s: string) => Buffer.from(s, "hex");

describe("DES-ECB encryption", () => {
  test.each([
    // FIPS 46 worked example (also in Grabbe's "The DES Algorithm Illustrated").
    ["133457799BBCDFF1", "0123456789ABCDEF", "85E813540F0AB405"],
    // "Now is the time for all " under 0123456789ABCDEF (FIPS 81, ECB mode).
    ["0123456789ABCDEF", "4E6F772069732074", "3FA40E8A984D4815"],
    ["0123456789ABCDEF", "68652074696D6520666F7220616C6C20", "6A271787AB8883F9893D51EC4B563B53"],
    // A key whose rounds cancel out this block (Schneier's test data).
    ["0E329232EA6D0D73", "8787878787878787", "0000000000000000"],
    // All-zero and all-one keys and blocks (NBS validation set).
    ["0000000000000000", "0000000000000000", "8CA64DE9C1B123A7"],
    ["FFFFFFFFFFFFFFFF", "FFFFFFFFFFFFFFFF", "7359B2163E4EDC58"],
  ])("key %s, plaintext %s → %s", (key, plain, cipher) => {
    expect(desEcbEncrypt(hex(key), hex(plain)).toString("hex").toUpperCase()).toBe(cipher);
  });

  test("the parity bit of each key byte (its lowest) does not count", () => {
    // 133457799BBCDFF1 with the lowest bit of every byte flipped.
    expect(desEcbEncrypt(hex("123556789ABDDEF0"), hex("0123456789ABCDEF")).toString("hex").toUpperCase()).toBe("85E813540F0AB405");
  });

  test("a key that is not 8 bytes, or data that is not whole blocks, is refused", () => {
    expect(() => desEcbEncrypt(Buffer.alloc(7), Buffer.alloc(8))).toThrow(/8 bytes, not 7/);
    expect(() => desEcbEncrypt(Buffer.alloc(8), Buffer.alloc(12))).toThrow(/multiple of 8/);
  });
});

describe("the VNC-authentication response", () => {
  test("matches TigerVNC's vncpasswd, which encrypts the password with VNC's fixed key the same way", () => {
    // `echo password | vncpasswd -f` writes dbd83cfd727a1458: "password" under the key {23, 82, 107, 6, 35, 78, 88, 7}.
    const fixedKey = String.fromCharCode(23, 82, 107, 6, 35, 78, 88, 7);
    expect(vncAuthResponse(Buffer.from("password"), fixedKey).toString("hex")).toBe("dbd83cfd727a1458");
  });

  test("is the challenge under DES with the password's key bytes bit-reversed", () => {
    const challenge = hex("000102030405060708090a0b0c0d0e0f");
    // "secret\0\0" with each byte's bits reversed is cea6c64ea62e0000; OpenSSL's DES-ECB under that key gives:
    expect(vncAuthResponse(challenge, "secret").toString("hex")).toBe("ee22539f33a5983ec12f9c2edbc995dd");
    expect(vncAuthResponse(challenge, "secret")).toEqual(desEcbEncrypt(hex("cea6c64ea62e0000"), challenge));
  });

  test("only the first 8 bytes of the password count", () => {
    const challenge = hex("f0e1d2c3b4a5968778695a4b3c2d1e0f");
    expect(vncAuthResponse(challenge, "longpassword")).toEqual(vncAuthResponse(challenge, "longpass"));
    expect(vncAuthResponse(challenge, "longpass")).not.toEqual(vncAuthResponse(challenge, "longpast"));
  });
});
