import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Command } from "commander";
import { DownloadCache } from "../datasets/osworld/downloadCache.js";

/**
 * `pincer cache add|list`: the download cache OSWorld's `download` steps and `cloud_file` getters read
 * through. On a machine without internet access, files fetched elsewhere are added by URL.
 */
export function registerCacheCommand(program: Command): void {
  const cache = program.command("cache").description("the download cache of dataset files fetched by URL (OSWorld's download and cloud_file)");
  cache
    .command("add")
    .description("store a local file as the content of a URL, for runs without internet access")
    .argument("<url>", "the URL exactly as the task names it")
    .argument("<file>", "the file to store")
    .action(async (url: string, file: string) => {
      const c = new DownloadCache();
      const entry = await c.add(url, file);
      process.stdout.write(`added ${url}: ${entry.bytes} bytes, sha256 ${entry.sha256}, in ${c.dirOf(url)}\n`);
    });
  cache
    .command("list")
    .description("the URLs in the cache, with their size and checksum")
    .action(async () => {
      const c = new DownloadCache();
      const dirs = await readdir(c.root).catch(() => [] as string[]);
      let n = 0;
      for (const d of dirs) {
        const entry = await readFile(join(c.root, d, "entry.json"), "utf8").catch(() => undefined);
        if (!entry) continue;
        const e = JSON.parse(entry) as { url: string; bytes: number; sha256: string };
        process.stdout.write(`${e.url}\t${e.bytes}\t${e.sha256}\n`);
        n++;
      }
      process.stdout.write(`${n} file(s) in ${c.root}\n`);
    });
}
