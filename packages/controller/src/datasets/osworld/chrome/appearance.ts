import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { NotFoundError, sleep } from "@pincer/shared";
import { z } from "zod";
import type { OsworldContext } from "../context.js";
import { downloadToCache } from "../cacheFiles.js";
import { defineGetter, type OsworldGetter } from "../getter.js";
import { browserCommand, profileDir } from "./browser.js";
import { evaluateInPage } from "./devtools.js";
import { gotoPage, newPage } from "./pages.js";

/**
 * OSWorld's getters of Chrome's appearance mode ("light", "dark" or "system"):
 * `chrome_appearance_mode_ui` reads it from the settings page, and falls back to
 * `chrome_color_scheme`, which reads the profiles' Preferences.
 */

type Mode = "light" | "dark" | "system";

/** A `color_scheme` preference as a mode (0/"system"/"default" system, 1/"light" light, 2/"dark" dark), else null. */
function schemeMode(raw: unknown): Mode | null {
  if (typeof raw === "string") {
    const v = raw.trim().toLowerCase();
    return v === "system" || v === "default" || v === "0" ? "system" : v === "light" || v === "1" ? "light" : v === "dark" || v === "2" ? "dark" : null;
  }
  if (typeof raw === "number" || typeof raw === "boolean") {
    const n = Math.trunc(Number(raw));
    return n === 0 ? "system" : n === 1 ? "light" : n === 2 ? "dark" : null;
  }
  return null;
}

const dict = (v: unknown): Record<string, unknown> => {
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw new TypeError("not a dict");
  return v as Record<string, unknown>;
};
const get = (d: unknown, k: string, fallback: unknown = {}) => (Object.hasOwn(dict(d), k) ? dict(d)[k] : fallback);

/** The mode a Preferences file says: `browser.theme.color_scheme2` (or `color_scheme`), light when `extensions.theme.system_theme` is 0. */
export function preferencesMode(data: unknown): Mode {
  const theme = get(get(data, "browser"), "theme");
  const raw = Object.hasOwn(dict(theme), "color_scheme2") ? get(theme, "color_scheme2") : get(theme, "color_scheme", null);
  const mode = schemeMode(raw);
  const flag = get(get(get(data, "extensions"), "theme"), "system_theme", null);
  if (flag === 0 || flag === false || flag === "0") return "light";
  return mode ?? "system";
}

/** The profiles' Preferences files (Default, Guest Profile, Profile *), newest first, where OSWorld looks for them. */
async function preferenceFiles(ctx: OsworldContext): Promise<string[]> {
  const name = (await browserCommand(ctx)) === "google-chrome" ? "google-chrome" : "chromium";
  const roots = [...new Set([await profileDir(ctx), `/home/user/.config/${name}`, `/home/ubuntu/.config/${name}`])];
  const found = new Map<string, number>();
  for (const root of roots) {
    let entries: Array<{ name: string; type: string }>;
    try {
      entries = (await ctx.env.files.list(root, { signal: ctx.signal })).entries;
    } catch (err) {
      if (ctx.signal.aborted || !(err instanceof NotFoundError)) throw err;
      continue;
    }
    const profiles = entries.filter((e) => e.type === "directory" && (e.name === "Default" || e.name === "Guest Profile" || e.name.startsWith("Profile ")));
    for (const p of profiles) {
      const path = join(root, p.name, "Preferences");
      try {
        const st = await ctx.env.files.stat(path, { signal: ctx.signal });
        if (st.type === "file") found.set(path, st.modifiedMs);
      } catch (err) {
        if (ctx.signal.aborted || !(err instanceof NotFoundError)) throw err;
      }
    }
  }
  return [...found].sort((a, b) => b[1] - a[1]).map(([p]) => p);
}

/**
 * `get_chrome_color_scheme`: the mode of the newest profile's Preferences that says light or dark
 * (else the first readable one), asked five times a second apart since Chrome writes the file late;
 * "light" as soon as one says so, "system" when none can be read.
 */
