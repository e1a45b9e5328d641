import { join, relative } from "node:path";
import type { Command } from "commander";
import { InvalidArgumentError } from "@pincer/shared";
import { writeRunComparison } from "../reports/runComparison.js";
import { rebuildRunReport } from "../reports/writeReports.js";

const shown = (file: string) => relative(process.cwd(), file) || file;

/** `pincer report RUN_DIR` rebuilds a run folder's reports; `pincer report --compare RUN_A RUN_B` writes the comparison page of two runs. */
export function registerReportCommand(program: Command): void {
  program
    .command("report")
    .description("rebuild report.json, report.md and report.html (the run viewer) of a run folder, or compare two runs (--compare)")
    .argument("[run_dir]", "a run folder, as pincer run writes it (e.g. results/run-20260101-120000)")
    .option("--compare <run_dirs...>", "two run folders of the same dataset, A then B: write a page comparing them task by task")
    .option("--out <file>", "with --compare: where the page goes (default: compare-<A's id>.html in B's folder)")
    .action(async (runDir: string | undefined, opts: { compare?: string[]; out?: string }) => {
      if (opts.compare) {
        if (opts.compare.length !== 2 || runDir !== undefined) {
          throw new InvalidArgumentError("--compare takes two run folders and nothing else: pincer report --compare RUN_A RUN_B [--out FILE]");
        }
        const { file, comparison: c } = await writeRunComparison(opts.compare[0]!, opts.compare[1]!, opts.out);
        const n = c.counts;
        process.stdout.write(`${c.tasks.length} task(s): ${n.better} got better, ${n.worse} got worse, ${n.changed} changed state, ${n.same} the same; `);
        process.stdout.write(`${n.only_a} only in ${c.a.runId}, ${n.only_b} only in ${c.b.runId}\n`);
        process.stdout.write(`wrote ${shown(file)} (open it in a browser)\n`);
        return;
      }
      if (runDir === undefined) throw new InvalidArgumentError("give a run folder (pincer report RUN_DIR), or two with --compare RUN_A RUN_B");
      if (opts.out !== undefined) throw new InvalidArgumentError("--out goes with --compare: pincer report RUN_DIR writes into the run folder");
      const report = await rebuildRunReport(runDir);
      const html = join(runDir, "report.html");
      process.stdout.write(`${report.tasks} task(s): passed ${report.passed}, failed ${report.failed}, errors ${report.errors}\n`);
      process.stdout.write(`wrote report.json, report.md and ${shown(html)} (open it in a browser)\n`);
    });
}
