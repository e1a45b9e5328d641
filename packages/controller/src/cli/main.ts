#!/usr/bin/env -S node --single-threaded-gc
import { Command } from "commander";
import { PINCER_VERSION } from "@pincer/shared";
import { registerCacheCommand } from "./cacheCommand.js";
import { registerCheckCommand } from "./checkCommand.js";
import { addExamples, configureHelp } from "./help.js";
import { registerImageCommand } from "./imageCommand.js";
import { registerMachineCommand } from "./machineCommand.js";
import { registerMcpCommand } from "./mcp.js";
import { addNpmHint, npmTookFlags } from "./npmFlags.js";
import { registerWorkerCommand } from "./queueCommands.js";
import { registerRecordCommand } from "./recordCommand.js";
import { registerReplayCommand } from "./replayCommand.js";
import { registerReportCommand } from "./reportCommand.js";
import { registerRunCommand } from "./runCommand.js";
import { registerServeCommand } from "./serveCommand.js";
import { registerValidateCommand } from "./validateCommand.js";

const program = new Command("pincer").description("Run computer-use agent benchmarks on machines running pincer-daemon.").version(PINCER_VERSION);
configureHelp(program);

registerRunCommand(program);
registerValidateCommand(program);
registerCheckCommand(program);
registerReportCommand(program);
registerReplayCommand(program);
registerRecordCommand(program);
registerImageCommand(program);
registerMachineCommand(program);
registerCacheCommand(program);
registerMcpCommand(program);
registerWorkerCommand(program);
registerServeCommand(program);
addExamples(program);

addNpmHint(program, process.env);
const npmTook = npmTookFlags(program, process.argv.slice(2), process.env);
if (npmTook) {
  process.stderr.write(npmTook);
  process.exitCode = 1;
} else {
  program.parseAsync().catch((err: unknown) => {
    process.stderr.write(`pincer: ${(err as Error).message}\n`);
    process.exitCode = 1;
  });
}
