import { closeSync, createReadStream, existsSync, openSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { imageMimeType, InvalidArgumentError, TimeoutError } from "@pincer/shared";
import { execa, type ResultPromise } from "execa";
import type { EndReason, StepResult } from "../benchmark/types.js";
import { summarizeResult } from "../benchmark/resultSummary.js";
import { startAttemptEndpoint, type AttemptEndpoint } from "./programEndpoint.js";
import { ProcessTree } from "./processTree.js";
import type { Agent, AgentFinish, AgentObservation, AgentTaskContext, AgentTurn } from "./types.js";

/** Options of {@link ProgramAgent}. */
export interface ProgramAgentOptions {
  /** The program and its arguments, e.g. `["python3", "agent.py"]`. */
  command: readonly string[];
  /** Names of variables of this process's environment the program gets (its model's API key, …); it gets no other. */
  passEnv?: readonly string[];
  /** The program's working folder. @default process.cwd() */
  cwd?: string;
  /** Which rollout and attempt of the task this is, given to the program as PINCER_ROLLOUT and PINCER_ATTEMPT. */
  rollout?: number;
  attempt?: number;
  /** How long the program may take to exit after the attempt ended before its process tree is stopped. @default 5000 */
  exitGraceMs?: number;
}

/** The PATH a program gets unless PATH is passed on. */
export const PROGRAM_DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin";

/** The attempt folder's sub-folder that holds the program's files. */
export const PROGRAM_FOLDER = "agent";

/** Lines of the program's stderr quoted when it fails. */
const STDERR_TAIL_LINES = 20;

/** An MCP call waiting to become a step. */
interface QueuedCall {
  tool: string;
  args: Record<string, unknown>;
  answer(r: CallToolResult): void;
}

/** How the program ended. */
interface ProgramExit {
  code: number | undefined;
  signal: string | undefined;
  /** It could not be started at all (no such program, not executable). */
  startError?: string;
}

/** Whether a PATH holds an executable `name` (a name with a slash is taken as a path). */
function findProgram(name: string, path: string, cwd: string): boolean {
  if (name.includes("/")) return existsSync(join(cwd, name)) || existsSync(name);
  return path.split(delimiter).some((dir) => dir !== "" && existsSync(join(dir, name)));
}

/** What an environment variable's name looks like (the names `--agent-env` takes and a job may carry). */
export const ENV_VAR_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The variables `names` of this process's environment; a name that is not set is an error saying so. */
export function passedEnvironment(names: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names) {
    if (!ENV_VAR_NAME.test(name)) throw new InvalidArgumentError(`--agent-env ${name}: not a variable name`);
    const value = process.env[name];
    if (value === undefined) throw new InvalidArgumentError(`--agent-env ${name}: ${name} is not set in this environment; set it or leave it out`);
    out[name] = value;
  }
  return out;
}

/** Checks a program command before any machine starts: it names a program that can be found. */
export function checkProgramCommand(command: readonly string[], passEnv: readonly string[] = [], cwd = process.cwd()): void {
  const [program] = command;
  if (!program) throw new InvalidArgumentError("--agent command: give the agent program after --, e.g. pincer run tasks --agent command -- python3 agent.py");
  const path = passedEnvironment(passEnv).PATH ?? PROGRAM_DEFAULT_PATH;
  if (!findProgram(program, path, cwd)) {
    const where = program.includes("/") ? "exists" : `on the agent's PATH (${path})`;
    throw new InvalidArgumentError(`--agent command: no program ${program} ${where}; give its full path or pass PATH with --agent-env PATH`);
  }
}

/** How a CLI starts `pincer mcp --connect`: this Node.js and the CLI's entry as this code runs (built, or the source through tsx). */
function bridgeCommand(url: string): { command: string; args: string[] } {
  const fromSource = fileURLToPath(import.meta.url).endsWith(".ts");
  const main = fileURLToPath(new URL(fromSource ? "../cli/main.ts" : "../cli/main.js", import.meta.url));
  const loader = fromSource ? ["--conditions=@pincer/source", "--import", import.meta.resolve("tsx")] : [];
  return { command: process.execPath, args: [...loader, main, "mcp", "--connect", url] };
}

