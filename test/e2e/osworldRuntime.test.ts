import { createServer, type Server } from "node:http";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { runPincer } from "../fixtures/cli.js";

// Tasks written in OSWorld's format and layout (<app>/<uuid>.json, solutions beside as <uuid>.solution.json),
// run by `pincer check` on the embedded default: setup and postconfig steps, getters (vm_command_line, vm_file,
// cloud_file through the download cache), metrics combined with conj, and infeasible tasks declared with root__fail.
let root: string;
let work: string;
let server: Server;
let base: string;

const task = (id: string, config: unknown[], evaluator: Record<string, unknown>) => ({
  id,
  snapshot: "os",
  instruction: `Task ${id}.`,
  source: "pincer test",
  config,
  trajectory: "trajectories/",
  related_apps: ["os"],
  evaluator,
});

function write(id: string, body: ReturnType<typeof task>, solution: unknown[]) {
  mkdirSync(join(root, "os"), { recursive: true });
  writeFileSync(join(root, "os", `${id}.json`), JSON.stringify(body, null, 2));
  writeFileSync(join(root, "os", `${id}.solution.json`), JSON.stringify(solution));
}

const mkdir = () => ({ type: "execute", parameters: { command: ["mkdir", "-p", work] } });
const run = (command: string) => ({ tool: "desktop__run_command", args: { command } });

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "pincer-osworld-tasks-"));
  // On the machine (the embedded default gives each slot its own /tmp): the tasks make it.
  work = `/tmp/pincer-osworld-work-${process.pid}-${Date.now()}`;
  server = createServer((req, res) => res.end(req.url === "/gold.txt" ? "copied by postconfig\n" : "input file\n"));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const f = (name: string) => join(work, name);
  write(
    "exact",
    task("exact", [{ type: "execute", parameters: { command: `mkdir -p ${work} && echo start > ${f("state")}`, shell: true } }], {
      func: "exact_match",
      result: { type: "vm_command_line", command: ["cat", f("state")] },
      expected: { type: "rule", rules: { expected: "done\n" } },
    }),
    [run(`echo done > ${f("state")}`)],
  );
  write(
    "either",
    task("either", [mkdir(), { type: "command", parameters: { command: ["touch", f("a"), f("b")] } }], {
      func: ["check_include_exclude", "check_include_exclude"],
      conj: "or",
      result: [
        { type: "vm_command_line", command: `cat ${f("a")}`, shell: true },
        { type: "vm_command_line", command: `cat ${f("b")}`, shell: true },
      ],
      expected: [
        { type: "rule", rules: { include: ["yes"], exclude: ["no"] } },
        { type: "rule", rules: { include: ["yes"], exclude: ["no"] } },
      ],
    }),
    [run(`echo yes > ${f("b")}`)],
  );
  write(
    "postconfig",
    task(
      "postconfig",
      [
        { type: "download", parameters: { files: [{ url: `${base}/input.txt`, path: f("in/input.txt") }] } },
        { type: "sleep", parameters: { seconds: 0.1 } },
        mkdir(),
      ],
      {
        postconfig: [{ type: "execute", parameters: { command: `[ -e ${f("go")} ] && echo 'copied by postconfig' > ${f("out.txt")}`, shell: true } }],
        func: "compare_text_file",
        result: { type: "vm_file", path: f("out.txt"), dest: "out.txt" },
        expected: { type: "cloud_file", path: `${base}/gold.txt`, dest: "gold.txt" },
      },
    ),
    [run(`grep -q 'input file' ${f("in/input.txt")} && touch ${f("go")}`)],
  );
  write("cannot", task("cannot", [], { func: "infeasible" }), [{ tool: "root__fail" }]);
});

afterAll(() => {
  server.close();
  rmSync(root, { recursive: true, force: true });
});

test("OSWorld-format tasks pass pincer check on the embedded default: each solution scores 1, doing nothing scores 0", async () => {
  const cache = mkdtempSync(join(tmpdir(), "pincer-osworld-cache-"));
  try {
    const env = { ...process.env, PINCER_CACHE_DIR: cache };
    const validate = await runPincer(["validate", root], { env });
    expect(validate.stdout).toMatch(/^4 task\(s\) valid; 0 error\(s\), 0 warning\(s\)$/m);
    // The checks run twice per task: files from the first run must not let the second pass.
    const r = await runPincer(["check", root, "--concurrency", "1"], { env });
    expect(r.stdout, r.stderr).toMatch(/4 of 4 tasks check out/);
    expect(r.code).toBe(0);
    for (const id of ["exact", "either", "postconfig", "cannot"]) expect(r.stdout).toMatch(new RegExp(`^ok {3}os/${id}$`, "m"));
    // The download cache kept both URLs, fetched once each.
    const list = await runPincer(["cache", "list"], { env });
    expect(list.stdout).toContain(`${base}/input.txt\t11\t`);
    expect(list.stdout).toContain(`${base}/gold.txt\t21\t`);
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
}, 180_000);

test("an OSWorld task whose solution declares a feasible task infeasible scores 0", async () => {
  const dir = mkdtempSync(join(tmpdir(), "pincer-osworld-fail-"));
  try {
    mkdirSync(join(dir, "os"));
    const body = task("feasible", [], {
      func: "exact_match",
      result: { type: "vm_command_line", command: "echo hi", shell: true },
      expected: { type: "rule", rules: { expected: "hi\n" } },
    });
    writeFileSync(join(dir, "os", "feasible.json"), JSON.stringify(body));
    writeFileSync(join(dir, "os", "feasible.solution.json"), JSON.stringify([{ tool: "root__fail" }]));
    const r = await runPincer(["check", dir]);
    // Doing nothing passes it (echo hi), and declaring it infeasible fails it.
    expect(r.stdout).toMatch(/FAIL os\/feasible: its solution scores 0 \(failed\)/);
    expect(r.stdout).toContain("the agent declared the task infeasible, but it is feasible");
    expect(readFileSync(join(dir, "os", "feasible.json"), "utf8")).toContain("exact_match");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);
