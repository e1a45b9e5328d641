import type { Command } from "commander";

// `npm run pincer validate examples --task x` without `--`: npm reads the flags after a script's
// name as its own configuration (`--task` becomes npm_config_task=true in the script's environment,
// and `x` an argument of its own; `--app` even becomes npm's -a -p), so pincer gets its arguments
// mangled. These say so, and how to pass the flags on.

/**
 * The npm script that runs pincer (`npm run <script>`, its command pincer's CLI), or undefined when
 * npm did not start pincer so (a test runner started by `npm run` passes its environment on).
 */
function npmScript(env: NodeJS.ProcessEnv): string | undefined {
  if (env.npm_command !== "run" && env.npm_command !== "run-script") return undefined;
  return /(^|[\s/])pincer(\s|$)|cli\/main\.[jt]s/.test(env.npm_lifecycle_script ?? "") ? env.npm_lifecycle_event : undefined;
}

/** A command's long flags by the name npm gives its configuration: `--max-steps` → `max_steps`; `--no-x` → `x`. */
function npmKeys(cmd: Command): Array<[string, string]> {
  return cmd.options.filter((o) => o.long).map((o) => [o.long!.replace(/^--(no-)?/, "").replace(/-/g, "_"), o.long!]);
}

/**
 * What to say when pincer runs as an npm script and npm kept flags of the command given (of every
 * command when none is named) that its arguments lack: they are in the environment as
 * `npm_config_<name>`. Returns the message, or null when none was taken.
 */
export function npmTookFlags(program: Command, args: readonly string[], env: NodeJS.ProcessEnv): string | null {
  const script = npmScript(env);
  if (!script) return null;
  const named = program.commands.find((c) => args.includes(c.name()));
  const keys = [...npmKeys(program), ...(named ? [named] : program.commands).flatMap(npmKeys)];
  const given = (flag: string) => args.some((a) => a === flag || a.startsWith(`${flag}=`));
  const taken = [...new Set(keys.filter(([key, flag]) => env[`npm_config_${key}`] !== undefined && !given(flag)).map(([, flag]) => flag))];
  if (taken.length === 0) return null;
  const example = [...args.filter((a) => !a.startsWith("-")).slice(0, 2), `${taken[0]} …`].join(" ");
  return (
    `pincer: npm took ${taken.join(", ")} for itself: \`npm run ${script}\` passes flags on only after a --, so nothing ran.\n` +
    `Put the -- before pincer's arguments: npm run ${script} -- ${example}\n`
  );
}

/**
 * Under `npm run`, adds to every usage error of `program` and its commands (too many arguments, an
 * unknown option) that flags before a `--` went to npm: a flag npm does not leave in the
 * environment cannot be named.
 */
export function addNpmHint(program: Command, env: NodeJS.ProcessEnv): void {
  const script = npmScript(env);
  if (!script) return;
  const hint = `(under npm run, flags before a -- go to npm, not to pincer: npm run ${script} -- <command> <flags>)\n`;
  const all = (c: Command): Command[] => [c, ...c.commands.flatMap(all)];
  for (const cmd of all(program)) {
    const output = cmd.configureOutput();
    cmd.configureOutput({ ...output, outputError: (text, write) => (output.outputError ?? ((t, w) => w(t)))(`${text}${hint}`, write) });
  }
}
