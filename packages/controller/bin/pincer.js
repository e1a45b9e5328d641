#!/usr/bin/env -S node --single-threaded-gc
// The `pincer` command: the built code in dist/ (npm ci builds it; after a change, npm run build).
// This file is in the repository so that npm links the command on `npm ci`, before dist/ exists.
import { fileURLToPath } from "node:url";

const main = new URL("../dist/cli/main.js", import.meta.url);
try {
  await import(main.href);
} catch (err) {
  // Only a missing dist/ is "not built": a package missing from an install says its own name.
  if (err?.code !== "ERR_MODULE_NOT_FOUND" || !String(err.message).includes(`'${fileURLToPath(main)}'`)) throw err;
  process.stderr.write("pincer: not built yet: run npm run build in the Pincer checkout\n");
  process.exitCode = 1;
}
