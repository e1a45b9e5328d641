import { InvalidArgumentError } from "@pincer/shared";
import { type Line, logicalLines, type PyValue, PySyntaxError, type Token } from "./tokens.js";

/**
 * The syntax the interpreter reads: the Python an agent writes to drive pyautogui. Statements are
 * imports, assignments (`x = 1`, `x, y = pyautogui.position()`, `x += 10`, `pyautogui.PAUSE = 0.5`),
 * `for NAME in …:` loops with a body, `pass`, and expressions (calls, literals, names, `+ - * / // %`,
 * indexing). Anything else is an error naming the statement, found before anything runs.
 */

export type Expr =
  | { k: "lit"; v: PyValue }
  | { k: "var"; id: string }
  | { k: "seq"; items: Expr[] }
  | { k: "bin"; op: string; l: Expr; r: Expr }
  | { k: "neg"; e: Expr }
  | { k: "call"; fn: string; args: Expr[]; kwargs: [string, Expr][] }
  | { k: "index"; e: Expr; i: Expr };

export type Stmt = { src: string } & (
  | { k: "expr"; e: Expr }
  | { k: "assign"; targets: string[]; unpack: boolean; op: string; e: Expr }
  | { k: "setting"; name: string; e: Expr }
  | { k: "for"; targets: string[]; unpack: boolean; iter: Expr; body: Stmt[] }
  | { k: "pass" }
);

/** Modules a script may import; `pyautogui` and `time` are imported already, as OSWorld's prefix does. */
const MODULES = new Set(["pyautogui", "time", "pyperclip", "subprocess", "os"]);

/** pyautogui settings a script may assign. */
const SETTINGS = new Set(["pyautogui.PAUSE", "pyautogui.FAILSAFE"]);

/** What the parser needs to know of the callable vocabulary. */
export interface Vocabulary {
  /** Whether a canonical name (`pyautogui.click`, `time.sleep`, `range`) is callable. */
  has(name: string): boolean;
  /** The names a `from module import *` binds. */
  namesOf(module: string): string[];
  /** The value of a module constant (`subprocess.PIPE`, `pyautogui.LEFT`), if it is one. */
  constant(name: string): PyValue | undefined;
  /** Listed in the error for a call outside the vocabulary. */
  describe(): string;
}

/** An error that names the statement it is about. */
export function statementError(src: string, reason: string): InvalidArgumentError {
  return new InvalidArgumentError(`pyautogui script: cannot read ${JSON.stringify(src)}: ${reason}`);
}

class Reader {
  i = 0;
  constructor(
    readonly toks: Token[],
    readonly scope: Scope,
  ) {}
  peek(v?: string): Token | undefined {
    const t = this.toks[this.i];
    return v === undefined || (t && t.v === v && t.t !== "str") ? t : undefined;
  }
  eat(v: string): boolean {
    if (!this.peek(v)) return false;
    this.i++;
    return true;
  }
  expect(v: string): void {
    if (!this.eat(v)) throw new Error(`expected ${JSON.stringify(v)}${this.peek() ? ` at ${JSON.stringify(this.peek()!.v)}` : " at the end"}`);
  }
  name(): string {
    const t = this.toks[this.i];
    if (t?.t !== "name") throw new Error(`expected a name${t ? ` at ${JSON.stringify(t.v)}` : ""}`);
    this.i++;
    return t.v;
  }
  done(): boolean {
    return this.i >= this.toks.length;
  }
}

/** Names bound so far: variables, and aliases of modules and imported functions. */
interface Scope {
  vars: Set<string>;
  /** alias → canonical dotted prefix (`pg` → `pyautogui`, `sleep` → `time.sleep`). */
  aliases: Map<string, string>;
  vocab: Vocabulary;
}

