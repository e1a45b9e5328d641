// Original file: pincer/v1/episodes.proto

import type { Observation as _pincer_v1_Observation, Observation__Output as _pincer_v1_Observation__Output } from '../../pincer/v1/Observation.js';
import type { MachineGrant as _pincer_v1_MachineGrant, MachineGrant__Output as _pincer_v1_MachineGrant__Output } from '../../pincer/v1/MachineGrant.js';

export interface StartEpisodeResponse {
  /**
   * The episode's id, for every other call.
   */
  'episodeId'?: (string);
  /**
   * The task's id.
   */
  'taskId'?: (string);
  /**
   * What the agent is asked to do.
   */
  'instruction'?: (string);
  /**
   * The screens before the first action.
   */
  'observation'?: (_pincer_v1_Observation | null);
  /**
   * The most steps the episode may take; the step past it truncates the episode.
   */
  'maxSteps'?: (number);
  /**
   * The names of the tools a ToolCall may name ("desktop__click", ...).
   */
  'tools'?: (string)[];
  /**
   * The lease granted, in seconds.
   */
  'leaseSeconds'?: (number);
  /**
   * The tools as JSON: [{"name", "description", "parameters" (a JSON schema)}].
   */
  'toolsJson'?: (string);
  /**
   * The episode ended already (its setup failed): end_reason says why; close it.
   */
  'done'?: (boolean);
  /**
   * Why it ended when done.
   */
  'endReason'?: (string);
  /**
   * Direct access to the episode's machines, one per environment: empty unless the server grants
   * machine access (`pincer serve --grant-machines`). Each is the daemon of that machine, proxied.
   */
  'machines'?: (_pincer_v1_MachineGrant)[];
}

export interface StartEpisodeResponse__Output {
  /**
   * The episode's id, for every other call.
   */
  'episodeId': (string);
  /**
   * The task's id.
   */
  'taskId': (string);
  /**
   * What the agent is asked to do.
   */
  'instruction': (string);
  /**
   * The screens before the first action.
   */
  'observation': (_pincer_v1_Observation__Output | null);
  /**
   * The most steps the episode may take; the step past it truncates the episode.
   */
  'maxSteps': (number);
  /**
   * The names of the tools a ToolCall may name ("desktop__click", ...).
   */
  'tools': (string)[];
  /**
   * The lease granted, in seconds.
   */
  'leaseSeconds': (number);
  /**
   * The tools as JSON: [{"name", "description", "parameters" (a JSON schema)}].
   */
  'toolsJson': (string);
  /**
   * The episode ended already (its setup failed): end_reason says why; close it.
   */
  'done': (boolean);
  /**
   * Why it ended when done.
   */
  'endReason': (string);
  /**
   * Direct access to the episode's machines, one per environment: empty unless the server grants
   * machine access (`pincer serve --grant-machines`). Each is the daemon of that machine, proxied.
   */
  'machines': (_pincer_v1_MachineGrant__Output)[];
}
