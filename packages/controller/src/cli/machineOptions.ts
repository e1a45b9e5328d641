import { InvalidArgumentError as CliArgumentError, Option } from "commander";

const collect = (v: string, prev: string[]) => [...prev, v];

/** `WxH` of `--screen`. */
export function parseScreen(v: string): { width: number; height: number } {
  const m = /^(\d+)x(\d+)$/.exec(v);
  if (!m) throw new CliArgumentError("write WIDTHxHEIGHT, e.g. 1280x800");
  return { width: Number(m[1]), height: Number(m[2]) };
}

/** `--env name=host:port`, repeatable. */
export const envOption = () =>
  new Option("--env <name=host:port>", "a machine by environment name (repeat for several; name=a:1,b:2 gives slots); default: local Xvfb + daemon per slot")
    .argParser(collect)
    .default([]);

/** `--machines FILE`. */
export const machinesOption = () =>
  new Option("--machines <file>", "machines by environment name, with their token and TLS files and reset commands (JSON, or YAML by extension)");

/** `--screen WxH` of local machines. */
export const screenOption = () =>
  new Option("--screen <WxH>", "screen size of local machines").argParser(parseScreen).default({ width: 1280, height: 800 }, "1280x800");
