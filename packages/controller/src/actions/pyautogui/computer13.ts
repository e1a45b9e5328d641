import { InvalidArgumentError } from "@pincer/shared";
import { z } from "zod";
import { pincerKey } from "./keys.js";

/**
 * OSWorld's action spaces as Pincer tool calls. computer_13's dict actions become pyautogui code,
 * the very code OSWorld's PythonController.execute_action sends its machine, run by the
 * `pyautogui` action: one path to the env calls for both action spaces. WAIT, DONE and FAIL, which
 * both spaces take, become calls of the root environment.
 */

/** A tool call of an episode: the shape of the benchmark's StepCall with `env` and `action`. */
export interface OsworldToolCall {
  env: string;
  action: string;
  args?: Record<string, unknown>;
}

/** The root environment's name (the benchmark's ROOT_ENVIRONMENT). */
const ROOT = "root";
/** The root action OSWorld tasks add for FAIL (the OSWorld format's FAIL_ACTION_NAME). */
const FAIL_ACTION = "fail";
/** The action that runs pyautogui code (see pyautoguiAction). */
export const PYAUTOGUI_ACTION_NAME = "pyautogui";

/** What OSWorld's `DesktopEnv.step` waits after each action, in seconds (its `pause`). */
export const OSWORLD_PAUSE_SECONDS = 2;

export type OsworldSpecial = "WAIT" | "DONE" | "FAIL";
const SPECIALS = new Set<string>(["WAIT", "DONE", "FAIL"]);

/**
 * What OSWorld's special actions mean as Pincer root calls: WAIT sleeps `pause` seconds
 * (`wait`), DONE ends the episode (`complete`), FAIL declares the task infeasible and ends it
 * (`fail`, the root action the OSWorld format adds; its `infeasible` tasks pass only then).
 */
export function osworldSpecialCalls(kind: OsworldSpecial, pause = OSWORLD_PAUSE_SECONDS): OsworldToolCall[] {
  if (kind === "WAIT") return [{ env: ROOT, action: "wait", args: { seconds: pause } }];
  return [{ env: ROOT, action: kind === "DONE" ? "complete" : FAIL_ACTION }];
}

const coord = z.number().finite().min(0);
const button = z.enum(["left", "right", "middle"]);
const key = z.string().refine((k) => pincerKey(k) !== undefined, { message: "not a key name of pyautogui's KEYBOARD_KEYS" });
const point = { x: coord.optional(), y: coord.optional() };
const bothOrNeither = (p: { x?: number | undefined; y?: number | undefined }) => (p.x === undefined) === (p.y === undefined);
const xyMessage = { message: "give both x and y, or neither", path: ["x"] };

const PARAMS = {
  MOVE_TO: z.strictObject({ x: coord, y: coord }),
  CLICK: z.strictObject({ button: button.optional(), ...point, num_clicks: z.number().int().min(1).max(3).optional() }).refine(bothOrNeither, xyMessage),
  MOUSE_DOWN: z.strictObject({ button: button.optional() }),
  MOUSE_UP: z.strictObject({ button: button.optional() }),
  RIGHT_CLICK: z.strictObject(point).refine(bothOrNeither, xyMessage),
  DOUBLE_CLICK: z.strictObject(point).refine(bothOrNeither, xyMessage),
  DRAG_TO: z.strictObject({ x: coord, y: coord }),
  SCROLL: z
    .strictObject({ dx: z.number().int().optional(), dy: z.number().int().optional() })
    .refine((p) => p.dx !== undefined || p.dy !== undefined, { message: "give dx, dy or both", path: ["dy"] }),
  TYPING: z.strictObject({ text: z.string() }),
  PRESS: z.strictObject({ key }),
  KEY_DOWN: z.strictObject({ key }),
  KEY_UP: z.strictObject({ key }),
  HOTKEY: z.strictObject({ keys: z.array(key).min(1) }),
} as const;

type Computer13Type = keyof typeof PARAMS;

/** A Python string literal of `s` (JSON's escapes are Python's too). */
const py = (s: string) => JSON.stringify(s);