/** A step's result as an MCP tool result: a screenshot as an image, other values as JSON text, an error as `isError`. */
export function stepToolResult(r: StepResult): CallToolResult {
  const content: CallToolResult["content"] = [];
  if (!r.ok) content.push({ type: "text", text: `${r.error.type}: ${r.error.message}` });
  else {
    const v = r.result as { data?: unknown; mimeType?: unknown; width?: number; height?: number } | undefined;
    if (v && Buffer.isBuffer(v.data) && typeof v.mimeType === "string") {
      content.push({ type: "image", data: v.data.toString("base64"), mimeType: imageMimeType(v.data, v.mimeType) });
      content.push({ type: "text", text: JSON.stringify({ width: v.width, height: v.height }) });
    } else {
      const summary = summarizeResult(r.result);
      content.push({ type: "text", text: summary === undefined || summary === null ? "ok" : JSON.stringify(summary) });
    }
  }
  if (r.reason) content.push({ type: "text", text: `The attempt has ended (${r.reason}): no more calls are taken.` });
  return { content, ...(r.ok ? {} : { isError: true }) };
}

function refusal(why: string): CallToolResult {
  return { isError: true, content: [{ type: "text", text: `Refused: the attempt has ended (${why}); no more actions are taken. Exit now.` }] };
}

/** Why the attempt ended, as a refusal says it. */
function endText(reason: EndReason | null, maxSteps: number): string {
  if (reason === "step_limit") return `step_limit: the task's limit of ${maxSteps} steps was reached`;
  if (reason === "time_limit") return "time_limit: the task's time limit ran out";
  return reason ?? "the run stopped it";
}

/**
 * An agent that is a program (an MCP client: a CLI, a harness in any language). For each attempt
 * it serves an MCP endpoint with the attempt's tools, starts the program (the instruction on stdin,
 * in PINCER_INSTRUCTION and in a file; the endpoint in PINCER_MCP_URL / PINCER_MCP_TOKEN and in
 * `mcpServers` files), and turns each tool call into one turn of the attempt, answered with the
 * step's result. The program's output lands in the attempt folder's `agent/`. It ends when the
 * program calls `complete`/`fail`, exits (0: evaluated as done; otherwise agent_error with its
 * stderr), reaches the step limit (later calls are refused) or the time limit (its whole process
 * tree is stopped); whatever is left of it is stopped when the attempt's agent part ends.
 */
export class ProgramAgent implements Agent {
  readonly name = "command";
  readonly model: string;
  readonly wantsScreenshots = false;
  readonly ownClock = true;
  readonly #opts: ProgramAgentOptions;
  #ctx: AgentTaskContext | undefined;
  #dir = "";
  #home: string | undefined;
  #endpoint: AttemptEndpoint | undefined;
  #child: ResultPromise | undefined;
  #tree: ProcessTree | undefined;
  #exit: ProgramExit | undefined;
  #exited: Promise<ProgramExit> = Promise.resolve({ code: undefined, signal: undefined });
  readonly #queue: QueuedCall[] = [];
  #pending: QueuedCall | undefined;
  #wake: (() => void) | undefined;
  #ended: string | undefined;

  constructor(opts: ProgramAgentOptions) {
    if (opts.command.length === 0) throw new InvalidArgumentError("ProgramAgent: give the program to run (command)");
    this.#opts = opts;
    this.model = opts.command.join(" ");
  }