export async function chromeColorScheme(ctx: OsworldContext): Promise<Mode> {
  let files = await preferenceFiles(ctx);
  if (files.length === 0) files = [join(await profileDir(ctx), "Default/Preferences")];
  let final: Mode = "system";
  for (let round = 0; round < 5; round++) {
    let best: Mode | null = null;
    for (const [i, path] of files.entries()) {
      try {
        const local = await downloadToCache(ctx, path, `chrome-scheme-${i}.json`);
        const mode = preferencesMode(JSON.parse(await readFile(local, "utf8")));
        if (mode !== "system") {
          best = mode;
          break;
        }
        best ??= mode;
      } catch (err) {
        if (ctx.signal.aborted) throw err;
      }
    }
    if (best !== null) {
      final = best;
      if (best === "light") return "light";
    }
    await sleep(1000);
  }
  return final;
}

// Runs in chrome://settings/appearance: the mode the settings page's preferences hold, else the
// mode of its selected controls (also inside shadow roots); light before dark before system.
const SETTINGS_PROBE = `(() => {
  const found = new Set();
  const lower = (v) => String(v ?? '').toLowerCase();
  const fromScheme = (v) => (v === 1 || v === '1' || lower(v) === 'light') ? 'light' : (v === 2 || v === '2' || lower(v) === 'dark') ? 'dark'
    : (v === 0 || v === '0' || ['system', 'default', 'device'].includes(lower(v))) ? 'system' : null;
  const fromSystemTheme = (v) => (v === 0 || v === '0' || v === false) ? 'light' : (v === 1 || v === '1' || v === true) ? 'dark' : null;
  const prefPaths = {
    'prefs.browser.theme.color_scheme': fromScheme,
    'prefs.browser.theme.color_scheme2': fromScheme,
    'prefs.extensions.theme.system_theme': fromSystemTheme,
  };
  try {
    const seen = new Set();
    const visit = (obj, path) => {
      if (!obj || typeof obj !== 'object' || seen.has(obj)) return;
      seen.add(obj);
      const read = prefPaths[lower(path)];
      if (read && Object.prototype.hasOwnProperty.call(obj, 'value')) { const m = read(obj.value); if (m) found.add(m); }
      for (const [k, v] of Object.entries(obj)) visit(v, path ? path + '.' + k : k);
    };
    const ui = document.querySelector('settings-ui');
    visit(ui && ui.prefs ? ui.prefs : null, 'prefs');
  } catch (e) {}
  try {
    const scopes = [document];
    for (let i = 0; i < scopes.length; i++) for (const el of scopes[i].querySelectorAll('*')) if (el.shadowRoot) scopes.push(el.shadowRoot);
    for (const scope of scopes) {
      for (const el of scope.querySelectorAll('[selected],[checked],[aria-checked="true"],option:checked')) {
        const t = lower((el.innerText || el.textContent || '').trim());
        if (!t) continue;
        const m = t.includes('light') ? 'light' : t.includes('dark') ? 'dark'
          : (t.includes('device') || t.includes('system') || t.includes('default')) ? 'system' : null;
        if (m) found.add(m);
      }
    }
  } catch (e) {}
  return ['light', 'dark', 'system'].find((m) => found.has(m)) ?? null;
})()`;

/**
 * `get_chrome_appearance_mode_ui`: opens chrome://settings/appearance in a new tab (left open, as
 * OSWorld leaves it), waits 2.5 s after the DOM is ready and reads the mode; falls back to
 * {@link chromeColorScheme} when the browser or the page does not tell.
 */
async function appearanceModeUi(ctx: OsworldContext): Promise<Mode> {
  try {
    const page = await newPage(ctx, false);
    if ((await gotoPage(ctx, page.id, "chrome://settings/appearance", "domcontentloaded", 30_000)) === "timeout")
      throw new Error("the settings page did not load");
    await sleep(2500);
    const mode = await evaluateInPage(ctx, page.id, SETTINGS_PROBE);
    if (mode === "light" || mode === "dark" || mode === "system") return mode;
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    ctx.log(`chrome_appearance_mode_ui: ${(err as Error).message}; reading Preferences instead`);
  }
  return chromeColorScheme(ctx);
}

/** The appearance getters. */
export const appearanceGetters: OsworldGetter[] = [
  defineGetter({ name: "chrome_appearance_mode_ui", config: z.looseObject({}), get: (_c, ctx) => appearanceModeUi(ctx) }),
  defineGetter({ name: "chrome_color_scheme", config: z.looseObject({}), get: (_c, ctx) => chromeColorScheme(ctx) }),
];