function atom(r: Reader): Expr {
  const t = r.peek();
  if (!t) throw new Error("expected a value at the end");
  if (t.t === "num") {
    r.i++;
    return { k: "lit", v: t.value! };
  }
  if (t.t === "str") {
    let v = "";
    while (r.peek()?.t === "str") v += r.toks[r.i++]!.value as string;
    return { k: "lit", v };
  }
  if (t.v === "(" || t.v === "[") {
    r.i++;
    const close = t.v === "(" ? ")" : "]";
    const items: Expr[] = [];
    let comma = false;
    while (!r.eat(close)) {
      items.push(expr(r));
      if (!r.eat(",")) {
        r.expect(close);
        break;
      }
      comma = true;
    }
    return t.v === "(" && items.length === 1 && !comma ? items[0]! : { k: "seq", items };
  }
  if (t.t !== "name") throw new Error(`unexpected ${JSON.stringify(t.v)}`);
  r.i++;
  if (t.v === "True" || t.v === "False" || t.v === "None") return { k: "lit", v: t.v === "None" ? null : t.v === "True" };
  let dotted = t.v;
  while (r.peek(".")) {
    r.i++;
    dotted += `.${r.name()}`;
  }
  if (r.peek("(")) return call(r, dotted);
  const constant = dotted.includes(".") ? r.scope.vocab.constant(canonical(r.scope, dotted)) : undefined;
  if (constant !== undefined) return { k: "lit", v: constant };
  if (dotted.includes(".")) throw new Error(`${dotted} is not a value Pincer reads`);
  if (!r.scope.vars.has(dotted)) throw new Error(`name ${JSON.stringify(dotted)} is not defined`);
  return { k: "var", id: dotted };
}

/** The canonical name of a dotted callee, through import aliases. */
function canonical(scope: Scope, dotted: string): string {
  const [head, ...rest] = dotted.split(".");
  const target = scope.aliases.get(head!);
  return target ? [target, ...rest].join(".") : dotted;
}

function call(r: Reader, dotted: string): Expr {
  const head = dotted.split(".")[0]!;
  if (dotted.includes(".") && !r.scope.aliases.has(head))
    throw new Error(`name ${JSON.stringify(head)} is not defined${MODULES.has(head) ? ` (import ${head} first)` : ""}`);
  const fn = canonical(r.scope, dotted);
  if (!r.scope.vocab.has(fn)) throw new VocabularyError(`${fn}(...) is not a call Pincer performs (it performs ${r.scope.vocab.describe()})`);
  r.expect("(");
  const args: Expr[] = [];
  const kwargs: [string, Expr][] = [];
  while (!r.eat(")")) {
    if (r.peek("*") || r.peek("**")) throw new Error("argument unpacking (*args, **kwargs) is not supported");
    const kw = r.peek()?.t === "name" && r.toks[r.i + 1]?.v === "=" && r.toks[r.i + 1]?.t === "op";
    if (kw) {
      const key = r.name();
      r.i++;
      kwargs.push([key, expr(r)]);
    } else {
      if (kwargs.length > 0) throw new Error("a positional argument follows a keyword argument");
      args.push(expr(r));
    }
    if (!r.eat(",")) {
      r.expect(")");
      break;
    }
  }
  return { k: "call", fn, args, kwargs };
}

function postfix(r: Reader): Expr {
  let e = atom(r);
  while (r.peek("[")) {
    r.i++;
    const i = expr(r);
    r.expect("]");
    e = { k: "index", e, i };
  }
  if (r.peek(".")) throw new Error("attributes of values are not supported");
  return e;
}

function unary(r: Reader): Expr {
  if (r.eat("-")) return { k: "neg", e: unary(r) };
  if (r.eat("+")) return unary(r);
  return postfix(r);
}

function binary(r: Reader, ops: readonly string[], next: (r: Reader) => Expr): Expr {
  let l = next(r);
  for (let t = r.peek(); t && t.t === "op" && ops.includes(t.v); t = r.peek()) {
    r.i++;
    l = { k: "bin", op: t.v, l, r: next(r) };
  }
  return l;
}

const term = (r: Reader) => binary(r, ["*", "/", "//", "%"], unary);
/** An expression (no comparisons, no conditionals). */
export const expr = (r: Reader): Expr => binary(r, ["+", "-"], term);

/** `a, b` (a tuple) or one expression. */
function exprList(r: Reader): Expr {
  const first = expr(r);
  if (!r.peek(",")) return first;
  const items = [first];
  while (r.eat(",") && !r.done() && !r.peek(":")) items.push(expr(r));
  return { k: "seq", items };
}

