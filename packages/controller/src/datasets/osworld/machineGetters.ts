import { join } from "node:path";
import { NotFoundError, sleep } from "@pincer/shared";
import { z } from "zod";
import { destName, downloadToCache, writeCacheFile } from "./cacheFiles.js";
import { OSWORLD_CONFIG_TYPES } from "./allConfigTypes.js";
import { expandUser, type OsworldContext } from "./context.js";
import { defineGetter, type OsworldGetter } from "./getter.js";
import { readExcelLikePandas } from "./metrics/table/pandas.js";
import { loadBook } from "./metrics/table/xlsx.js";
import { type PyVal, showDate } from "../pycompat/cellValues.js";
import { floatRepr } from "../pycompat/pyNumbers.js";
import { runPyautogui } from "./pyautogui.js";

/**
 * OSWorld's getters of the machine's state (getters/info.py, file.py, vlc.py, and the desktop
 * shortcuts of chrome.py): the screen and a window's size, the wallpaper, a folder's tree, the
 * shortcuts on the desktop, a spreadsheet's last row, the default video player, VLC's status.
 */

/** A file of the machine copied into the cache folder as `dest`; null when the machine does not have it. */
export async function fetchToCache(ctx: OsworldContext, remote: string, dest: string): Promise<string | null> {
  try {
    return await downloadToCache(ctx, await expandUser(remote, ctx), dest);
  } catch (err) {
    if (ctx.signal.aborted || !(err instanceof NotFoundError)) throw err;
    ctx.log(`${remote} is not on the machine`);
    return null;
  }
}

/** A command's standard output, or null when it could not run (as `vm_command_line`). */
async function commandOutput(ctx: OsworldContext, argv: string[] | string): Promise<string | null> {
  try {
    return (await ctx.env.process.run(argv, { signal: ctx.signal, commandTimeoutMs: 120_000 })).stdout;
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    ctx.log(`${JSON.stringify(argv)}: ${(err as Error).message}`);
    return null;
  }
}

/** A directory tree as OSWorld's server lists it: `{type: "directory", name, children}`, files as `{type: "file", name}`. */
interface TreeNode {
  type: "directory" | "file";
  name: string;
  children?: TreeNode[];
}

/** `get_list_directory`: the tree under `path` (its name is the path's last part), or null when it is not a folder. */
async function listDirectory(path: string, ctx: OsworldContext): Promise<TreeNode | null> {
  let listing: Awaited<ReturnType<OsworldContext["env"]["files"]["list"]>>;
  try {
    if ((await ctx.env.files.stat(path, { signal: ctx.signal })).type !== "directory") return null;
    listing = await ctx.env.files.list(path, { signal: ctx.signal, recursive: true, limit: 100_000 });
  } catch (err) {
    if (ctx.signal.aborted || !(err instanceof NotFoundError)) throw err;
    return null;
  }
  const root: TreeNode = { type: "directory", name: path.slice(path.lastIndexOf("/") + 1), children: [] };
  const dirs = new Map<string, TreeNode>([[path.replace(/\/+$/, ""), root]]);
  for (const e of listing.entries) {
    const node: TreeNode = e.type === "directory" ? { type: "directory", name: e.name, children: [] } : { type: "file", name: e.name };
    if (e.type === "directory") dirs.set(e.path, node);
    dirs.get(e.path.slice(0, e.path.lastIndexOf("/")))?.children?.push(node);
  }
  return root;
}

/** `astype(str)` of a pandas value of a column of `dtype`. */
function pandasStr(v: PyVal, dtype: string): string {
  if (v === null) return dtype === "datetime64" || dtype === "timedelta64" ? "NaT" : "nan";
  if (typeof v === "number") return dtype === "float64" || !Number.isInteger(v) ? floatRepr(v) : String(v);
  if (typeof v === "boolean") return v ? "True" : "False";
  if (typeof v === "string") return v;
  return showDate(v);
}

