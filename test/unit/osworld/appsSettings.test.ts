import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { appsMetrics } from "../../../packages/controller/src/datasets/osworld/metrics/apps.js";
import { metricRunner } from "./metricRunner.js";

const dir = mkdtempSync(join(tmpdir(), "osworld-apps-settings-"));

/** Writes a fixture file and returns its path. */
function fixture(name: string, content: string | Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

const run = metricRunner(appsMetrics);

describe("check_json_settings", () => {
  const rules = { expected: { "files.autoSave": "afterDelay", "files.exclude": { "**/__pycache__": true } } };
  test("passes when every expected key has an equal value", async () => {
    const p = fixture("settings.json", JSON.stringify({ "editor.fontSize": 14, "files.autoSave": "afterDelay", "files.exclude": { "**/__pycache__": true } }));
    expect(await run("check_json_settings", p, rules)).toEqual({ score: 1, reason: "passed" });
  });
  test("fails on a different value, a missing key, invalid JSON (comments), a missing file", async () => {
    const wrong = fixture("s-wrong.json", JSON.stringify({ "files.autoSave": "off", "files.exclude": { "**/__pycache__": true } }));
    const r = await run("check_json_settings", wrong, rules);
    expect(r.score).toBe(0);
    expect(r.reason).toContain("files.autoSave");
    const missing = fixture("s-missing.json", JSON.stringify({ "files.autoSave": "afterDelay" }));
    expect((await run("check_json_settings", missing, rules)).reason).toContain("files.exclude is not set");
    const commented = fixture("s-comment.json", '// settings\n{"files.autoSave": "afterDelay", "files.exclude": {"**/__pycache__": true}}');
    expect((await run("check_json_settings", commented, rules)).score).toBe(0);
    expect((await run("check_json_settings", null, rules)).score).toBe(0);
    expect((await run("check_json_settings", join(dir, "nope.json"), rules)).score).toBe(0);
  });
  test("compares as Python does: true == 1, nested dicts exactly", async () => {
    const p = fixture("s-py.json", JSON.stringify({ a: 1, b: { x: 1, y: 2 } }));
    expect((await run("check_json_settings", p, { expected: { a: true } })).score).toBe(1);
    expect((await run("check_json_settings", p, { expected: { b: { x: 1 } } })).score).toBe(0);
  });
});

describe("check_json_keybindings", () => {
  const rules = { expected: { key: "ctrl+j", command: "workbench.action.focusActiveEditorGroup", when: "terminalFocus" } };
  test("passes when the list (after VS Code's comment line) contains the binding", async () => {
    const body = JSON.stringify([{ key: "ctrl+k", command: "x" }, rules.expected], null, 2);
    const p = fixture("keybindings.json", `// Place your key bindings in this file to override the defaults\n${body}`);
    expect((await run("check_json_keybindings", p, rules)).score).toBe(1);
    expect((await run("check_json_keybindings", fixture("kb-plain.json", body), rules)).score).toBe(1);
  });
  test("fails on a binding that differs, an extra field, a non-list, a missing file", async () => {
    const near = fixture("kb-near.json", JSON.stringify([{ ...rules.expected, when: "editorFocus" }]));
    expect((await run("check_json_keybindings", near, rules)).score).toBe(0);
    const extra = fixture("kb-extra.json", JSON.stringify([{ ...rules.expected, args: 1 }]));
    expect((await run("check_json_keybindings", extra, rules)).score).toBe(0);
    const obj = fixture("kb-obj.json", JSON.stringify(rules.expected));
    expect((await run("check_json_keybindings", obj, rules)).reason).toContain("not a JSON list");
    expect((await run("check_json_keybindings", null, rules)).score).toBe(0);
  });
});

describe("is_extension_installed", () => {
  test("contain / not_contain on the command output", async () => {
    expect((await run("is_extension_installed", "ms-python.python\n", { type: "contain", expected: "ms-python.python" })).score).toBe(1);
    expect((await run("is_extension_installed", "", { type: "not_contain", expected: "ms-python.python" })).score).toBe(1);
  });
  test("fails when absent (contain) or present (not_contain), or with no output; unknown types throw", async () => {
    expect((await run("is_extension_installed", "other.ext\n", { type: "contain", expected: "ms-python.python" })).score).toBe(0);
    expect((await run("is_extension_installed", "ms-python.python", { type: "not_contain", expected: "ms-python.python" })).score).toBe(0);
    expect((await run("is_extension_installed", null, { type: "contain", expected: "x" })).score).toBe(0);
    await expect(run("is_extension_installed", "x", { type: "equal", expected: "x" })).rejects.toThrow(/not implemented/);
  });
});

/** A vlcrc in VLC's layout: section headers, comments with the defaults, and the settings given. */
function vlcrc(name: string, settings: string[]): string {
  const lines = ["###", "###  vlc 3.0.16", "###", "", "[qt] # Qt interface", "", "# Show background cone (boolean)", "#qt-bgcone=1", ""];
  lines.push("# Maximum Volume displayed (integer)", "#qt-max-volume=125", "#qt-slider-colours=153;210;153;20;210;20;255;199;15;245;39;29");
  lines.push("[core] # core program", "# Record directory", "#input-record-path=", "#play-and-exit=0", "#one-instance-when-started-from-file=1");
  return fixture(name, [...lines, ...settings, ""].join("\n"));
}

describe("vlcrc settings (check_qt_bgcone and friends)", () => {
  test("pass when the setting has the expected value, or when absent and the expected value is VLC's default", async () => {
    const p = vlcrc("vlcrc-set", ["qt-bgcone=0", "qt-max-volume=200", "qt-minimal-view=1", "play-and-exit=1", "one-instance-when-started-from-file=0"]);
    expect((await run("check_qt_bgcone", p, { expected_qt_bgcone: 0 })).score).toBe(1);
    expect((await run("check_qt_max_volume", p, { expected_qt_max_volume: 200 })).score).toBe(1);
    expect((await run("check_qt_minimal_view", p, { expected_qt_minimal_view: 1 })).score).toBe(1);
    expect((await run("check_play_and_exit", p, { expected_play_and_exit: 1 })).score).toBe(1);
    expect((await run("check_one_instance_when_started_from_file", p, { expected_one_instance_when_started_from_file: 0 })).score).toBe(1);
    const defaults = vlcrc("vlcrc-defaults", []);
    expect((await run("check_play_and_exit", defaults, { expected_play_and_exit: 0 })).score).toBe(1);
    expect((await run("check_qt_max_volume", defaults, { expected_qt_max_volume: "125" })).score).toBe(1);
    const bare = fixture("vlcrc-bare", "[qt]\n");
    expect((await run("check_qt_bgcone", bare, { expected_qt_bgcone: 1 })).score).toBe(1);
    expect((await run("check_qt_max_volume", bare, { expected_qt_max_volume: 125 })).score).toBe(1);
    expect((await run("check_qt_minimal_view", bare, { expected_qt_minimal_view: 0 })).score).toBe(1);
    expect((await run("check_play_and_exit", bare, { expected_play_and_exit: 0 })).score).toBe(1);
    expect((await run("check_one_instance_when_started_from_file", bare, { expected_one_instance_when_started_from_file: 1 })).score).toBe(1);
  });
  test("fail on another value, on the default (commented line counts), on a missing file", async () => {
    const p = vlcrc("vlcrc-other", ["qt-bgcone=1", "qt-max-volume=150"]);
    const r = await run("check_qt_bgcone", p, { expected_qt_bgcone: 0 });
    expect(r).toEqual({ score: 0, reason: 'qt-bgcone is "1", expected 0' });
    expect((await run("check_qt_max_volume", p, { expected_qt_max_volume: 200 })).score).toBe(0);
    expect((await run("check_qt_minimal_view", vlcrc("vlcrc-none", []), { expected_qt_minimal_view: 1 })).score).toBe(0);
    expect((await run("check_one_instance_when_started_from_file", vlcrc("vlcrc-d2", []), { expected_one_instance_when_started_from_file: 0 })).score).toBe(0);
    expect((await run("check_play_and_exit", null, { expected_play_and_exit: 0 })).score).toBe(0);
    expect((await run("check_play_and_exit", join(dir, "no-vlcrc"), { expected_play_and_exit: 0 })).score).toBe(0);
  });
});

describe("is_vlc_recordings_folder", () => {
  const rule = { recording_file_path: "/home/user/Desktop" };
  test("passes when the first uncommented input-record-path is the folder", async () => {
    expect((await run("is_vlc_recordings_folder", vlcrc("rec-ok", ["input-record-path=/home/user/Desktop "]), rule)).score).toBe(1);
  });
  test("fails on another folder, when unset (commented only), with no file", async () => {
    expect((await run("is_vlc_recordings_folder", vlcrc("rec-other", ["input-record-path=/home/user/Videos"]), rule)).score).toBe(0);
    expect((await run("is_vlc_recordings_folder", vlcrc("rec-unset", []), rule)).reason).toBe("input-record-path is not set");
    expect((await run("is_vlc_recordings_folder", null, rule)).score).toBe(0);
  });
});

describe("check_qt_slider_colours", () => {
  test("blackish: every value of the (last) setting below 100; match: the exact string", async () => {
    const dark = vlcrc("slider-dark", ["qt-slider-colours=0;0;0;20;20;20;99;99;99;10;10;10"]);
    expect((await run("check_qt_slider_colours", dark, { type: "blackish" })).score).toBe(1);
    expect((await run("check_qt_slider_colours", dark, { type: "match", expected_qt_slider_colours: "0;0;0;20;20;20;99;99;99;10;10;10" })).score).toBe(1);
  });
  test("fails on the default colours, one bright colour, non-numbers, a different string", async () => {
    expect((await run("check_qt_slider_colours", vlcrc("slider-default", []), { type: "blackish" })).score).toBe(0);
    const one = vlcrc("slider-one", ["qt-slider-colours=0;0;0;0;0;100;0;0;0"]);
    expect((await run("check_qt_slider_colours", one, { type: "blackish" })).reason).toContain("colour 2");
    expect((await run("check_qt_slider_colours", vlcrc("slider-bad", ["qt-slider-colours=a;b;c"]), { type: "blackish" })).score).toBe(0);
    expect((await run("check_qt_slider_colours", one, { type: "match", expected_qt_slider_colours: "0;0;0" })).score).toBe(0);
  });
});

describe("is_vlc_fullscreen", () => {
  test("passes when the window is the screen's size, fails otherwise or without sizes", async () => {
    expect((await run("is_vlc_fullscreen", { width: 1920, height: 1080 }, { width: 1920, height: 1080 })).score).toBe(1);
    expect((await run("is_vlc_fullscreen", { width: 1920, height: 1080 }, { width: 1280, height: 720 })).score).toBe(0);
    expect((await run("is_vlc_fullscreen", { width: 1920, height: 1080 }, { width: 1920, height: 1040 })).score).toBe(0);
    expect((await run("is_vlc_fullscreen", { width: 1920, height: 1080 }, null)).score).toBe(0);
  });
});
