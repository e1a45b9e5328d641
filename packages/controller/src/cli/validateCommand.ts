import type { Command } from "commander";
import { coverageOf, formatProblems } from "../datasets/loader.js";
import { addDatasetOptions, type DatasetCliOptions, loadCliDataset } from "./datasetOptions.js";

/** Adds `pincer validate` to the program: a dataset checked without machines, its problems and what Pincer lacks to run it. */
export function registerValidateCommand(program: Command): void {
  const cmd = program
    .command("validate")
    .description("check a dataset: schema, the functions its tasks name and their arguments, local files, solutions, counterparts")
    .argument("<tasks>", "folder of tasks or one task file")
    .action(async (dir: string, o: DatasetCliOptions) => {
      const { dataset } = await loadCliDataset(dir, o);
      if (dataset.problems.length) process.stdout.write(`${formatProblems(dataset.problems)}\n`);
      const errors = dataset.problems.filter((p) => p.severity === "error").length;
      const warnings = dataset.problems.length - errors;
      const c = coverageOf(dataset);
      const lacking = c.missing.filter((m) => !m.reason);
      const notRun = c.missing.filter((m) => m.reason);
      if (lacking.length) {
        process.stdout.write(
          `functions Pincer lacks, by the number of tasks that need them:\n${lacking.map((m) => `  ${m.kind} ${m.name}: ${m.tasks}`).join("\n")}\n`,
        );
      }
      if (notRun.length) {
        process.stdout.write(
          `functions Pincer does not run, and why, by the number of tasks that need them:\n${notRun
            .map((m) => `  ${m.kind} ${m.name}: ${m.tasks} (${m.reason})`)
            .join("\n")}\n`,
        );
      }
      const unsolved = dataset.tasks.filter((t) => !t.solution).map((t) => `${t.tool}/${t.id}`);
      if (unsolved.length) {
        const some = unsolved.length > 5 ? `${unsolved.slice(0, 5).join(", ")}, …` : unsolved.join(", ");
        process.stdout.write(`${unsolved.length} task(s) without a solution (${some}): pincer check cannot prove them; add a solution.json beside each\n`);
      }
      const all = dataset.tasks.length + c.unsupported + c.invalid;
      const share = all > 0 ? ` (${Math.round((1000 * dataset.tasks.length) / all) / 10}% of ${all})` : "";
      const why = [lacking.length ? "functions Pincer lacks" : "", notRun.length ? "functions Pincer does not run" : ""].filter(Boolean).join(" or ");
      const groups = c.unsupported ? `${share}; ${c.unsupported} valid but need ${why} (listed above); ${c.invalid} invalid` : "";
      process.stdout.write(
        `${dataset.tasks.length} task(s) valid${c.unsupported ? " and supported" : ""}${groups}; ${errors} error(s), ${warnings} warning(s)\n`,
      );
      process.exitCode = errors > 0 ? 1 : 0;
    });
  addDatasetOptions(cmd);
}