  async start(ctx: AgentTaskContext): Promise<void> {
    this.#ctx = ctx;
    if (!ctx.dir) throw new InvalidArgumentError("ProgramAgent: the attempt gave no folder for the program's files");
    this.#dir = join(ctx.dir, PROGRAM_FOLDER);
    await mkdir(this.#dir, { recursive: true });
    this.#endpoint = await startAttemptEndpoint({
      tools: ctx.tools,
      onCall: (tool, args) => this.#onCall(tool, args),
      instructions: `The tools act on the machines of one task attempt. The task: ${ctx.instruction}`,
    });
    const env = await this.#environment(ctx);
    await writeFile(join(this.#dir, "instruction.txt"), `${ctx.instruction}\n`);
    // The file itself is the program's stdin, not a pipe: a program that reads all of stdin at once
    // (readFileSync(0), sys.stdin.read()) gets it whole and then EOF, never EAGAIN from an empty pipe.
    const fd = openSync(join(this.#dir, "instruction.txt"), "r");
    // A stream with a descriptor: spawn hands the descriptor itself to the program (nothing reads it here).
    const stdin = createReadStream("", { fd, autoClose: false });
    const child = execa(this.#opts.command[0]!, this.#opts.command.slice(1), {
      cwd: this.#opts.cwd ?? process.cwd(),
      env,
      extendEnv: false,
      detached: true,
      stdin,
      stdout: { file: join(this.#dir, "stdout.log") },
      stderr: { file: join(this.#dir, "stderr.log") },
      reject: false,
    });
    // The child has its own copy of the descriptor from the moment it is spawned.
    closeSync(fd);
    this.#child = child;
    if (child.pid !== undefined) this.#tree = new ProcessTree(child.pid);
    this.#exited = child.then((r) => {
      const startError = r.failed && r.exitCode === undefined && r.signal === undefined ? r.shortMessage : undefined;
      this.#exit = { code: r.exitCode, signal: r.signal, ...(startError ? { startError } : {}) };
      this.#tree?.look();
      this.#wake?.();
      return this.#exit;
    });
    ctx.signal.addEventListener("abort", () => void this.#stopProgram("the run was interrupted"), { once: true });
  }

  /** The program's whole environment: PATH, HOME, the attempt's variables, and what `passEnv` names. */
  async #environment(ctx: AgentTaskContext): Promise<Record<string, string>> {
    const endpoint = this.#endpoint!;
    const passed = passedEnvironment(this.#opts.passEnv ?? []);
    if (passed.HOME === undefined) this.#home = await mkdtemp(join(tmpdir(), "pincer-agent-home-"));
    const http = { mcpServers: { pincer: { type: "http", url: endpoint.url, headers: { Authorization: `Bearer ${endpoint.token}` } } } };
    const stdio = { mcpServers: { pincer: { type: "stdio", ...bridgeCommand(endpoint.url), env: { PINCER_MCP_TOKEN: endpoint.token } } } };
    const files = { instruction: join(this.#dir, "instruction.txt"), http: join(this.#dir, "mcp.json"), stdio: join(this.#dir, "mcp-stdio.json") };
    await writeFile(files.http, `${JSON.stringify(http, null, 2)}\n`, { mode: 0o600 });
    await writeFile(files.stdio, `${JSON.stringify(stdio, null, 2)}\n`, { mode: 0o600 });
    const { rollout, attempt } = this.#opts;
    return {
      PATH: PROGRAM_DEFAULT_PATH,
      LANG: "C.UTF-8",
      ...(this.#home ? { HOME: this.#home } : {}),
      ...passed,
      PINCER_TASK_ID: ctx.taskId,
      PINCER_INSTRUCTION: ctx.instruction,
      PINCER_INSTRUCTION_FILE: files.instruction,
      PINCER_MAX_STEPS: String(ctx.maxSteps),
      ...(ctx.timeLimitMs !== undefined ? { PINCER_TIME_LIMIT_S: String(Math.floor(ctx.timeLimitMs / 1000)) } : {}),
      PINCER_MCP_URL: endpoint.url,
      PINCER_MCP_TOKEN: endpoint.token,
      PINCER_MCP_CONFIG: files.http,
      PINCER_MCP_STDIO_CONFIG: files.stdio,
      PINCER_AGENT_DIR: this.#dir,
      ...(rollout !== undefined ? { PINCER_ROLLOUT: String(rollout) } : {}),
      ...(attempt !== undefined ? { PINCER_ATTEMPT: String(attempt) } : {}),
    };
  }

  #onCall(tool: string, args: Record<string, unknown>): Promise<CallToolResult> {
    if (this.#ended !== undefined) return Promise.resolve(refusal(this.#ended));
    return new Promise((answer) => {
      this.#queue.push({ tool, args, answer });
      this.#wake?.();
    });
  }

  async act(observation: AgentObservation): Promise<AgentTurn> {
    if (this.#pending) {
      const r = observation.lastResults.at(-1);
      this.#pending.answer(r ? stepToolResult(r) : { content: [{ type: "text", text: "ok" }] });
      this.#pending = undefined;
    }
    const { signal } = observation;
    for (;;) {
      const next = this.#queue.shift();
      if (next) {
        this.#pending = next;
        return { calls: [{ tool: next.tool, args: next.args }] };
      }
      if (this.#exit) return this.#afterExit(this.#exit);
      if (signal.aborted) {
        await this.#stopProgram(signal.reason instanceof TimeoutError ? endText("time_limit", 0) : "the run was interrupted");
        throw signal.reason;
      }
      // Woken by a call, the program's exit or the signal; the listener goes with the wait.
      await new Promise<void>((resolve) => {
        const woken = () => {
          signal.removeEventListener("abort", woken);
          resolve();
        };
        this.#wake = woken;
        signal.addEventListener("abort", woken, { once: true });
      });
      this.#wake = undefined;
    }
  }

  /** The turn after the program exited: done when it exited 0, else its failure with the end of its stderr. */
  async #afterExit(exit: ProgramExit): Promise<AgentTurn> {
    if (exit.startError) throw new Error(`the agent program could not start: ${exit.startError}`);
    if (exit.code === 0) return { calls: [], done: true, message: "the agent program exited with status 0" };
    const how = exit.signal ? `was killed by ${exit.signal}` : `exited with status ${exit.code}`;
    throw new Error(`the agent program ${how}${await this.#stderrTail()}`);
  }

  async #stderrTail(): Promise<string> {
    const text = await readFile(join(this.#dir, "stderr.log"), "utf8").catch(() => "");
    const lines = text.trimEnd().split("\n").slice(-STDERR_TAIL_LINES).join("\n");
    return lines ? `; the end of its stderr:\n${lines}` : " (its stderr is empty)";
  }

  /** The attempt ended (the first reason given stays): the calls waiting and any later one are refused. */
  #refuseFrom(why: string): void {
    this.#ended ??= why;
    for (const c of this.#queue.splice(0)) c.answer(refusal(this.#ended));
  }

  /** Refuses further calls and stops the program's whole process tree now. */
  async #stopProgram(why: string): Promise<void> {
    this.#refuseFrom(why);
    await this.#tree?.stop();
  }

  async finish(end: AgentFinish): Promise<void> {
    const why = endText(end.reason, this.#ctx?.maxSteps ?? 0);
    const last = end.lastResults.at(-1);
    this.#pending?.answer(last ? stepToolResult(last) : refusal(why));
    this.#pending = undefined;
    this.#refuseFrom(why);
    // The program may read its answer and exit by itself; what is left of it then is stopped.
    const grace = new Promise((r) => setTimeout(r, this.#opts.exitGraceMs ?? 5_000).unref());
    if (this.#child) await Promise.race([this.#exited, grace]);
    const left = (await this.#tree?.stop()) ?? [];
    const exit = this.#child ? await this.#exited : undefined;
    await this.#endpoint?.close();
    if (this.#home) await rm(this.#home, { recursive: true, force: true });
    await writeFile(join(this.#dir, "exit.json"), `${JSON.stringify({ ...exit, ended: this.#ended, left }, null, 2)}\n`).catch(() => undefined);
  }
}
