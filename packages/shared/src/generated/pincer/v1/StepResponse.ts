// Original file: pincer/v1/episodes.proto

import type { Observation as _pincer_v1_Observation, Observation__Output as _pincer_v1_Observation__Output } from '../../pincer/v1/Observation.js';
import type { NodeVerdict as _pincer_v1_NodeVerdict, NodeVerdict__Output as _pincer_v1_NodeVerdict__Output } from '../../pincer/v1/NodeVerdict.js';

export interface StepResponse {
  /**
   * The screens after the action; unset when the episode is done.
   */
  'observation'?: (_pincer_v1_Observation | null);
  /**
   * The task's evaluator score so far, in [0, 1].
   */
  'reward'?: (number | string);
  /**
   * The episode ended (terminated or truncated): close it.
   */
  'done'?: (boolean);
  /**
   * It ended by the task: its evaluator decided, or the agent said done or infeasible.
   */
  'terminated'?: (boolean);
  /**
   * It ended by a limit: steps, time, or an error of the machines.
   */
  'truncated'?: (boolean);
  /**
   * Why it ended ("success", "agent_complete", "step_limit", "time_limit", "env_error", ...);
   * empty while it goes on.
   */
  'endReason'?: (string);
  /**
   * The action's error, when it failed (the episode may go on).
   */
  'error'?: (string);
  /**
   * The evaluator's nodes after the action.
   */
  'nodes'?: (_pincer_v1_NodeVerdict)[];
  /**
   * Steps taken so far.
   */
  'step'?: (number);
  /**
   * What the action returned, as JSON (a command's exit code and output, a file's text; bytes
   * become their size): "null" when it returned nothing or failed.
   */
  'resultJson'?: (string);
}

export interface StepResponse__Output {
  /**
   * The screens after the action; unset when the episode is done.
   */
  'observation': (_pincer_v1_Observation__Output | null);
  /**
   * The task's evaluator score so far, in [0, 1].
   */
  'reward': (number);
  /**
   * The episode ended (terminated or truncated): close it.
   */
  'done': (boolean);
  /**
   * It ended by the task: its evaluator decided, or the agent said done or infeasible.
   */
  'terminated': (boolean);
  /**
   * It ended by a limit: steps, time, or an error of the machines.
   */
  'truncated': (boolean);
  /**
   * Why it ended ("success", "agent_complete", "step_limit", "time_limit", "env_error", ...);
   * empty while it goes on.
   */
  'endReason': (string);
  /**
   * The action's error, when it failed (the episode may go on).
   */
  'error': (string);
  /**
   * The evaluator's nodes after the action.
   */
  'nodes': (_pincer_v1_NodeVerdict__Output)[];
  /**
   * Steps taken so far.
   */
  'step': (number);
  /**
   * What the action returned, as JSON (a command's exit code and output, a file's text; bytes
   * become their size): "null" when it returned nothing or failed.
   */
  'resultJson': (string);
}