/** `get_content_from_vm_file` for `file_type` "xlsx" and `file_content` "last_row": the first sheet's last row, each value as text. */
async function contentFromVmFile(c: { path: string; file_type: string; file_content: string }, ctx: OsworldContext): Promise<unknown> {
  if (c.file_type !== "xlsx") throw new Error(`content_from_vm_file: file type ${c.file_type} is not supported (OSWorld raises NotImplementedError)`);
  const local = await fetchToCache(ctx, c.path, c.path.slice(c.path.lastIndexOf("/") + 1));
  if (local === null) throw new Error(`content_from_vm_file: ${c.path} is not on the machine (pandas raises)`);
  if (c.file_content !== "last_row") return null;
  const book = await loadBook(local);
  const first = book.sheets.find((s) => s.isWorksheet);
  const frame = first ? await readExcelLikePandas(book, first.name) : undefined;
  if (!frame || frame.nrows === 0) throw new Error(`content_from_vm_file: ${c.path} has no data row (pandas raises IndexError)`);
  return frame.data.map((col, j) => pandasStr(col[frame.nrows - 1] ?? null, frame.dtypes[j]!));
}

/** `get_vm_wallpaper`: the file GNOME's `picture-uri` names, copied as `dest` (an empty file when there is none). */
async function vmWallpaper(c: { dest: string }, ctx: OsworldContext): Promise<string> {
  const uri = await commandOutput(ctx, ["gsettings", "get", "org.gnome.desktop.background", "picture-uri"]);
  const path = uri?.trim().replace("file://", "").replaceAll("'", "");
  const local = path ? await fetchToCache(ctx, path, c.dest).catch(() => null) : null;
  if (local !== null) return local;
  ctx.log("vm_wallpaper: no wallpaper file; an empty file stands for it");
  await writeCacheFile(ctx, c.dest, "", "dest");
  return join(ctx.cacheDir, c.dest);
}

/** `get_shortcuts_on_desktop`: each `.desktop` file on `~/Desktop` by name, with its text. */
async function shortcutsOnDesktop(ctx: OsworldContext): Promise<Record<string, string>> {
  const desktop = await expandUser("~/Desktop", ctx);
  const out: Record<string, string> = {};
  for (const e of (await ctx.env.files.list(desktop, { signal: ctx.signal })).entries) {
    if (e.name.endsWith(".desktop")) out[e.name] = await ctx.env.files.read(join(desktop, e.name), { signal: ctx.signal });
  }
  return out;
}

/** The video types `get_default_video_player` asks xdg-mime about (`video/<type>`), in its order. */
const VIDEO_TYPES = [
  "3gp 3gp 3gpp 3gpp 3gpp2 3gpp2 avi avi divx divx dv dv fli fli flv flv mp2t mp2t mp4 mp4 mp4v-es mp4v-es mpeg mpeg mpeg-system mpeg-system ",
  "msvideo msvideo ogg ogg quicktime quicktime vnd.divx vnd.divx vnd.mpegurl vnd.mpegurl vnd.rn-realvideo vnd.rn-realvideo webm webm x-anim ",
  "x-anim x-avi x-avi x-flc x-flc x-fli x-fli x-flv x-flv x-m4v x-m4v x-matroska x-matroska x-mpeg x-mpeg x-mpeg-system x-mpeg-system x-mpeg2 ",
  "x-mpeg2 x-ms-asf x-ms-asf x-ms-asf-plugin x-ms-asf-plugin x-ms-asx x-ms-asx x-ms-wm x-ms-wm x-ms-wmv x-ms-wmv x-ms-wmx x-ms-wmx x-ms-wvx ",
  "x-ms-wvx x-msvideo x-msvideo x-nsv x-nsv x-ogm x-ogm x-ogm+ogg x-theora x-theora x-theora+ogg x-theora+ogg",
]
  .join("")
  .split(" ");

/** `get_default_video_player`: the most common non-empty answer of `xdg-mime query default video/<type>` (first seen wins a tie), or "unknown". */
async function defaultVideoPlayer(ctx: OsworldContext): Promise<string> {
  const counts = new Map<string, number>();
  for (const t of VIDEO_TYPES) {
    const app = await commandOutput(ctx, ["xdg-mime", "query", "default", `video/${t}`]);
    if (app) counts.set(app, (counts.get(app) ?? 0) + 1);
  }
  let best: [string, number] | undefined;
  for (const entry of counts) if (!best || entry[1] > best[1]) best = entry;
  return best?.[0] ?? "unknown";
}