/** Thrown for a call outside the vocabulary; its message is given as is. */
export class VocabularyError extends Error {}

/** Reads targets of an assignment or a loop: `x`, `x, y`, `(x, y)`. */
function targets(r: Reader, until: string): { names: string[]; unpack: boolean } {
  const paren = r.eat("(") ? ")" : r.eat("[") ? "]" : undefined;
  const names = [r.name()];
  let unpack = paren !== undefined;
  while (r.eat(",")) {
    unpack = true;
    if (r.peek(paren ?? until)) break;
    names.push(r.name());
  }
  if (paren) r.expect(paren);
  if (!r.peek(until)) throw new Error(`expected ${JSON.stringify(until)}`);
  return { names, unpack };
}

function importStmt(r: Reader): void {
  const from = r.peek("from") !== undefined;
  r.i++;
  const mod = r.name();
  if (!MODULES.has(mod)) throw new Error(`module ${mod} is not one Pincer interprets (${[...MODULES].join(", ")})`);
  if (!from) {
    r.scope.aliases.set(r.eat("as") ? r.name() : mod, mod);
    while (r.eat(",")) {
      const m = r.name();
      if (!MODULES.has(m)) throw new Error(`module ${m} is not one Pincer interprets (${[...MODULES].join(", ")})`);
      r.scope.aliases.set(r.eat("as") ? r.name() : m, m);
    }
    return;
  }
  r.expect("import");
  if (r.eat("*")) {
    for (const n of r.scope.vocab.namesOf(mod)) r.scope.aliases.set(n, `${mod}.${n}`);
    return;
  }
  do {
    const n = r.name();
    if (!r.scope.vocab.has(`${mod}.${n}`))
      throw new VocabularyError(`${mod}.${n}(...) is not a call Pincer performs (it performs ${r.scope.vocab.describe()})`);
    r.scope.aliases.set(r.eat("as") ? r.name() : n, `${mod}.${n}`);
  } while (r.eat(","));
}

const KEYWORDS = new Set([
  "if",
  "elif",
  "else",
  "while",
  "def",
  "class",
  "with",
  "try",
  "except",
  "finally",
  "return",
  "lambda",
  "del",
  "global",
  "nonlocal",
  "raise",
  "assert",
  "async",
  "await",
  "yield",
  "break",
  "continue",
]);

const ASSIGN_OPS = ["=", "+=", "-=", "*=", "/=", "//="];

/** The index of the assignment operator outside brackets, or -1. */
function topLevelAssign(toks: Token[], from: number): number {
  let depth = 0;
  for (let j = from; j < toks.length; j++) {
    const t = toks[j]!;
    if (t.t !== "op") continue;
    if ("([{".includes(t.v)) depth++;
    else if (")]}".includes(t.v)) depth--;
    else if (depth === 0 && ASSIGN_OPS.includes(t.v)) return j;
  }
  return -1;
}

/** One simple statement (everything but `for`), or undefined for an import. */
function simpleStmt(r: Reader, src: string): Stmt | undefined {
  const first = r.peek();
  if (first?.t === "name" && (first.v === "import" || first.v === "from")) {
    importStmt(r);
    return undefined;
  }
  if (first?.t === "name" && first.v === "pass") {
    r.i++;
    return { k: "pass", src };
  }
  if (first?.t === "name" && KEYWORDS.has(first.v)) throw new Error(`${first.v} statements are not supported (only for loops, assignments and calls)`);
  const assignAt = topLevelAssign(r.toks, r.i);
  if (assignAt >= 0) {
    const lhs = r.toks.slice(r.i, assignAt);
    const op = r.toks[assignAt]!.v;
    const dotted = lhs.map((t) => t.v).join("");
    if (lhs.some((t) => t.v === ".")) {
      const name = canonical(r.scope, dotted);
      if (!SETTINGS.has(name) || op !== "=") throw new Error(`only ${[...SETTINGS].join(" and ")} can be assigned to`);
      r.i = assignAt + 1;
      return { k: "setting", name, e: exprList(r), src };
    }
    const { names, unpack } = targets(r, op);
    r.i++;
    if (op !== "=" && (unpack || !r.scope.vars.has(names[0]!))) throw new Error(`${op} needs one variable assigned before`);
    const e = exprList(r);
    for (const n of names) r.scope.vars.add(n);
    return { k: "assign", targets: names, unpack, op, e, src };
  }
  return { k: "expr", e: exprList(r), src };
}

