import { type Command, Help } from "commander";

/** The width every help page wraps at, terminal or not. */
export const HELP_WIDTH = 100;

/** Help pages of one width, without "(default: [])" for repeatable options that start empty. */
export function configureHelp(program: Command): void {
  program.configureHelp({
    helpWidth: HELP_WIDTH,
    optionDescription(option) {
      return Help.prototype.optionDescription.call(this, option).replace(/ \(default: \[\]\)$/, "");
    },
  });
}

/** A few lines of use per command, shown under its options. */
const EXAMPLES: Record<string, string[]> = {
  run: [
    "pincer run examples --concurrency 2                  # the scripted agent, local machines",
    "pincer run examples --concurrency 2 --live           # watch each slot in a browser; take over",
    "pincer run examples --agent anthropic --model claude-sonnet-4-5 --provider container",
    "pincer run examples --env desktop=10.0.0.5:50051 --token-file desktop.token",
    "pincer run examples --resume --run-id run-20261127-101500   # continue, or retry errors",
  ],
  validate: ["pincer validate examples", "pincer validate osworld/evaluation_examples/examples --app chrome"],
  check: [
    "pincer check examples",
    "pincer check examples --repeat 5 --out health   # flaky, broken, too lenient",
    "pincer check examples --repeat 5 --queue redis://queue-host:6379   # the runs on pincer workers",
  ],
  report: ["pincer report results/run-20261127-101500"],
  replay: ["pincer replay results/run-20261127-101500", "pincer replay results/run-20261127-101500 --task 'terminal/*' --provider container"],
  record: [
    "pincer record examples/terminal/type-in-terminal --force   # do it, then Done",
    "pincer record examples/files/sort-inbox --a11y --provider container",
  ],
  image: [
    "pincer image build --profile office --format container",
    "pincer image list",
    "pincer image bundle --out pincer-daemon.tar.gz",
    "pincer image adopt Ubuntu.qcow2 --user user --name osworld-ubuntu",
  ],
  machine: [
    "pincer machine install ssh://root@lab-pc-07 --user alice --machines-file machines.json",
    "pincer machine install ssh://admin@10.0.0.5 --user bench --xvfb 1920x1080x24 -i ~/.ssh/lab",
    "pincer machine install ssh://root@lab-pc-07 --upgrade",
    "pincer machine install ssh://root@lab-pc-07 --uninstall",
  ],
  cache: ["pincer cache list", "pincer cache add 'https://example.org/data.xlsx' ./data.xlsx"],
  mcp: ["pincer mcp --env desktop=127.0.0.1:50051 --token-file desktop.token"],
  worker: ["pincer worker --queue redis://queue-host:6379 --concurrency 2 --provider container"],
};

/** Adds each command's examples to its help. */
export function addExamples(program: Command): void {
  for (const cmd of program.commands) {
    const lines = EXAMPLES[cmd.name()];
    if (lines) cmd.addHelpText("after", `\nExamples:\n${lines.map((l) => `  ${l}`).join("\n")}\n`);
  }
}
