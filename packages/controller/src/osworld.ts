/**
 * `@pincer/controller/osworld`: OSWorld's task format (xlang-ai/OSWorld's
 * `evaluation_examples/examples/<app>/<uuid>.json`) as a dataset format, with its config steps,
 * getters and metrics ported with OSWorld's semantics. The `pincer` CLI reads it by default; a
 * library user adds it: `createRegistries({ formats: [osworldFormat] })`.
 */
export { osworldFormat } from "./datasets/osworld/format.js";
export type { OsworldDatasetTask } from "./datasets/osworld/format.js";
export { checkOsworldArguments, missingFunctions, osworldTaskSchema } from "./datasets/osworld/taskSchema.js";
export type { OsworldFunction, OsworldTaskJson } from "./datasets/osworld/taskSchema.js";
export { buildOsworldTask, FAIL_ACTION_NAME } from "./datasets/osworld/task.js";
export type { OsworldTaskInput } from "./datasets/osworld/task.js";
export { DownloadCache } from "./datasets/osworld/downloadCache.js";
export { OSWORLD_METRICS } from "./datasets/osworld/metrics/index.js";
export { OSWORLD_GETTERS } from "./datasets/osworld/allGetters.js";
export { OSWORLD_CONFIG_TYPES } from "./datasets/osworld/allConfigTypes.js";
/**
 * OSWorld's action spaces as Pincer actions: pyautogui code (`pyautoguiAction`, interpreted by the
 * controller into env calls), computer_13 dict actions and WAIT / DONE / FAIL, each as tool calls.
 */
export {
  computer13Calls,
  osworldSpecialCalls,
  parsePyautoguiCode,
  pyautoguiAction,
  pyautoguiActionCalls,
  runPyautoguiCode,
} from "./actions/pyautogui/index.js";
