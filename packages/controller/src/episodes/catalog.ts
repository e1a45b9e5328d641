import { didYouMean, InvalidArgumentError, NotFoundError } from "@pincer/shared";
import type { DatasetTask } from "../datasets/format.js";
import type { Registries } from "../datasets/registries.js";
import { environmentsOf } from "../runner/attempt.js";
import { maxStepsFor, type RunSettings } from "../runner/settings.js";
import { loadSentOsworldTask } from "./osworldTask.js";
import type { Req, Res } from "./wire.js";

/**
 * The tasks an episode server offers: the dataset's, listed and found by id, and OSWorld tasks sent
 * whole with a start (checked as `pincer validate` checks one, and kept for the run's manifest).
 */
export class TaskCatalog {
  /** Tasks sent whole, by tool/id. */
  readonly #sent = new Map<string, DatasetTask>();

  constructor(
    private readonly o: { tasks: readonly DatasetTask[]; registries: Registries; settings: RunSettings; runDir: string },
    /** The kinds of Action every task accepts. */
    private readonly actionSpaces: readonly string[],
  ) {}

  /** The dataset's tasks whose id, instruction or tags contain the filter (all without one). */
  list(req: Req<"ListTasks">): Res<"ListTasks"> {
    const filter = req.filter.toLowerCase();
    const has = (s: string) => s.toLowerCase().includes(filter);
    const tasks = this.o.tasks.filter((t) => !filter || has(t.id) || has(t.instruction) || t.tags.some(has));
    return {
      tasks: tasks.map((t) => ({
        id: t.id,
        instruction: t.instruction,
        tags: [...t.tags],
        environments: environmentsOf(t),
        actionSpaces: [...this.actionSpaces],
        maxSteps: maxStepsFor(t, this.o.settings.maxSteps).maxSteps,
      })),
    };
  }

  /** The task a start names: by id (NOT_FOUND naming near ones), or an OSWorld task sent whole (INVALID_ARGUMENT listing its problems). */
  async taskOf(req: Req<"StartEpisode">): Promise<DatasetTask> {
    if (req.task === "osworldTaskJson") {
      const task = await loadSentOsworldTask(req.osworldTaskJson ?? "", this.o.runDir, this.o.registries);
      this.#sent.set(`${task.tool}/${task.id}`, task);
      return task;
    }
    if (req.task !== "taskId") throw InvalidArgumentError.forField("task", "set task_id (a task of the served dataset) or osworld_task_json");
    const id = req.taskId ?? "";
    const task = this.o.tasks.find((t) => t.id === id || `${t.tool}/${t.id}` === id);
    if (task) return task;
    const known = this.o.tasks.map((t) => t.id);
    throw new NotFoundError(`task_id: no task ${JSON.stringify(id)} in the served dataset${didYouMean(id, known)}; ListTasks lists them`);
  }

  /** The tasks sent whole that are not of the dataset, for manifest.json. */
  sentTasks(): Array<{ id: string; tool: string; file: string }> {
    const own = new Set(this.o.tasks.map((t) => `${t.tool}/${t.id}`));
    return [...this.#sent.values()].filter((t) => !own.has(`${t.tool}/${t.id}`)).map((t) => ({ id: t.id, tool: t.tool, file: t.file }));
  }
}
