import { createServer, type Server } from "node:http";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createMemoryEnv } from "../../../packages/controller/src/env/index.js";
import { shlexSplit } from "../../../packages/controller/src/datasets/osworld/context.js";
import { DownloadCache } from "../../../packages/controller/src/datasets/osworld/downloadCache.js";
import { parsePyautogui, runPyautogui } from "../../../packages/controller/src/datasets/osworld/pyautogui.js";

describe("pyautogui one-liners, performed through the daemon's input calls", () => {
  test("hotkey (arguments or a list), press, write, click at a point, scroll and sleep become input events in order", async () => {
    const env = createMemoryEnv({ width: 1280, height: 800 });
    const code = `import pyautogui; import time; pyautogui.click(640, 400); time.sleep(0.01); pyautogui.hotkey("ctrl", "s"); pyautogui.hotkey(["ctrl", "q"]);
pyautogui.press('enter'); pyautogui.write("a;b"); pyautogui.scroll(-3)`;
    await runPyautogui(env, code, new AbortController().signal);
    expect(env.events.map((e) => e.type)).toEqual(["click", "press", "press", "press", "type", "scroll"]);
    expect(env.events[0]).toMatchObject({ at: { x: 640, y: 400 }, button: "left", count: 1 });
    expect(env.events[1]).toMatchObject({ keys: ["Control_L", "s"] });
    expect(env.events[2]).toMatchObject({ keys: ["Control_L", "q"] });
    expect(env.typed).toBe("a;b");
    // pyautogui scrolls down for negative clicks: Pincer's dy is notches down.
    expect(env.events[5]).toMatchObject({ dy: 3 });
  });

  test("a call Pincer does not perform, or an argument that is not a literal, is an error naming the statement", () => {
    expect(() => parsePyautogui("import pyautogui; pyautogui.locateOnScreen('x.png')")).toThrow(
      /pyautogui.locateOnScreen\(\.\.\.\) is not a call Pincer performs/,
    );
    expect(() => parsePyautogui("import pyautogui; pyautogui.click(x, 3)")).toThrow(/cannot read "pyautogui.click\(x, 3\)"/);
    expect(parsePyautogui("import pyautogui, time\nsleep(1)")).toEqual([{ name: "time.sleep", args: [1], kwargs: {} }]);
  });
});

test("commands split as Python's shlex.split does", () => {
  expect(shlexSplit(`vlc --no-audio "a b" 'c "d"' e\\ f`)).toEqual(["vlc", "--no-audio", "a b", 'c "d"', "e f"]);
  expect(() => shlexSplit(`echo "open`)).toThrow(/no closing quotation/);
});

describe("the download cache", () => {
  let server: Server;
  let base: string;
  let hits = 0;
  let root: string;
  const body = Buffer.from("a spreadsheet, say\n");
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "pincer-downloads-"));
    server = createServer((req, res) => {
      hits++;
      if (req.url === "/half") {
        res.writeHead(200, { "content-length": "1000" });
        res.write("part");
        setTimeout(() => res.destroy(), 20);
      } else if (req.url === "/missing") res.writeHead(404).end();
      else res.end(body);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => {
    server.close();
    rmSync(root, { recursive: true, force: true });
  });

  test("fetches a URL once, then serves it from the cache; a checksum picks the content", async () => {
    const cache = new DownloadCache(root);
    const first = await cache.get(`${base}/a.xlsx`);
    expect(readFileSync(first)).toEqual(body);
    await cache.get(`${base}/a.xlsx`);
    expect(hits).toBe(1);
    const sha = createHash("sha256").update(body).digest("hex");
    expect(await cache.get(`${base}/a.xlsx`, { sha256: sha })).toBe(first);
    expect(hits).toBe(1);
    await expect(cache.get(`${base}/b.xlsx`, { sha256: "0".repeat(64) })).rejects.toThrow(/has sha256 [0-9a-f]{64}, but the task expects 0{64}/);
  });

  test("offline, the error names the URL and how to add the file; a failed download leaves nothing behind", async () => {
    const offline = new DownloadCache(root, async () => {
      throw Object.assign(new TypeError("fetch failed"), { cause: { code: "ENOTFOUND" } });
    });
    const url = "https://drive.google.com/uc?id=abc&export=download";
    await expect(offline.get(url)).rejects.toThrow(
      `cannot download ${url} (ENOTFOUND); if this machine is offline, fetch the file elsewhere and add it with: pincer cache add '${url}' <file>`,
    );
    const cache = new DownloadCache(root);
    await expect(cache.get(`${base}/half`)).rejects.toThrow();
    await expect(cache.get(`${base}/missing`)).rejects.toThrow(/HTTP 404/);
    for (const dir of [cache.dirOf(`${base}/half`), cache.dirOf(`${base}/missing`)]) expect(existsSync(dir) ? readdirSync(dir) : []).toEqual([]);
    // Added by hand, it is served offline.
    const file = join(root, "gold.xlsx");
    writeFileSync(file, "gold");
    await offline.add(url, file);
    expect(readFileSync(await offline.get(url), "utf8")).toBe("gold");
  });
});
