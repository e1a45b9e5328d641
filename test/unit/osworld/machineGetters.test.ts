import { readFileSync } from "node:fs";
import { join } from "node:path";
import ExcelJS from "exceljs";
import JSZip from "jszip";
import { describe, expect, test } from "vitest";
import { fakeMachine, get, put } from "./chromeMachine.js";

// OSWorld's getters of the machine's state (getters/info.py, file.py, vlc.py, vscode.py and the
// desktop shortcuts of chrome.py) on a recording machine.

describe("the desktop", () => {
  test("vm_screen_size and vm_window_size (the first window whose WM_CLASS is the name, any case; null when none)", async () => {
    const m = fakeMachine();
    expect(await get(m, "vm_screen_size")).toEqual({ width: 1920, height: 1080 });
    expect(await get(m, "vm_window_size", { app_class_name: "VLC" })).toEqual({ width: 640, height: 360 });
    expect(await get(m, "vm_window_size", { app_class_name: "code" })).toEqual({ width: 1200, height: 800 });
    expect(await get(m, "vm_window_size", { app_class_name: "gimp" })).toBeNull();
  });

  test("vm_wallpaper copies the file GNOME's picture-uri names; an empty file when there is none", async () => {
    const m = fakeMachine((cmd) => (Array.isArray(cmd) && cmd[0] === "gsettings" ? { stdout: "'file:///home/user/Pictures/sea.png'\n" } : {}));
    put(m, "/home/user/Pictures/sea.png", Buffer.from([137, 80, 78, 71]));
    const path = (await get(m, "vm_wallpaper", { dest: "wallpaper.png" })) as string;
    expect(readFileSync(path)).toEqual(Buffer.from([137, 80, 78, 71]));
    expect(m.runs).toEqual([["gsettings", "get", "org.gnome.desktop.background", "picture-uri"]]);
    const none = fakeMachine(() => ({ exitCode: 1, stderr: "No such schema" }));
    expect(readFileSync((await get(none, "vm_wallpaper", { dest: "w.png" })) as string, "utf8")).toBe("");
  });

  test("list_directory gives the folder's tree as OSWorld's server writes it; null for what is not a folder", async () => {
    const m = fakeMachine();
    put(m, "/home/user/Desktop/cpjpg/a.jpg", "a");
    put(m, "/home/user/Desktop/cpjpg/sub/b.jpg", "b");
    expect(await get(m, "list_directory", { path: "/home/user/Desktop/cpjpg" })).toEqual({
      type: "directory",
      name: "cpjpg",
      children: [
        { type: "file", name: "a.jpg" },
        { type: "directory", name: "sub", children: [{ type: "file", name: "b.jpg" }] },
      ],
    });
    expect(await get(m, "list_directory", { path: "/home/user/Desktop/cpjpg/a.jpg" })).toBeNull();
    expect(await get(m, "list_directory", { path: "/nowhere" })).toBeNull();
  });

  test("shortcuts_on_desktop gives each .desktop file on the desktop with its text", async () => {
    const m = fakeMachine();
    put(m, "/home/user/Desktop/amazon.desktop", "[Desktop Entry]\nName=Amazon\n");
    put(m, "/home/user/Desktop/notes.txt", "x");
    expect(await get(m, "shortcuts_on_desktop")).toEqual({ "amazon.desktop": "[Desktop Entry]\nName=Amazon\n" });
  });
});

