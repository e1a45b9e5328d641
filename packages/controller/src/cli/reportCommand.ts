import { join, relative } from "node:path";
import type { Command } from "commander";
import { rebuildRunReport } from "../runner/runReport.js";

/** `pincer report RUN_DIR`: rebuilds report.json, report.md and report.html of a run folder. */
export function registerReportCommand(program: Command): void {
  program
    .command("report")
    .description("rebuild report.json, report.md and report.html (the run viewer) of a run folder")
    .argument("<run_dir>", "a run folder, as pincer run writes it (e.g. results/run-20260101-120000)")
    .action(async (runDir: string) => {
      const report = await rebuildRunReport(runDir);
      const html = join(runDir, "report.html");
      process.stdout.write(`${report.tasks} task(s): passed ${report.passed}, failed ${report.failed}, errors ${report.errors}\n`);
      process.stdout.write(`wrote report.json, report.md and ${relative(process.cwd(), html) || html} (open it in a browser)\n`);
    });
}
