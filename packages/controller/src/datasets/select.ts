import { InvalidArgumentError } from "@pincer/shared";
import type { DatasetTask } from "./loader.js";

/** Which tasks of a dataset to run: each kind of filter narrows the selection, values of one kind widen it. */
export interface TaskSelection {
  /** Task ids or `tool/id`, with `*` and `?` wildcards: a task matching any of them. */
  tasks?: readonly string[];
  /** A task with any of these tags. */
  tags?: readonly string[];
  /** A task whose related_apps include any of these. */
  apps?: readonly string[];
}

/** A wildcard pattern (`*` any run of characters, `?` one) as a whole-string regular expression. */
function globRegex(pattern: string): RegExp {
  const body = pattern
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replace(/\*/g, ".*")
    .replace(/\?/g, ".");
  return new RegExp(`^${body}$`);
}

/**
 * The tasks a selection names, in dataset order. A `tasks` pattern that matches no task is an
 * error naming it (a typo must not silently shrink a run), and so is a selection that leaves no task.
 */
export function selectTasks(all: readonly DatasetTask[], sel: TaskSelection): DatasetTask[] {
  let out = [...all];
  if (sel.tasks?.length) {
    const patterns = sel.tasks.map((p) => ({ p, re: globRegex(p) }));
    const hit = (t: DatasetTask, re: RegExp) => re.test(t.id) || re.test(`${t.tool}/${t.id}`);
    const unmatched = patterns.filter(({ re }) => !all.some((t) => hit(t, re))).map(({ p }) => p);
    if (unmatched.length) {
      const known = all.slice(0, 8).map((t) => `${t.tool}/${t.id}`);
      throw new InvalidArgumentError(
        `--task ${unmatched.map((u) => JSON.stringify(u)).join(", ")} matches no task; tasks are named by id or tool/id, with * and ? ` +
          `(e.g. ${known.join(", ")}${all.length > known.length ? ", …" : ""})`,
      );
    }
    out = out.filter((t) => patterns.some(({ re }) => hit(t, re)));
  }
  if (sel.tags?.length) out = out.filter((t) => t.tags.some((tag) => sel.tags!.includes(tag)));
  if (sel.apps?.length) out = out.filter((t) => t.relatedApps.some((app) => sel.apps!.includes(app)));
  if (out.length === 0) {
    const what = [sel.tags?.length ? `--tag ${sel.tags.join(", ")}` : "", sel.apps?.length ? `--app ${sel.apps.join(", ")}` : ""].filter(Boolean);
    throw new InvalidArgumentError(`no task is left after ${what.join(" and ") || "the selection"}; pincer validate lists the tasks with their tags and apps`);
  }
  return out;
}
