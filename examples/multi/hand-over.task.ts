// A task across two machines: a token that exists only on "desktop" must reach "server".
import { randomBytes } from "node:crypto";
import { z } from "zod";
import { action, createGraphEvaluator, evaluator } from "@pincer/controller";
import { defineTask } from "@pincer/controller/datasets";

// Each machine gets its own folder, so the task reads the same whether the two machines share a file
// system (two daemons on one host without a sandbox) or not (separate machines, or sandboxes).
const DIR = "/tmp/pincer-demo/hand-over";
const DESKTOP_DIR = `${DIR}/desktop`;
const SERVER_DIR = `${DIR}/server`;

export default defineTask({
  id: "hand-over",
  instruction:
    `On the machine "desktop", ${DESKTOP_DIR}/token.txt holds a secret token. Put the same token into ` +
    `${SERVER_DIR}/received.txt on the machine "server" (files can pass through the controller), then write ` +
    `the word sent into ${DESKTOP_DIR}/status.txt on "desktop".`,
  tags: ["cli", "abstract", "multi-machine"],
  related_apps: ["bash"],
  action_number: 3,
  environments: ["desktop", "server"],
  build: () => {
    const token = randomBytes(8).toString("hex");
    const prepare = action({
      name: "prepare_hand_over",
      description: "Writes a fresh token on desktop and clears the folder on server.",
      params: z.object({ machine: z.enum(["desktop", "server"]) }),
      run: async ({ machine }, { env, signal }) => {
        const dir = machine === "desktop" ? DESKTOP_DIR : SERVER_DIR;
        await env.files.remove(dir, { recursive: true, missingOk: true, signal });
        await env.files.mkdir(dir, { parents: true, signal });
        if (machine === "desktop") await env.files.write(`${dir}/token.txt`, `${token}\n`, { signal });
      },
    });
    const holds = evaluator({
      name: "holds_text",
      description: "The file on this machine holds the text (surrounding whitespace aside).",
      params: z.object({ path: z.string(), text: z.string() }),
      run: async ({ path, text }, { env, signal }) => (await env.files.readIfExists(path, { signal }))?.trim() === text,
    });
    // Afterwards each machine is left as it was found: the task's folders removed.
    const cleanUp = action({
      name: "clean_up_hand_over",
      description: "Removes the task's folders on this machine.",
      params: z.object({}),
      run: async (_args, { env, signal }) => {
        await env.files.remove(DIR, { recursive: true, missingOk: true, signal });
        await env.process.run(["rmdir", "--ignore-fail-on-non-empty", "/tmp/pincer-demo"], { signal });
      },
    });
    return {
      setup: [
        { action: prepare, args: { machine: "desktop" }, env: "desktop" },
        { action: prepare, args: { machine: "server" }, env: "server" },
      ],
      teardown: [
        { action: cleanUp, args: {}, env: "desktop" },
        { action: cleanUp, args: {}, env: "server" },
      ],
      evaluator: createGraphEvaluator({
        // A step on each machine: the token reaches the server, then the desktop reports it sent.
        nodes: {
          on_server: { evaluator: holds.bind({ path: `${SERVER_DIR}/received.txt`, text: token }), env: "server" },
          reported: { evaluator: holds.bind({ path: `${DESKTOP_DIR}/status.txt`, text: "sent" }), env: "desktop" },
        },
        edges: [["on_server", "reported"]],
        passPolicy: "sticky",
      }),
    };
  },
  solution: [
    { tool: "desktop__download_file", args: { remote_path: `${DESKTOP_DIR}/token.txt`, local_path: "token.txt" } },
    { tool: "server__upload_file", args: { local_path: "token.txt", remote_path: `${SERVER_DIR}/received.txt` } },
    { tool: "desktop__run_command", args: { command: `echo sent > ${DESKTOP_DIR}/status.txt` } },
  ],
});
