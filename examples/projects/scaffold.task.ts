// A multi-step task judged by an evaluator graph: partial credit for each stage reached.
import { z } from "zod";
import { action, createGraphEvaluator, evaluator } from "@pincer/controller";
import { defineTask } from "@pincer/controller/datasets";

const DIR = "/tmp/pincer-demo/scaffold";

const reset = action({
  name: "reset_scaffold",
  description: "Removes what an earlier run left.",
  run: async (_params, { env, signal }) => {
    await env.files.remove(DIR, { recursive: true, missingOk: true, signal });
  },
});
const fileContains = evaluator({
  name: "file_contains",
  description: "The file exists and contains the text.",
  params: z.object({ path: z.string(), text: z.string() }),
  run: async ({ path, text }, { env, signal }) => (await env.files.readIfExists(path, { signal }))?.includes(text) ?? false,
});
const dirExists = evaluator({
  name: "dir_exists",
  description: "The directory exists.",
  params: z.object({ path: z.string() }),
  run: async ({ path }, { env, signal }) => (await env.files.exists(path, { signal })) && (await env.files.stat(path, { signal })).type === "directory",
});
const scriptPrints = evaluator({
  name: "script_prints",
  description: "Running the script prints the text.",
  params: z.object({ path: z.string(), text: z.string() }),
  run: async ({ path, text }, { env, signal }) => {
    // Not there or not executable yet: the stage is not reached (running it would be an error).
    if (!(await env.files.exists(path, { signal })) || ((await env.files.stat(path, { signal })).mode & 0o111) === 0) return false;
    const r = await env.process.run([path], { signal, commandTimeoutMs: 10_000 });
    return r.exitCode === 0 && r.stdout.includes(text);
  },
});

export default defineTask({
  id: "scaffold",
  instruction:
    `Create a project folder ${DIR}/app with a README.md whose first line is "# app", ` +
    `and an executable script ${DIR}/app/run.sh that prints "app is running".`,
  tags: ["cli", "abstract", "projects"],
  related_apps: ["bash"],
  action_number: 4,
  build: () => ({
    setup: [reset],
    evaluator: createGraphEvaluator({
      nodes: {
        folder: { evaluator: dirExists.bind({ path: `${DIR}/app` }) },
        readme: { evaluator: fileContains.bind({ path: `${DIR}/app/README.md`, text: "# app" }) },
        script: { evaluator: scriptPrints.bind({ path: `${DIR}/app/run.sh`, text: "app is running" }) },
        done: { evaluator: fileContains.bind({ path: `${DIR}/app/README.md`, text: "# app" }) },
      },
      edges: [
        ["folder", "readme"],
        ["folder", "script"],
        ["readme", "done"],
        ["script", "done"],
      ],
      passPolicy: "recheck",
    }),
  }),
  solution: [
    { tool: "desktop__run_command", args: { command: `rm -rf ${DIR} && mkdir -p ${DIR}/app` } },
    { tool: "desktop__run_command", args: { command: `printf '# app\\n\\nA demo project.\\n' > ${DIR}/app/README.md` } },
    { tool: "desktop__run_command", args: { command: `printf '#!/bin/sh\\necho app is running\\n' > ${DIR}/app/run.sh` } },
    { tool: "desktop__run_command", args: { command: `chmod +x ${DIR}/app/run.sh` } },
  ],
});
