import { describe, expect, test } from "vitest";
import type { DatasetTask } from "@pincer/controller/datasets";
import { selectTasks } from "../../../packages/controller/src/datasets/select.js";

const task = (tool: string, id: string, tags: string[], relatedApps: string[]) => ({ kind: "json", tool, id, tags, relatedApps }) as unknown as DatasetTask;
const all = [
  task("terminal", "write-greeting", ["cli", "abstract"], ["bash"]),
  task("terminal", "write-greeting-verbose", ["cli", "verbose"], ["bash"]),
  task("editor", "append-line", ["gui"], ["xedit"]),
  task("data", "filter-scores", ["cli"], ["python"]),
];
const ids = (ts: DatasetTask[]) => ts.map((t) => t.id);

describe("selectTasks", () => {
  test("by id, by tool/id, and by wildcard; dataset order kept", () => {
    expect(ids(selectTasks(all, { tasks: ["append-line", "terminal/write-greeting"] }))).toEqual(["write-greeting", "append-line"]);
    expect(ids(selectTasks(all, { tasks: ["write-*"] }))).toEqual(["write-greeting", "write-greeting-verbose"]);
    expect(ids(selectTasks(all, { tasks: ["data/*"] }))).toEqual(["filter-scores"]);
  });

  test("tags and apps: any value of one kind; kinds narrow each other", () => {
    expect(ids(selectTasks(all, { tags: ["verbose", "gui"] }))).toEqual(["write-greeting-verbose", "append-line"]);
    expect(ids(selectTasks(all, { tags: ["cli"], apps: ["python"] }))).toEqual(["filter-scores"]);
    expect(ids(selectTasks(all, { tasks: ["write-*"], tags: ["abstract"] }))).toEqual(["write-greeting"]);
  });

  test("a pattern that matches nothing, or an empty selection, is an error that says so", () => {
    expect(() => selectTasks(all, { tasks: ["write-greting", "append-line"] })).toThrow(
      /^--task "write-greting" matches no task; tasks are named by id or tool\/id, with \* and \? \(e\.g\. terminal\/write-greeting, /,
    );
    expect(() => selectTasks(all, { tags: ["gui"], apps: ["bash"] })).toThrow("no task is left after --tag gui and --app bash");
  });
});