/** The pyautogui code OSWorld's execute_action sends for one computer_13 action (its moves' random tweens left out). */
function codeOf(type: Computer13Type, p: Record<string, unknown>): string {
  const at = p.x !== undefined ? `x=${p.x}, y=${p.y}` : "";
  const args = (...parts: string[]) => parts.filter((s) => s !== "").join(", ");
  const b = p.button !== undefined ? `button=${py(p.button as string)}` : "";
  switch (type) {
    case "MOVE_TO":
      return `pyautogui.moveTo(${p.x}, ${p.y})`;
    case "CLICK":
      return `pyautogui.click(${args(b, at, p.num_clicks !== undefined ? `clicks=${p.num_clicks}` : "")})`;
    case "MOUSE_DOWN":
    case "MOUSE_UP":
      return `pyautogui.${type === "MOUSE_DOWN" ? "mouseDown" : "mouseUp"}(${b})`;
    case "RIGHT_CLICK":
    case "DOUBLE_CLICK":
      return `pyautogui.${type === "RIGHT_CLICK" ? "rightClick" : "doubleClick"}(${at})`;
    case "DRAG_TO":
      return `pyautogui.dragTo(${p.x}, ${p.y}, duration=1.0, button='left', mouseDownUp=True)`;
    case "SCROLL":
      return [p.dx !== undefined ? `pyautogui.hscroll(${p.dx})` : "", p.dy !== undefined ? `pyautogui.vscroll(${p.dy})` : ""].filter((s) => s).join("\n");
    case "TYPING":
      return `pyautogui.typewrite(${py(p.text as string)})`;
    case "PRESS":
    case "KEY_DOWN":
    case "KEY_UP":
      return `pyautogui.${type === "PRESS" ? "press" : type === "KEY_DOWN" ? "keyDown" : "keyUp"}(${py(p.key as string)})`;
    case "HOTKEY":
      return `pyautogui.hotkey(${(p.keys as string[]).map(py).join(", ")})`;
  }
}

const actionShape = z.object({ action_type: z.string(), parameters: z.record(z.string(), z.unknown()).optional() }).loose();

/** The issues of a zod error as "field: message" lines, fields named as in the action. */
function issues(err: z.ZodError, prefix: string): string {
  return err.issues.map((i) => `${[prefix, ...i.path].filter((s) => s !== "").join(".") || "action"}: ${i.message}`).join("; ");
}

/**
 * The pyautogui code of a computer_13 action (`{"action_type": "CLICK", "parameters": {...}}`, or
 * its parameters beside `action_type`, as OSWorld also takes them); undefined for WAIT, DONE, FAIL.
 * A wrong action is an InvalidArgumentError naming the field.
 */
export function computer13Code(input: unknown): { special: OsworldSpecial } | { code: string } {
  const shape = actionShape.safeParse(input);
  if (!shape.success) throw new InvalidArgumentError(`computer_13 action: ${issues(shape.error, "")}`);
  const { action_type: type, parameters, ...flat } = shape.data;
  if (SPECIALS.has(type)) return { special: type as OsworldSpecial };
  if (!Object.hasOwn(PARAMS, type))
    throw new InvalidArgumentError(
      `computer_13 action: action_type: ${JSON.stringify(type)} is not one of ${[...Object.keys(PARAMS), ...SPECIALS].join(", ")}`,
    );
  const params = parameters ?? flat;
  const parsed = PARAMS[type as Computer13Type].safeParse(params);
  if (!parsed.success) throw new InvalidArgumentError(`computer_13 ${type}: ${issues(parsed.error, parameters ? "parameters" : "")}`);
  return { code: codeOf(type as Computer13Type, parsed.data as Record<string, unknown>) };
}

/** The Pincer tool calls of one computer_13 action on the environment `env`. */
export function computer13Calls(env: string, input: unknown, pause = OSWORLD_PAUSE_SECONDS): OsworldToolCall[] {
  const c = computer13Code(input);
  return "special" in c ? osworldSpecialCalls(c.special, pause) : [{ env, action: PYAUTOGUI_ACTION_NAME, args: { code: c.code } }];
}

/**
 * The Pincer tool calls of one action of OSWorld's pyautogui action space: code, `WAIT`/`DONE`/`FAIL`,
 * or a dict with `command` (code) or a special `action_type`, as `DesktopEnv.step` takes them.
 */
export function pyautoguiActionCalls(env: string, input: unknown, pause = OSWORLD_PAUSE_SECONDS): OsworldToolCall[] {
  const special = typeof input === "string" ? input : (input as { action_type?: unknown } | null)?.action_type;
  if (typeof special === "string" && SPECIALS.has(special)) return osworldSpecialCalls(special as OsworldSpecial, pause);
  const code = typeof input === "string" ? input : (input as { command?: unknown } | null)?.command;
  if (typeof code !== "string") throw new InvalidArgumentError("pyautogui action: give code (a string), WAIT, DONE, FAIL, or a dict with command");
  return [{ env, action: PYAUTOGUI_ACTION_NAME, args: { code } }];
}
