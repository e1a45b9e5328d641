import { resolve } from "node:path";
import type { z } from "zod";
import { nearNames } from "@pincer/shared";
import { createDesktopActions } from "../actions/desktop.js";
import { TOOL_SEPARATOR } from "../actions/names.js";
import { createSystemActions } from "../actions/system.js";
import { localFileProblem, relativePathProblem } from "../env/localRoot.js";
import type { StepCall } from "../benchmark/types.js";

/** What these checks need of a dataset task (a DatasetTask fits). */
export interface TaskEnvironments {
  /** The environment names the task needs. */
  environments: readonly string[];
  /** The task's folder, where a relative upload is looked for. */
  dir: string;
}

/** How a format's tasks are checked. */
export interface SolutionCheckOptions {
  /** Root actions the format adds to `complete`, `wait` and `submit` (OSWorld's `fail`). */
  rootActions?: readonly string[];
  /** Actions the task adds to an environment beside the built-in ones (a module's `extraActions`), by environment. */
  extraActions?: Readonly<Record<string, readonly { name: string; params: unknown }[]>>;
  /**
   * An action no environment has: an error, or a warning where the task may bring actions that
   * could not be listed (a module whose `build()` needs its machines to run). @default "error"
   */
  unknownAction?: "error" | "warning";
}

/** A problem found, as the loader reports it. */
interface Problem {
  file: string;
  path: string;
  message: string;
  severity: "error" | "warning";
}

const ROOT_ACTIONS = ["complete", "wait", "submit"];

/** The built-in actions every environment offers under the runner, by name, with their parameter schemas. */
function builtinActions(): Map<string, z.ZodObject> {
  const all = [...Object.values(createDesktopActions()), ...Object.values(createSystemActions())];
  return new Map(all.map((a) => [a.name, a.params as z.ZodObject]));
}

/**
 * Checks a task's solution against the tools it will have: each step's tool is `<environment>__<action>`
 * for one of the task's environments and a built-in action, its arguments fit that action, and a
 * `local_path` is relative and stays inside its folder, and one to upload exists in the task's folder or
 * was downloaded by an earlier step.
 */
export function checkSolutionSteps(
  task: TaskEnvironments,
  solution: readonly StepCall[],
  file: string,
  problems: Problem[],
  opts: SolutionCheckOptions = {},
): void {
  const envs = task.environments;
  const actions = builtinActions();
  const downloaded = new Set<string>();
  solution.forEach((step, i) => {
    const at = (path: string, message: string, severity: "error" | "warning" = "error") =>
      problems.push({ file, path: `[${i}]${path}`, message: `step ${i + 1}: ${message}`, severity });
    if (!("tool" in step) || typeof step.tool !== "string") return;
    const cut = step.tool.indexOf(TOOL_SEPARATOR);
    const [env, name] = cut < 0 ? [undefined, step.tool] : [step.tool.slice(0, cut), step.tool.slice(cut + TOOL_SEPARATOR.length)];
    // The root environment's own actions; OSWorld tasks add `fail` (declare the task infeasible).
    if (env === "root" && (ROOT_ACTIONS.includes(name) || opts.rootActions?.includes(name))) return;
    if (env === undefined || !envs.includes(env)) {
      at(".tool", `tool ${JSON.stringify(step.tool)} names no environment of this task; write <environment>__<action> with one of ${envs.join(", ")}`);
      return;
    }
    const extra = opts.extraActions?.[env]?.find((a) => a.name === name);
    const params = extra ? (extra.params as z.ZodObject) : actions.get(name);
    if (!params) {
      const near = nearNames(name, [...actions.keys(), ...(opts.extraActions?.[env] ?? []).map((a) => a.name)]);
      const known = near.length ? ` (did you mean ${near.map((n) => `${env}__${n}`).join(", ")}?)` : "";
      const what = opts.extraActions ? "action" : "built-in action";
      at(".tool", `${env} has no ${what} ${JSON.stringify(name)}${known}`, opts.unknownAction ?? "error");
      return;
    }
    const args = ("args" in step ? step.args : undefined) ?? {};
    const parsed = params.safeParse(args);
    if (!parsed.success) {
      for (const issue of parsed.error.issues)
        at(`.args${issue.path.map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`)).join("")}`, `${step.tool}: ${issue.message}`);
      return;
    }
    const local = (parsed.data as { local_path?: string }).local_path;
    if (local === undefined) return;
    // The runner confines it to the attempt's folder (and, for uploads, the task's): say so before the run.
    const outside = relativePathProblem(local, "the attempt's folder and the task's folder");
    if (outside) {
      at(".args.local_path", outside);
      return;
    }
    if (name === "download_file") downloaded.add(resolve("/", local));
    else if (name === "upload_file" && !downloaded.has(resolve("/", local))) {
      const problem = localFileProblem(task.dir, local, { field: "local_path", what: "the task's folder" });
      if (problem?.missing) at(".args.local_path", `${local} is neither in the task folder (${task.dir}) nor downloaded by an earlier step`);
      else if (problem) at(".args.local_path", problem.message.replace(/^local_path: /, ""));
    }
  });
}
