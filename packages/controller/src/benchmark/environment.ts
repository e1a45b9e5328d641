import type { AnyAction } from "../actions/action.js";
import { desktopActions } from "../actions/desktop.js";
import { ActionDefinitionError } from "../actions/errors.js";
import { checkName } from "../actions/names.js";
import { rootActions } from "../actions/root.js";
import type { Env } from "../env/index.js";
import { screenObservation } from "./screenObservation.js";
import { noMachineEnv } from "../env/index.js";

/** The name of the root environment, which holds `complete`, `wait` and `submit`. Reserved. */
export const ROOT_ENVIRONMENT = "root";

/**
 * One machine as a benchmark sees it: a name, the `env` handle that reaches it, what an agent may
 * do there (action space) and what it sees of it (observation space).
 */
export interface Environment {
  /** Used in tool names (`name__action`): letters, digits, `-`, single `_`. */
  readonly name: string;
  readonly env: Env;
  /** The action space: the tools the agent gets for this machine. */
  readonly actions: readonly AnyAction[];
  /**
   * The observation space: actions called without arguments by `observe()`; each result is
   * reported under the action's name.
   */
  readonly observations: readonly AnyAction[];
  /** Told to the agent, e.g. "Debian 12 desktop with a terminal". */
  readonly description?: string;
}

/** Options of {@link createEnvironment}. */
export interface EnvironmentOptions {
  name: string;
  env: Env;
  /** @default the desktop actions in pixel coordinates ({@link desktopActions}) */
  actions?: readonly AnyAction[];
  /**
   * What `bench.observe()` reports of this machine, each action called without arguments.
   * @default the screen as an agent sees it: {@link screenObservation}() (settled, scaled to 1280 × 800, JPEG)
   */
  observations?: readonly AnyAction[];
  description?: string;
}

/** Checks names: the environment's, and unique action names within it. */
export function checkActionSpace(environment: string, actions: readonly AnyAction[], what = "action"): void {
  const seen = new Set<string>();
  for (const a of actions) {
    if (seen.has(a.name)) throw new ActionDefinitionError(`environment ${environment}: two ${what}s are named ${a.name}`);
    seen.add(a.name);
  }
}

/** Describes a machine for a benchmark; the `env` handle stays owned by the caller (close it yourself). */
export function createEnvironment(opts: EnvironmentOptions): Environment {
  checkName(opts.name, "environment name");
  if (opts.name === ROOT_ENVIRONMENT) throw new ActionDefinitionError(`environment name "${ROOT_ENVIRONMENT}" is reserved for the root environment`);
  const actions = opts.actions ?? Object.values(desktopActions);
  const observations = opts.observations ?? [screenObservation()];
  checkActionSpace(opts.name, actions);
  checkActionSpace(opts.name, observations, "observation");
  for (const o of observations) {
    if (!o.params.safeParse({}).success) {
      throw new ActionDefinitionError(`environment ${opts.name}: observation ${o.name} needs arguments; bind them first`);
    }
  }
  return {
    name: opts.name,
    env: opts.env,
    actions: [...actions],
    observations: [...observations],
    ...(opts.description !== undefined ? { description: opts.description } : {}),
  };
}

/**
 * The root environment: no machine, and the actions that concern the episode itself
 * (`complete`, `wait`, `submit(content)` by default).
 */
export function createRootEnvironment(actions: readonly AnyAction[] = Object.values(rootActions)): Environment {
  checkActionSpace(ROOT_ENVIRONMENT, actions);
  return {
    name: ROOT_ENVIRONMENT,
    env: noMachineEnv("the root environment has no machine"),
    actions: [...actions],
    observations: [],
    description: "Controls the episode itself: declare the task complete, wait, or submit an answer.",
  };
}
