import { describe, expect, test } from "vitest";
import { buildReport, type Summary, type TaskResults } from "@pincer/controller/runner";
import { clipStrings, escapeHtml, jsonForScript, reportHtml, type ViewerTask } from "../../../packages/controller/src/reports/viewerHtml.js";

const HOSTILE = `</script><script>window.pwned = 1</script><!-- <img src=x onerror=alert(1)> & \u2028 "'`;

function results(over: Partial<TaskResults> = {}): TaskResults {
  return {
    score: 1,
    state: "passed",
    agent_state: "agent_done",
    end_reason: "success",
    eval_error: null,
    eval_reason: null,
    error: null,
    teardown_error: null,
    messages: [],
    total_tokens: 10,
    input_tokens: 8,
    output_tokens: 2,
    total_timing: { total_ms: 1000, setup_ms: 0, model_ms: 0, env_ms: 0 },
    steps: 1,
    max_steps: 5,
    max_steps_rule: "fixed 5",
    agent: "scripted",
    model: "",
    daemon_versions: {},
    environments: { desktop: "local" },
    machine_reset: {},
    attempt: 1,
    started_at: "",
    finished_at: "",
    ...over,
  };
}

/** The page of a one-task run whose task id, instruction, model text and tool output all carry `text`. */
function page(text: string, runId = "run-1"): string {
  const summary: Summary = { id: `t-${text}`, instruction: text, tags: [text], results: results({ eval_reason: text }) };
  const report = buildReport(runId, [{ tool: "tool", summary, attempts: 1 }]);
  const task: ViewerTask = {
    ...report.perTask[0]!,
    key: `tool/${summary.id}`,
    dir: `tool/${summary.id}/attempt-1`,
    attempt: 1,
    instruction: text,
    tags: [text],
    apps: [],
    environments: ["desktop"],
    agent: "scripted",
    model: "",
    agentState: "agent_done",
    endReason: "success",
    evalReason: text,
    maxSteps: 5,
    inputTokens: 8,
    outputTokens: 2,
    timing: summary.results.total_timing,
    recordings: {},
    earlier: [],
    trajectory: [{ turn: 1, step: 1, tool: "desktop__type", args: { text }, ok: true, result: { stdout: text }, message: text, model_ms: 3 }],
  };
  return reportHtml(report, [task]);
}

describe("report.html escaping", () => {
  test("embedded JSON holds no <, > or & and no line separators, and reads back unchanged", () => {
    const value = { a: HOSTILE, nested: [{ b: HOSTILE }] };
    const json = jsonForScript(value);
    expect(json).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(json)).toEqual(value);
  });

  test("HTML text escapes markup and quotes", () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe("&#60;a href=&#34;x&#34;&#62;&#39;&#38;&#39;&#60;/a&#62;");
  });

  test("text from the run cannot end or open an element of the page", () => {
    const html = page(HOSTILE, `run <b>${HOSTILE}`);
    // The page's own two scripts and nothing else: the data's copies of the text are all escaped.
    expect(html.match(/<\/script/gi)).toHaveLength(2);
    expect(html.match(/<script/gi)).toHaveLength(2);
    expect(html).not.toContain("<img");
    expect(html).not.toContain("<!--");
    expect(html).toContain("<title>Pincer run run &#60;b&#62;&#60;/script&#62;");
    const data = /<script type="application\/json" id="pincer-data">(.*?)<\/script>/s.exec(html)![1]!;
    const parsed = JSON.parse(data);
    expect(parsed.tasks[0].trajectory[0]).toMatchObject({ message: HOSTILE, args: { text: HOSTILE }, result: { stdout: HOSTILE } });
    expect(parsed.tasks[0].instruction).toBe(HOSTILE);
    expect(parsed.run.runId).toBe(`run <b>${HOSTILE}`);
  });

  test("nothing is loaded from elsewhere: no remote URL, and a policy that forbids fetching", () => {
    const html = page("plain");
    expect(html).not.toMatch(/(?:src|href)=["']?(?:https?:)?\/\//i);
    expect(html).toContain(`content="default-src &#39;none&#39;;`);
  });

  test("the page's script is valid JavaScript", () => {
    const script = /<script>(.*)<\/script>/s.exec(page("plain"))![1]!;
    expect(() => new Function(script)).not.toThrow();
  });

  test("long strings are cut, saying how much was left out", () => {
    expect(clipStrings({ a: ["x".repeat(30)], n: 5, s: "short" }, 10)).toEqual({ a: [`${"x".repeat(10)}… (20 more characters)`], n: 5, s: "short" });
  });
});