describe("files and apps", () => {
  test("content_from_vm_file gives the first sheet's last row, each value as pandas' astype(str) writes it", async () => {
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet("Researchers");
    ws.addRows([
      ["Name", "Citations", "Share", "Link"],
      ["Geoffrey Hinton", 900000, 0.5, "https://a"],
      ["Yann LeCun", 345074, 1, null],
    ]);
    const m = fakeMachine();
    put(m, "/home/user/Desktop/researchers.xlsx", Buffer.from(await wb.xlsx.writeBuffer()));
    const config = { path: "/home/user/Desktop/researchers.xlsx", file_type: "xlsx", file_content: "last_row" };
    expect(await get(m, "content_from_vm_file", config)).toEqual(["Yann LeCun", "345074", "1.0", "nan"]);
    await expect(get(m, "content_from_vm_file", { ...config, file_type: "csv" })).rejects.toThrow(/not supported/);
  });

  test("default_video_player is the most common answer of xdg-mime for the video types, 'unknown' when none", async () => {
    const m = fakeMachine((cmd) => ({ stdout: String(cmd[3]).includes("x-") ? "vlc.desktop\n" : String(cmd[3]) === "video/mp4" ? "totem.desktop\n" : "" }));
    expect(await get(m, "default_video_player")).toBe("vlc.desktop\n");
    expect(m.runs[0]).toEqual(["xdg-mime", "query", "default", "video/3gp"]);
    expect(await get(fakeMachine(), "default_video_player")).toBe("unknown");
  });

  test("vlc_playing_info fetches VLC's status with the web interface's password; null for an HTTP error, an error when VLC does not answer", async () => {
    const answers: Array<{ exitCode: number; stderr?: string }> = [{ exitCode: 0 }, { exitCode: 22 }, { exitCode: 7, stderr: "curl: (7) Failed to connect" }];
    const m = fakeMachine(() => answers.shift()!);
    m.ctx.env.process.run = (async (cmd: string[]) => {
      m.runs.push(cmd);
      const a = answers.shift()!;
      if (a.exitCode === 0) put(m, cmd[cmd.indexOf("-o") + 1]!, "<root><state>playing</state></root>");
      return { stdout: "", stderr: a.stderr ?? "", exitCode: a.exitCode };
    }) as never;
    const path = (await get(m, "vlc_playing_info", { dest: "status.xml" })) as string;
    expect(readFileSync(path, "utf8")).toBe("<root><state>playing</state></root>");
    expect(m.runs[0]).toEqual(expect.arrayContaining(["-u", ":password", "http://127.0.0.1:8080/requests/status.xml"]));
    expect(await get(m, "vlc_playing_info", { dest: "status.xml" })).toBeNull();
    await expect(get(m, "vlc_playing_info", { dest: "status.xml" })).rejects.toThrow(/does not answer/);
  });

  test("vscode_config runs the command from VS Code's palette and fetches its file, else the workspace storage's text", async () => {
    const m = fakeMachine((cmd) => (typeof cmd === "string" && cmd.includes("workspaceStorage") ? { stdout: '{"folder":"file:///home/user/project"}' } : {}));
    const config = { vscode_extension_command: "OpenProject", path: "/home/user/OpenProject.txt", dest: "OpenProject.txt" };
    put(m, "/home/user/OpenProject.txt", "project");
    expect(readFileSync((await get(m, "vscode_config", config)) as string, "utf8")).toBe("project");
    expect(m.keys).toEqual(["ctrl+shift+p", "type:OpenProject", "enter"]);
    m.files.delete("/home/user/OpenProject.txt");
    const fallback = (await get(m, "vscode_config", config)) as string;
    expect(fallback).toBe(join(m.ctx.cacheDir, "OpenProject.txt"));
    expect(readFileSync(fallback, "utf8")).toBe('{"folder":"file:///home/user/project"}');
  });
});

/** A .pptx whose slide 1 has a background picture (embedded) and slide 2 a linked audio clip. */
async function mediaDeck(): Promise<Buffer> {
  const zip = new JSZip();
  const slide = (bg: string) =>
    '<p:sld xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" ' +
    'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" ' +
    `xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"><p:cSld>${bg}<p:spTree/></p:cSld></p:sld>`;
  const rels = (items: string) => `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${items}</Relationships>`;
  zip.file("ppt/slides/slide1.xml", slide('<p:bg><p:bgPr><a:blipFill><a:blip r:embed="rId2"/></a:blipFill></p:bgPr></p:bg>'));
  zip.file(
    "ppt/slides/_rels/slide1.xml.rels",
    rels(
      '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="../media/image9.png"/>' +
        '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="../media/image1.png"/>',
    ),
  );
  zip.file("ppt/media/image1.png", "the background");
  zip.file("ppt/slides/slide2.xml", slide(""));
  zip.file(
    "ppt/slides/_rels/slide2.xml.rels",
    rels(
      '<Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/audio" ' +
        'TargetMode="External" Target="file:///home/user/Desktop/song.mp3"/>',
    ),
  );
  return zip.generateAsync({ type: "nodebuffer" });
}

describe("a slide's media", () => {
  test("background_image_in_slide extracts the picture a slide's background shows; null for a slide without one", async () => {
    const m = fakeMachine();
    put(m, "/home/user/Desktop/deck.pptx", await mediaDeck());
    const path = (await get(m, "background_image_in_slide", { ppt_file_path: "/home/user/Desktop/deck.pptx", slide_index: 0, dest: "bg.png" })) as string;
    expect(path).toBe(join(m.ctx.cacheDir, "ppt/media/image1.png"));
    expect(readFileSync(path, "utf8")).toBe("the background");
    expect(await get(m, "background_image_in_slide", { ppt_file_path: "/home/user/Desktop/deck.pptx", slide_index: 1, dest: "bg.png" })).toBeNull();
    expect(await get(m, "background_image_in_slide", { ppt_file_path: "/home/user/Desktop/deck.pptx", slide_index: 7, dest: "bg.png" })).toBeNull();
  });

  test("audio_in_slide fetches a linked clip from the machine; null for a slide without audio", async () => {
    const m = fakeMachine();
    put(m, "/home/user/Desktop/deck.pptx", await mediaDeck());
    put(m, "/home/user/Desktop/song.mp3", "ID3 audio");
    const path = (await get(m, "audio_in_slide", { ppt_file_path: "/home/user/Desktop/deck.pptx", slide_index: "1", dest: "song.mp3" })) as string;
    expect(readFileSync(path, "utf8")).toBe("ID3 audio");
    expect(await get(m, "audio_in_slide", { ppt_file_path: "/home/user/Desktop/deck.pptx", slide_index: 0, dest: "song.mp3" })).toBeNull();
    await expect(get(m, "audio_in_slide", { ppt_file_path: "/home/user/Desktop/none.pptx", slide_index: 0, dest: "a.mp3" })).rejects.toThrow(
      /not on the machine/,
    );
  });
});
