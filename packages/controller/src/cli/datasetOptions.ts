import { resolve } from "node:path";
import { type Command, InvalidArgumentError as CliArgumentError, Option } from "commander";
import type { DatasetFormat } from "../datasets/format.js";
import { loadDataset } from "../datasets/loader.js";
import { osworldFormat } from "../datasets/osworld/format.js";
import { createRegistries } from "../datasets/registries.js";
import { selectTasks } from "../datasets/select.js";
import { importTaskModule } from "../datasets/moduleImport.js";
import { checkTasksBuild } from "./buildCheck.js";

/** What every command that reads a dataset takes: `--format`, and `--task`, `--tag`, `--app` to pick tasks. */
export interface DatasetCliOptions {
  format?: string[];
  task?: string[];
  tag?: string[];
  app?: string[];
}

const collect = (v: string, prev: string[]) => [...prev, v];

/** Adds `--format`, `--task`, `--tag` and `--app` to a command. */
export function addDatasetOptions(cmd: Command): Command {
  return cmd
    .addOption(
      new Option(
        "--format <module>",
        "also read tasks of the dataset format this module's default export defines (defineDatasetFormat; .js or .ts; repeat for several)",
      )
        .argParser(collect)
        .default([], "JSON tasks, task modules, OSWorld"),
    )
    .addOption(
      new Option("--task <pattern>", "only these tasks: an id or tool/id, * and ? as wildcards (repeat for several)").argParser(collect).default([], "all"),
    )
    .addOption(new Option("--tag <tag>", "only tasks with this tag (repeat: any of them)").argParser(collect).default([], "any"))
    .addOption(new Option("--app <app>", "only tasks whose related_apps include this app (repeat: any of them)").argParser(collect).default([], "any"));
}

function isFormat(v: unknown): v is DatasetFormat {
  const f = v as Partial<DatasetFormat> | null;
  return !!f && typeof f.name === "string" && typeof f.claims === "function" && typeof f.load === "function" && typeof f.build === "function";
}

/** The formats the `--format` modules define. */
async function formatModules(files: readonly string[]): Promise<DatasetFormat[]> {
  const formats: DatasetFormat[] = [];
  for (const file of files) {
    let mod: { default?: unknown };
    try {
      mod = (await importTaskModule(resolve(file))) as { default?: unknown };
    } catch (err) {
      throw new CliArgumentError(`--format ${file}: cannot load it: ${(err as Error).message}`);
    }
    const exported = Array.isArray(mod.default) ? mod.default : [mod.default];
    if (exported.length === 0 || !exported.every(isFormat)) {
      throw new CliArgumentError(
        `--format ${file}: its default export must be a dataset format: export default defineDatasetFormat({ name, claims, load, build })`,
      );
    }
    formats.push(...exported);
  }
  return formats;
}

/** The registries with the built-in formats, OSWorld's and those of the `--format` modules. */
export async function cliRegistries(formats: readonly string[]) {
  return createRegistries({ formats: [osworldFormat, ...(await formatModules(formats))] });
}

/**
 * Loads a dataset with the built-in formats, OSWorld's and those of `--format`; task modules may
 * live in any folder (see datasets/moduleImport.ts). `--task`, `--tag` and `--app` then pick its tasks, and
 * each picked task is built as a run builds it (a task that cannot be built leaves with its problem).
 */
export async function loadCliDataset(dir: string, o: DatasetCliOptions = {}) {
  const registries = await cliRegistries(o.format ?? []);
  const dataset = await loadDataset(dir, registries, { importModule: importTaskModule });
  if (o.task?.length || o.tag?.length || o.app?.length) {
    try {
      dataset.tasks = selectTasks(dataset.tasks, { tasks: o.task ?? [], tags: o.tag ?? [], apps: o.app ?? [] });
    } catch (err) {
      throw new CliArgumentError((err as Error).message);
    }
  }
  // A task that cannot be built is refused here, with its problem, before any machine starts.
  return { registries, dataset: checkTasksBuild(dataset, registries) };
}
