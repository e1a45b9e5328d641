/**
 * Module resolution hooks for task modules (`*.task.ts`), registered with `module.register` by
 * moduleImport.ts. They run on Node's hooks thread.
 *
 * - `@pincer/controller`, its subpaths, and `zod` (with its subpaths) imported from a task-side file
 *   (any file outside `node_modules` and outside this package) resolve as if this package imported
 *   them: to the copy of Pincer that is running, and to the zod that copy uses. A task module in any
 *   folder then needs no `npm install`, and a second copy can never creep in: `createTask` checks
 *   `instanceof Action`, and schemas meet the running copy's zod, so a task must share both with the
 *   CLI.
 * - Task-side TypeScript files are ES modules whatever the folder's package.json says: a `.ts` file
 *   in a folder without `"type": "module"` would otherwise be compiled to CommonJS, and `require()`
 *   does not pass through these hooks on Node 20.
 */
import type { InitializeHook, ResolveHook } from "node:module";

/** What moduleImport.ts passes to {@link initialize}. */
export interface TaskModuleHooksData {
  /** A file URL inside this package: shared specifiers resolve as if it imported them. */
  anchor: string;
  /** This package's folder (file URL ending in `/`): its own files are left alone. */
  packageRoot: string;
}

/** The specifiers a task shares with the running copy of Pincer. */
const SHARED = /^(?:@pincer\/controller|zod)(?:\/|$)/;

let data: TaskModuleHooksData | undefined;

export const initialize: InitializeHook<TaskModuleHooksData> = (d) => {
  data = d;
};

/** A file of the task's own: a file URL neither in a `node_modules` folder nor in this package. */
function isTaskSide(url: string | undefined, d: TaskModuleHooksData): url is string {
  return !!url && url.startsWith("file:") && !url.includes("/node_modules/") && !url.startsWith(d.packageRoot);
}

export const resolve: ResolveHook = async (specifier, context, nextResolve) => {
  const d = data;
  if (!d) return nextResolve(specifier, context);
  if (SHARED.test(specifier) && isTaskSide(context.parentURL, d)) {
    return nextResolve(specifier, { ...context, parentURL: d.anchor });
  }
  const resolved = await nextResolve(specifier, context);
  if (isTaskSide(resolved.url, d) && new URL(resolved.url).pathname.endsWith(".ts")) return { ...resolved, format: "module" };
  return resolved;
};
