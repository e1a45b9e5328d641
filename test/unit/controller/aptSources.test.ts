import { describe, expect, test } from "vitest";
import {
  keepUris,
  localFolder,
  parseDeb822,
  parseOneLine,
  renderSources,
  signedByOf,
  withSignedBy,
} from "../../../packages/controller/src/machines/images/aptSources.js";

describe("extra apt sources (pincer image build --apt-source)", () => {
  test("a one-line entry is read into its parts and written back the same", () => {
    const line = "deb [arch=amd64 signed-by=/tmp/linux_signing_key.pub] https://dl.google.com/linux/chrome/deb/ stable main";
    const s = parseOneLine(line, "arg");
    expect(s).toMatchObject({ type: "deb", uri: "https://dl.google.com/linux/chrome/deb/", suite: "stable", components: ["main"] });
    expect(signedByOf(s)).toBe("/tmp/linux_signing_key.pub");
    expect(renderSources([s]).list).toBe(`${line}\n`);
    expect(renderSources([withSignedBy(s, "/etc/apt/keyrings/linux_signing_key.asc")]).list).toBe(
      "deb [arch=amd64 signed-by=/etc/apt/keyrings/linux_signing_key.asc] https://dl.google.com/linux/chrome/deb/ stable main\n",
    );
    expect(parseOneLine("deb file:/srv/repo ./", "arg")).toMatchObject({ suite: "./", components: [] });
  });

  test("deb822 stanzas keep their fields, continuation lines included; only their local URIs can be dropped", () => {
    const text = [
      "# VS Code",
      "Types: deb",
      "URIs: https://packages.microsoft.com/repos/code file:/srv/mirror/code",
      "Suites: stable",
      "Components: main",
      "Signed-By: microsoft.asc",
      "",
      "Types: deb",
      "URIs: http://example.org/debian",
      "Suites: ./",
      "Signed-By:",
      " -----BEGIN PGP PUBLIC KEY BLOCK-----",
      " .",
      " mDMEZ",
      " -----END PGP PUBLIC KEY BLOCK-----",
      "",
    ].join("\n");
    const [code, embedded] = parseDeb822(text, "x.sources");
    expect(code!.origin).toBe("x.sources:2");
    expect(signedByOf(embedded!)).toBe("\n -----BEGIN PGP PUBLIC KEY BLOCK-----\n .\n mDMEZ\n -----END PGP PUBLIC KEY BLOCK-----");
    const kept = keepUris(code!, (u) => localFolder(u, "x") === undefined)!;
    expect(renderSources([kept, embedded!]).deb822).toBe(
      [
        "Types: deb",
        "URIs: https://packages.microsoft.com/repos/code",
        "Suites: stable",
        "Components: main",
        "Signed-By: microsoft.asc",
        "",
        "Types: deb",
        "URIs: http://example.org/debian",
        "Suites: ./",
        "Signed-By: ",
        " -----BEGIN PGP PUBLIC KEY BLOCK-----",
        " .",
        " mDMEZ",
        " -----END PGP PUBLIC KEY BLOCK-----",
        "",
      ].join("\n"),
    );
    expect(keepUris(parseOneLine("deb file:/srv/repo ./", "arg"), (u) => localFolder(u, "arg") === undefined)).toBeUndefined();
  });

  test("file: URIs name host folders by absolute path; other forms are refused", () => {
    expect(localFolder("file:/srv/repo/", "arg")).toBe("/srv/repo");
    expect(localFolder("file:///srv/my%20repo", "arg")).toBe("/srv/my repo");
    expect(localFolder("copy:/srv/repo", "arg")).toBe("/srv/repo");
    expect(localFolder("https://deb.debian.org/debian", "arg")).toBeUndefined();
    expect(() => localFolder("file:srv/repo", "arg")).toThrow(/names a folder by its absolute path/);
    expect(() => localFolder("file://host/srv/repo", "arg")).toThrow(/is not a folder of this computer/);
    expect(() => parseDeb822("Types: deb\n  oops\nnot a field\n", "y.sources")).toThrow(/y\.sources:3: "not a field" is not "Field: value"/);
    expect(() => parseDeb822("Types: rpm\nURIs: http://x\nSuites: a\nComponents: main\n", "z.sources")).toThrow(/Types "rpm": give deb or deb-src/);
  });
});
