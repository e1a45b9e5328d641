#!/usr/bin/env -S node --single-threaded-gc
// The `pincer` command: the built code in dist/ (npm ci builds it; after a change, npm run build).
// This file is in the repository so that npm links the command on `npm ci`, before dist/ exists.
try {
  await import("../dist/cli/main.js");
} catch (err) {
  if (err?.code !== "ERR_MODULE_NOT_FOUND" || !String(err.message).includes("/dist/")) throw err;
  process.stderr.write("pincer: not built yet: run npm run build in the Pincer checkout\n");
  process.exitCode = 1;
}
