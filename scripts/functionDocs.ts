/**
 * Writes docs/task-functions.md, the reference of the JSON task format's config and evaluation
 * functions, from their zod schemas. `--check` fails when the committed page differs.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { createRegistries } from "../packages/controller/src/datasets/registries.js";
import { functionReference } from "../packages/controller/src/datasets/functionReference.js";

const page = resolve(import.meta.dirname, "../docs/task-functions.md");
const text = functionReference(createRegistries());
if (process.argv.includes("--check")) {
  if (readFileSync(page, "utf8") !== text) {
    process.stderr.write("docs/task-functions.md is stale: run npm run gen:functions\n");
    process.exit(1);
  }
} else {
  writeFileSync(page, text);
}
