import { register } from "node:module";
import { pathToFileURL } from "node:url";
import type { TaskModuleHooksData } from "./moduleImportHooks.js";

let hooksRegistered = false;
let typeScript: Promise<void> | undefined;

/** Registers moduleImportHooks.ts once: task modules share `@pincer/controller` and zod with this copy of Pincer. */
function registerResolveHooks(): void {
  if (hooksRegistered) return;
  hooksRegistered = true;
  const data: TaskModuleHooksData = { anchor: import.meta.url, packageRoot: new URL("../../", import.meta.url).href };
  // moduleImportHooks.js in dist/; under tsx (npm run pincer) this resolves to the .ts source.
  register(import.meta.resolve("./moduleImportHooks.js"), { data });
}

/**
 * Lets Node import TypeScript: tsx's ESM hooks, loaded only now, when a `.ts` module is about to be
 * imported. Not when this file is itself TypeScript: then a loader (tsx, vitest) is already running.
 */
function registerTypeScript(): Promise<void> {
  typeScript ??= import.meta.url.endsWith(".ts")
    ? Promise.resolve()
    : import("tsx/esm/api").then(({ register: registerTsx }) => {
        registerTsx();
      });
  return typeScript;
}

/**
 * Imports a task module (`*.task.ts`, `*.task.js`, …) from any folder, as every front end of Pincer
 * does (`pincer run`, `validate`, `check`, `replay`, `pincer worker`), under plain node as under tsx:
 * TypeScript is compiled on the fly (tsx, a dependency of this package), and `@pincer/controller`
 * (with its subpaths) and `zod` resolve to this copy's own, so the module's folder needs no node_modules.
 */
export async function importTaskModule(file: string): Promise<unknown> {
  // The resolve hooks first: tsx's hooks, registered after them, run before them and pass on to them.
  registerResolveHooks();
  if (/\.[mc]?ts$/.test(file)) await registerTypeScript();
  return import(pathToFileURL(file).href);
}