/** Splits a line's tokens into its statements at top-level `;`. */
function splitStatements(toks: Token[]): Token[][] {
  const out: Token[][] = [[]];
  for (const t of toks) {
    if (t.t === "op" && t.v === ";") out.push([]);
    else out[out.length - 1]!.push(t);
  }
  return out.filter((s) => s.length > 0);
}

interface Block {
  lines: Line[];
  i: number;
}

function forStmt(r: Reader, src: string, block: Block, line: Line, source: string): Stmt {
  r.i++;
  const { names, unpack } = targets(r, "in");
  r.expect("in");
  const iter = exprList(r);
  r.expect(":");
  for (const n of names) r.scope.vars.add(n);
  let body: Stmt[];
  if (!r.done()) {
    body = lineStatements(r.toks.slice(r.i), source, r.scope, block, line);
    r.i = r.toks.length;
  } else {
    const next = block.lines[block.i];
    if (!next || next.indent <= line.indent) throw new Error("expected an indented block after the for");
    const inner: Line[] = [];
    while (block.i < block.lines.length && block.lines[block.i]!.indent > line.indent) inner.push(block.lines[block.i++]!);
    if (inner.some((l) => l.indent < next.indent)) throw new Error("inconsistent indentation in the for's body");
    body = statementsOf({ lines: inner, i: 0 }, source, r.scope, next.indent);
  }
  return { k: "for", targets: names, unpack, iter, body, src };
}

function lineStatements(toks: Token[], source: string, scope: Scope, block: Block, line: Line): Stmt[] {
  const out: Stmt[] = [];
  for (let part of splitStatements(toks)) {
    // A for's body on its own line is the rest of the line, every statement of it.
    const isFor = part[0]!.v === "for" && part[0]!.t === "name";
    if (isFor) part = toks.slice(toks.indexOf(part[0]!));
    const src = source.slice(part[0]!.start, part[part.length - 1]!.end);
    const r = new Reader(part, scope);
    try {
      const stmt = isFor ? forStmt(r, src, block, line, source) : simpleStmt(r, src);
      if (!r.done()) throw new Error(`unexpected ${JSON.stringify(r.peek()!.v)}`);
      if (stmt) out.push(stmt);
      if (isFor) break;
    } catch (err) {
      if (err instanceof InvalidArgumentError) throw err;
      if (err instanceof VocabularyError) throw new InvalidArgumentError(`pyautogui script: ${err.message}`);
      throw statementError(src, (err as Error).message);
    }
  }
  return out;
}

function statementsOf(block: Block, source: string, scope: Scope, indent: number): Stmt[] {
  const out: Stmt[] = [];
  while (block.i < block.lines.length) {
    const line = block.lines[block.i++]!;
    if (line.indent !== indent) throw statementError(source.slice(line.start, line.end), "unexpected indentation");
    out.push(...lineStatements(line.toks, source, scope, block, line));
  }
  return out;
}

/** Parses a script; throws an InvalidArgumentError naming the first statement it cannot read. */
export function parseProgram(source: string, vocab: Vocabulary): Stmt[] {
  let lines: Line[];
  try {
    lines = logicalLines(source);
  } catch (err) {
    if (!(err instanceof PySyntaxError)) throw err;
    const start = source.lastIndexOf("\n", err.at - 1) + 1;
    const end = source.indexOf("\n", err.at);
    throw statementError(source.slice(start, end < 0 ? undefined : end).trim(), err.message);
  }
  const scope: Scope = {
    vars: new Set(),
    aliases: new Map([
      ["pyautogui", "pyautogui"],
      ["time", "time"],
    ]),
    vocab,
  };
  return statementsOf({ lines, i: 0 }, source, scope, lines[0]?.indent ?? 0);
}
