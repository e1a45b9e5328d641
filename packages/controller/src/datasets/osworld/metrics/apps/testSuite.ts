import { readdir } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { z } from "zod";
import type { OsworldContext } from "../../context.js";
import { defineMetric, type OsworldMetric } from "../../metric.js";
import { fail } from "../../../../evaluators/verdict.js";

/**
 * OSWorld's `check_python_file_by_test_suite` (vscode.py) imports the task's test file and calls its
 * test function on the evaluating host, in the folder where the getters fetched it and the agent's
 * files (its cache folder). Pincer runs no task code on the controller: it copies that folder's files
 * to a fresh folder on the machine and runs OSWorld's steps there with the machine's `python3` (the
 * script below), which reports the score.
 */

/** OSWorld's steps and score, as a script for the machine's python3: argv is the report's path, the test file and the function's name. */
const DRIVER = String.raw`
import importlib.util, json, os, sys, uuid
from pathlib import Path

def check(test_file, test_function_name):
    test_file_path = Path(test_file).resolve()
    if not test_file_path.exists() or not test_file_path.is_file():
        return 0.0, "the test file is not there"
    module_name = f"dynamic_test_module_{uuid.uuid4().hex[:8]}"
    try:
        test_dir = test_file_path.parent
        os.chdir(test_dir)
        if str(test_dir) not in sys.path:
            sys.path.insert(0, str(test_dir))
        try:
            spec = importlib.util.spec_from_file_location(module_name, test_file_path)
            if spec is None or spec.loader is None:
                return 0.0, "no module spec for the test file"
            module = importlib.util.module_from_spec(spec)
            sys.modules[module_name] = module
            spec.loader.exec_module(module)
        except Exception as e:
            return 0.0, f"loading the test file raised {type(e).__name__}: {e}"
        try:
            if not hasattr(module, test_function_name):
                return 0.0, f"the test file has no {test_function_name}"
            test_function = getattr(module, test_function_name)
            if not callable(test_function):
                return 0.0, f"{test_function_name} is not callable"
        except Exception as e:
            return 0.0, f"getting {test_function_name} raised {type(e).__name__}: {e}"
        try:
            result = test_function()
            if isinstance(result, bool):
                return (1.0 if result else 0.0), f"{test_function_name}() returned {result!r}"
            elif isinstance(result, (int, float)):
                return max(0.0, min(1.0, float(result))), f"{test_function_name}() returned {result!r}"
            else:
                return (1.0 if bool(result) else 0.0), f"{test_function_name}() returned {type(result).__name__} {result!r:.80}"
        except Exception as e:
            return 0.0, f"{test_function_name}() raised {type(e).__name__}: {e}"
    except Exception as e:
        return 0.0, f"{type(e).__name__}: {e}"

report = sys.argv[1]
try:
    score, why = check(sys.argv[2], sys.argv[3])
    out = {"score": score, "reason": why}
except BaseException as e:
    out = {"raises": type(e).__name__, "reason": f"{type(e).__name__}: {e}"[:300]}
with open(report, "w") as f:
    json.dump(out, f)
sys.stdout.flush()
os._exit(0)
`;

/** How long the test may run on the machine; OSWorld waits for it without a limit. */
const TIMEOUT_MS = 300_000;

/**
 * The files the test runs beside: those of its folder (the attempt's cache folder, where the getters
 * put the agent's files under their `dest` names, the ones a `gives` list leaves out of the result
 * too), and any result file kept elsewhere.
 */
async function besideTest(files: string[], testFile: string): Promise<string[]> {
  const folder = dirname(testFile);
  const out = new Map<string, string>();
  for (const e of await readdir(folder, { withFileTypes: true })) if (e.isFile()) out.set(e.name, join(folder, e.name));
  for (const f of files) if (!out.has(basename(f))) out.set(basename(f), f);
  out.set(basename(testFile), testFile);
  return [...out.values()];
}

/** Runs the test file on the machine beside the agent's files; the report the script wrote. */
async function runOnMachine(ctx: OsworldContext, files: string[], testFile: string, fn: string): Promise<{ score?: number; raises?: string; reason: string }> {
  const call = { signal: ctx.signal };
  const dir = (await ctx.env.process.run(["mktemp", "-d", "/tmp/pincer-test-suite-XXXXXX"], { ...call, check: true })).stdout.trim();
  try {
    await ctx.env.process.run(["mkdir", "-p", `${dir}/files`], { ...call, check: true });
    for (const f of await besideTest(files, testFile)) await ctx.env.files.upload(f, `${dir}/files/${basename(f)}`, call);
    const argv = ["python3", "-c", DRIVER, `${dir}/report.json`, `${dir}/files/${basename(testFile)}`, fn];
    const r = await ctx.env.process.run(argv, { ...call, cwd: `${dir}/files`, commandTimeoutMs: TIMEOUT_MS, maxOutputBytes: 65_536 });
    if (r.stderr.trim()) ctx.log(`check_python_file_by_test_suite: the test's stderr: ${r.stderr.trim().slice(-2000)}`);
    if (r.timedOut) return { score: 0, reason: `the test did not finish in ${TIMEOUT_MS / 1000} s (OSWorld would wait on)` };
    const report = await ctx.env.files.readIfExists(`${dir}/report.json`, call);
    if (report === undefined) throw new Error(`python3 on the machine did not run the test (exit ${r.exitCode}): ${r.stderr.trim().slice(-500)}`);
    return JSON.parse(report) as { score?: number; raises?: string; reason: string };
  } finally {
    await ctx.env.process.run(["rm", "-rf", dir], { signal: ctx.signal }).catch(() => undefined);
  }
}

/**
 * `check_python_file_by_test_suite(actual_files, test_file, test_function_name="test")`: the score of
 * the test file's test function (a bool as 1 or 0, a number clamped to [0, 1], anything else by its
 * truth), 0 when the file does not load or the function raises. `actual_files` is not read: the
 * test imports the agent's files, fetched beside it under their `dest` names (a multi `vm_file`
 * fetches them all, and gives the metric only the first).
 */
const checkPythonFileByTestSuite = defineMetric({
  name: "check_python_file_by_test_suite",
  options: z.object({ test_function_name: z.string().default("test") }),
  async run(result, expected, { test_function_name }, machine) {
    if (typeof expected !== "string" || expected === "") return fail("the test file is missing");
    if (!machine) throw new Error("check_python_file_by_test_suite runs the task's test file on the machine, and there is none here");
    const files = (Array.isArray(result) ? result : [result]).filter((f): f is string => typeof f === "string" && f !== "");
    const r = await runOnMachine(machine, files, expected, test_function_name);
    if (r.raises !== undefined) return fail(`OSWorld's check_python_file_by_test_suite would raise here: ${r.reason}`);
    const score = Number(r.score);
    return score >= 1 ? { score: 1, reason: r.reason } : fail(r.reason, score);
  },
});

/** OSWorld's metric that runs a task's Python test suite. */
export const testSuiteMetrics: OsworldMetric[] = [checkPythonFileByTestSuite];
