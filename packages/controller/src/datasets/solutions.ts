import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { z } from "zod";
import type { StepCall } from "../benchmark/types.js";
import { jsonPath } from "./jsonFormat.js";
import { NOT_JSON, readJson, type DatasetProblem } from "./taskFiles.js";

/** A solution: tool calls, by tool name or by environment and action. */
export const solutionSchema = z.array(
  z.union([
    z.object({ tool: z.string().min(1), args: z.record(z.string(), z.unknown()).optional() }).strict(),
    z.object({ env: z.string().min(1), action: z.string().min(1), args: z.record(z.string(), z.unknown()).optional() }).strict(),
  ]),
);

/** Reads a solution: `solution.json` in a task's folder, or the file given; undefined when there is none or it is invalid (a problem is recorded). */
export async function loadSolution(dirOrFile: string, problems: DatasetProblem[]): Promise<StepCall[] | undefined> {
  const file = dirOrFile.endsWith(".json") ? dirOrFile : join(dirOrFile, "solution.json");
  if (!existsSync(file)) return undefined;
  const raw = await readJson(file, problems);
  if (raw === NOT_JSON) return undefined;
  const parsed = solutionSchema.safeParse(raw);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      problems.push({
        file,
        path: jsonPath(issue.path),
        message: `${issue.message}; a solution is a list of {"tool": "env__action", "args": {...}}`,
        severity: "error",
      });
    }
    return undefined;
  }
  return parsed.data;
}

/**
 * Where a task's solution is kept, by the task's format: `solution.json` in a JSON task's folder,
 * `<uuid>.solution.json` beside an OSWorld task, `<name>.solution.json` beside a task module (read
 * when the module exports no `solution`); undefined for a format of someone else's.
 */
export function solutionFileOf(task: { kind: string; file: string }): string | undefined {
  if (task.kind === "json") return join(dirname(task.file), "solution.json");
  if (task.kind === "osworld") return task.file.replace(/\.json$/, ".solution.json");
  if (task.kind === "module") return task.file.replace(/\.(task\.)?[mc]?[jt]s$/, ".solution.json");
  return undefined;
}