/** `get_vlc_playing_info`: VLC's web interface status (`/requests/status.xml`, password "password") as `dest`; null for an HTTP error. */
async function vlcPlayingInfo(c: { dest: string }, ctx: OsworldContext): Promise<string | null> {
  const remote = `/tmp/pincer-vlc-status-${Date.now()}.xml`;
  const r = await ctx.env.process.run(["curl", "-sS", "-f", "-m", "30", "-u", ":password", "-o", remote, "http://127.0.0.1:8080/requests/status.xml"], {
    signal: ctx.signal,
    commandTimeoutMs: 40_000,
  });
  // curl's 22 is an HTTP error status (OSWorld returns None); anything else failing is a connection error, which OSWorld raises.
  if (r.exitCode === 22) return null;
  if (r.exitCode !== 0) throw new Error(`vlc_playing_info: VLC's web interface does not answer: ${r.stderr.trim()}`);
  const local = await fetchToCache(ctx, remote, c.dest);
  await ctx.env.files.remove(remote, { signal: ctx.signal }).catch(() => undefined);
  return local;
}

/**
 * `get_vscode_config`: runs a command of VS Code's palette (Ctrl+Shift+P, the command's name, Enter)
 * in its window, then fetches `path` as `dest`; when the command wrote nothing there, the text of
 * every `workspace.json` of VS Code's workspace storage stands for it ("" when there is none).
 */
async function vscodeConfig(c: { vscode_extension_command: string; path: string; dest: string }, ctx: OsworldContext): Promise<string> {
  const activate = OSWORLD_CONFIG_TYPES.get("activate_window")!;
  await activate.run(activate.parameters.parse({ window_name: "Visual Studio Code" }), ctx);
  await sleep(500, ctx.signal);
  for (const line of [
    "pyautogui.hotkey('ctrl', 'shift', 'p')",
    `pyautogui.typewrite(${JSON.stringify(c.vscode_extension_command)})`,
    "pyautogui.press('enter')",
  ]) {
    await runPyautogui(ctx.env, line, ctx.signal);
  }
  await sleep(1000, ctx.signal);
  const local = await fetchToCache(ctx, c.path, c.dest);
  if (local !== null) return local;
  const dump = await commandOutput(ctx, "/bin/bash -lc 'find /home/user/.config/Code/User/workspaceStorage -name workspace.json -exec cat {} \\; 2>/dev/null'");
  if (!dump) return "";
  await writeCacheFile(ctx, c.dest, dump, "dest");
  return join(ctx.cacheDir, c.dest);
}

/** The getters of the machine's state. */
export const machineGetters: OsworldGetter[] = [
  defineGetter({ name: "vm_screen_size", config: z.looseObject({}), get: (_c, ctx) => ctx.env.screen.size({ signal: ctx.signal }) }),
  defineGetter({
    name: "vm_window_size",
    config: z.looseObject({ app_class_name: z.string() }),
    get: async (c, ctx) => {
      const want = c.app_class_name.toLowerCase();
      const w = (await ctx.env.windows.list({ signal: ctx.signal, includeHidden: true })).find(
        (x) => x.instance.toLowerCase() === want || x.class.toLowerCase() === want,
      );
      return w ? { width: w.geometry.width, height: w.geometry.height } : null;
    },
  }),
  defineGetter({ name: "vm_wallpaper", config: z.looseObject({ dest: destName }), get: vmWallpaper }),
  defineGetter({ name: "list_directory", config: z.looseObject({ path: z.string().min(1) }), get: (c, ctx) => listDirectory(c.path, ctx) }),
  defineGetter({ name: "shortcuts_on_desktop", config: z.looseObject({}), get: (_c, ctx) => shortcutsOnDesktop(ctx) }),
  defineGetter({
    name: "content_from_vm_file",
    config: z.looseObject({ path: z.string().min(1), file_type: z.string(), file_content: z.string() }),
    get: contentFromVmFile,
  }),
  defineGetter({ name: "default_video_player", config: z.looseObject({}), get: (_c, ctx) => defaultVideoPlayer(ctx) }),
  defineGetter({ name: "vlc_playing_info", config: z.looseObject({ dest: destName }), get: vlcPlayingInfo }),
  defineGetter({
    name: "vscode_config",
    config: z.looseObject({ vscode_extension_command: z.string(), path: z.string().min(1), dest: destName }),
    get: vscodeConfig,
  }),
];
