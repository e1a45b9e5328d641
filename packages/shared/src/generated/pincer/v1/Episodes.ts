// Original file: pincer/v1/episodes.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { CloseEpisodeRequest as _pincer_v1_CloseEpisodeRequest, CloseEpisodeRequest__Output as _pincer_v1_CloseEpisodeRequest__Output } from '../../pincer/v1/CloseEpisodeRequest.js';
import type { CloseEpisodeResponse as _pincer_v1_CloseEpisodeResponse, CloseEpisodeResponse__Output as _pincer_v1_CloseEpisodeResponse__Output } from '../../pincer/v1/CloseEpisodeResponse.js';
import type { EndRecordingRequest as _pincer_v1_EndRecordingRequest, EndRecordingRequest__Output as _pincer_v1_EndRecordingRequest__Output } from '../../pincer/v1/EndRecordingRequest.js';
import type { EndRecordingResponse as _pincer_v1_EndRecordingResponse, EndRecordingResponse__Output as _pincer_v1_EndRecordingResponse__Output } from '../../pincer/v1/EndRecordingResponse.js';
import type { EvaluateRequest as _pincer_v1_EvaluateRequest, EvaluateRequest__Output as _pincer_v1_EvaluateRequest__Output } from '../../pincer/v1/EvaluateRequest.js';
import type { EvaluateResponse as _pincer_v1_EvaluateResponse, EvaluateResponse__Output as _pincer_v1_EvaluateResponse__Output } from '../../pincer/v1/EvaluateResponse.js';
import type { ListTasksRequest as _pincer_v1_ListTasksRequest, ListTasksRequest__Output as _pincer_v1_ListTasksRequest__Output } from '../../pincer/v1/ListTasksRequest.js';
import type { ListTasksResponse as _pincer_v1_ListTasksResponse, ListTasksResponse__Output as _pincer_v1_ListTasksResponse__Output } from '../../pincer/v1/ListTasksResponse.js';
import type { ObserveRequest as _pincer_v1_ObserveRequest, ObserveRequest__Output as _pincer_v1_ObserveRequest__Output } from '../../pincer/v1/ObserveRequest.js';
import type { ObserveResponse as _pincer_v1_ObserveResponse, ObserveResponse__Output as _pincer_v1_ObserveResponse__Output } from '../../pincer/v1/ObserveResponse.js';
import type { RenewLeaseRequest as _pincer_v1_RenewLeaseRequest, RenewLeaseRequest__Output as _pincer_v1_RenewLeaseRequest__Output } from '../../pincer/v1/RenewLeaseRequest.js';
import type { RenewLeaseResponse as _pincer_v1_RenewLeaseResponse, RenewLeaseResponse__Output as _pincer_v1_RenewLeaseResponse__Output } from '../../pincer/v1/RenewLeaseResponse.js';
import type { StartEpisodeRequest as _pincer_v1_StartEpisodeRequest, StartEpisodeRequest__Output as _pincer_v1_StartEpisodeRequest__Output } from '../../pincer/v1/StartEpisodeRequest.js';
import type { StartEpisodeResponse as _pincer_v1_StartEpisodeResponse, StartEpisodeResponse__Output as _pincer_v1_StartEpisodeResponse__Output } from '../../pincer/v1/StartEpisodeResponse.js';
import type { StartGroupRequest as _pincer_v1_StartGroupRequest, StartGroupRequest__Output as _pincer_v1_StartGroupRequest__Output } from '../../pincer/v1/StartGroupRequest.js';
import type { StartGroupResponse as _pincer_v1_StartGroupResponse, StartGroupResponse__Output as _pincer_v1_StartGroupResponse__Output } from '../../pincer/v1/StartGroupResponse.js';
import type { StartRecordingRequest as _pincer_v1_StartRecordingRequest, StartRecordingRequest__Output as _pincer_v1_StartRecordingRequest__Output } from '../../pincer/v1/StartRecordingRequest.js';
import type { StartRecordingResponse as _pincer_v1_StartRecordingResponse, StartRecordingResponse__Output as _pincer_v1_StartRecordingResponse__Output } from '../../pincer/v1/StartRecordingResponse.js';
import type { StepRequest as _pincer_v1_StepRequest, StepRequest__Output as _pincer_v1_StepRequest__Output } from '../../pincer/v1/StepRequest.js';
import type { StepResponse as _pincer_v1_StepResponse, StepResponse__Output as _pincer_v1_StepResponse__Output } from '../../pincer/v1/StepResponse.js';

/**
 * Episodes of a dataset's tasks on clean machines, for agents and trainers in any language. Served
 * by the controller (`pincer serve DATASET`), not by the daemon. An episode is an attempt: it starts
 * on freshly reset machines from the server's pool, is stepped with actions, gets observations and
 * rewards (the task's evaluator so far), and writes an attempt folder in the server's run folder
 * when it closes.
 * 
 * Every episode holds a lease: any call naming the episode renews it, and so does RenewLease. When
 * a lease expires the server closes the episode and its machines go back to the pool. Beyond
 * loopback the server requires the metadata `authorization: Bearer <token>`.
 */
export interface EpisodesClient extends grpc.Client {
  /**
   * Ends the episode (final evaluation, teardown, attempt folder) and frees its machines.
   * Idempotent: closing a closed episode answers what the first close did.
   */
  CloseEpisode(argument: _pincer_v1_CloseEpisodeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_CloseEpisodeResponse__Output>): grpc.ClientUnaryCall;
  CloseEpisode(argument: _pincer_v1_CloseEpisodeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_CloseEpisodeResponse__Output>): grpc.ClientUnaryCall;
  CloseEpisode(argument: _pincer_v1_CloseEpisodeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_CloseEpisodeResponse__Output>): grpc.ClientUnaryCall;
  CloseEpisode(argument: _pincer_v1_CloseEpisodeRequest, callback: grpc.requestCallback<_pincer_v1_CloseEpisodeResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Ends the episode (final evaluation, teardown, attempt folder) and frees its machines.
   * Idempotent: closing a closed episode answers what the first close did.
   */
  closeEpisode(argument: _pincer_v1_CloseEpisodeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_CloseEpisodeResponse__Output>): grpc.ClientUnaryCall;
  closeEpisode(argument: _pincer_v1_CloseEpisodeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_CloseEpisodeResponse__Output>): grpc.ClientUnaryCall;
  closeEpisode(argument: _pincer_v1_CloseEpisodeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_CloseEpisodeResponse__Output>): grpc.ClientUnaryCall;
  closeEpisode(argument: _pincer_v1_CloseEpisodeRequest, callback: grpc.requestCallback<_pincer_v1_CloseEpisodeResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Stops the episode's recording, keeps each video in the attempt folder (recording-<env>.mp4,
   * named in summary.json's recordings) and streams the video of the environment asked. A
   * recording the episode's close stopped can still be fetched after the close. Each video is sent
   * once; when none is left to send (no StartRecording) it is FAILED_PRECONDITION.
   */
  EndRecording(argument: _pincer_v1_EndRecordingRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_pincer_v1_EndRecordingResponse__Output>;
  EndRecording(argument: _pincer_v1_EndRecordingRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_pincer_v1_EndRecordingResponse__Output>;
  /**
   * Stops the episode's recording, keeps each video in the attempt folder (recording-<env>.mp4,
   * named in summary.json's recordings) and streams the video of the environment asked. A
   * recording the episode's close stopped can still be fetched after the close. Each video is sent
   * once; when none is left to send (no StartRecording) it is FAILED_PRECONDITION.
   */
  endRecording(argument: _pincer_v1_EndRecordingRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_pincer_v1_EndRecordingResponse__Output>;
  endRecording(argument: _pincer_v1_EndRecordingRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_pincer_v1_EndRecordingResponse__Output>;
  
  /**
   * Runs the task's evaluator on the machines now. Success (or an evaluator error) ends the
   * episode, as after a step.
   */
  Evaluate(argument: _pincer_v1_EvaluateRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_EvaluateResponse__Output>): grpc.ClientUnaryCall;
  Evaluate(argument: _pincer_v1_EvaluateRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_EvaluateResponse__Output>): grpc.ClientUnaryCall;
  Evaluate(argument: _pincer_v1_EvaluateRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_EvaluateResponse__Output>): grpc.ClientUnaryCall;
  Evaluate(argument: _pincer_v1_EvaluateRequest, callback: grpc.requestCallback<_pincer_v1_EvaluateResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Runs the task's evaluator on the machines now. Success (or an evaluator error) ends the
   * episode, as after a step.
   */
  evaluate(argument: _pincer_v1_EvaluateRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_EvaluateResponse__Output>): grpc.ClientUnaryCall;
  evaluate(argument: _pincer_v1_EvaluateRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_EvaluateResponse__Output>): grpc.ClientUnaryCall;
  evaluate(argument: _pincer_v1_EvaluateRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_EvaluateResponse__Output>): grpc.ClientUnaryCall;
  evaluate(argument: _pincer_v1_EvaluateRequest, callback: grpc.requestCallback<_pincer_v1_EvaluateResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * The dataset's tasks.
   */
  ListTasks(argument: _pincer_v1_ListTasksRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_ListTasksResponse__Output>): grpc.ClientUnaryCall;
  ListTasks(argument: _pincer_v1_ListTasksRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_ListTasksResponse__Output>): grpc.ClientUnaryCall;
  ListTasks(argument: _pincer_v1_ListTasksRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_ListTasksResponse__Output>): grpc.ClientUnaryCall;
  ListTasks(argument: _pincer_v1_ListTasksRequest, callback: grpc.requestCallback<_pincer_v1_ListTasksResponse__Output>): grpc.ClientUnaryCall;
  /**
   * The dataset's tasks.
   */
  listTasks(argument: _pincer_v1_ListTasksRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_ListTasksResponse__Output>): grpc.ClientUnaryCall;
  listTasks(argument: _pincer_v1_ListTasksRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_ListTasksResponse__Output>): grpc.ClientUnaryCall;
  listTasks(argument: _pincer_v1_ListTasksRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_ListTasksResponse__Output>): grpc.ClientUnaryCall;
  listTasks(argument: _pincer_v1_ListTasksRequest, callback: grpc.requestCallback<_pincer_v1_ListTasksResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Observes the screens again, without acting.
   */
  Observe(argument: _pincer_v1_ObserveRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_ObserveResponse__Output>): grpc.ClientUnaryCall;
  Observe(argument: _pincer_v1_ObserveRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_ObserveResponse__Output>): grpc.ClientUnaryCall;
  Observe(argument: _pincer_v1_ObserveRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_ObserveResponse__Output>): grpc.ClientUnaryCall;
  Observe(argument: _pincer_v1_ObserveRequest, callback: grpc.requestCallback<_pincer_v1_ObserveResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Observes the screens again, without acting.
   */
  observe(argument: _pincer_v1_ObserveRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_ObserveResponse__Output>): grpc.ClientUnaryCall;
  observe(argument: _pincer_v1_ObserveRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_ObserveResponse__Output>): grpc.ClientUnaryCall;
  observe(argument: _pincer_v1_ObserveRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_ObserveResponse__Output>): grpc.ClientUnaryCall;
  observe(argument: _pincer_v1_ObserveRequest, callback: grpc.requestCallback<_pincer_v1_ObserveResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Extends the episode's lease without doing anything else.
   */
  RenewLease(argument: _pincer_v1_RenewLeaseRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_RenewLeaseResponse__Output>): grpc.ClientUnaryCall;
  RenewLease(argument: _pincer_v1_RenewLeaseRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_RenewLeaseResponse__Output>): grpc.ClientUnaryCall;
  RenewLease(argument: _pincer_v1_RenewLeaseRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_RenewLeaseResponse__Output>): grpc.ClientUnaryCall;
  RenewLease(argument: _pincer_v1_RenewLeaseRequest, callback: grpc.requestCallback<_pincer_v1_RenewLeaseResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Extends the episode's lease without doing anything else.
   */
  renewLease(argument: _pincer_v1_RenewLeaseRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_RenewLeaseResponse__Output>): grpc.ClientUnaryCall;
  renewLease(argument: _pincer_v1_RenewLeaseRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_RenewLeaseResponse__Output>): grpc.ClientUnaryCall;
  renewLease(argument: _pincer_v1_RenewLeaseRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_RenewLeaseResponse__Output>): grpc.ClientUnaryCall;
  renewLease(argument: _pincer_v1_RenewLeaseRequest, callback: grpc.requestCallback<_pincer_v1_RenewLeaseResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Starts an episode of a task on clean machines; waits for free machines in order, or fails with
   * RESOURCE_EXHAUSTED when fail_fast is set and none are free.
   */
  StartEpisode(argument: _pincer_v1_StartEpisodeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_StartEpisodeResponse__Output>): grpc.ClientUnaryCall;
  StartEpisode(argument: _pincer_v1_StartEpisodeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_StartEpisodeResponse__Output>): grpc.ClientUnaryCall;
  StartEpisode(argument: _pincer_v1_StartEpisodeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_StartEpisodeResponse__Output>): grpc.ClientUnaryCall;
  StartEpisode(argument: _pincer_v1_StartEpisodeRequest, callback: grpc.requestCallback<_pincer_v1_StartEpisodeResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Starts an episode of a task on clean machines; waits for free machines in order, or fails with
   * RESOURCE_EXHAUSTED when fail_fast is set and none are free.
   */
  startEpisode(argument: _pincer_v1_StartEpisodeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_StartEpisodeResponse__Output>): grpc.ClientUnaryCall;
  startEpisode(argument: _pincer_v1_StartEpisodeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_StartEpisodeResponse__Output>): grpc.ClientUnaryCall;
  startEpisode(argument: _pincer_v1_StartEpisodeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_StartEpisodeResponse__Output>): grpc.ClientUnaryCall;
  startEpisode(argument: _pincer_v1_StartEpisodeRequest, callback: grpc.requestCallback<_pincer_v1_StartEpisodeResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Starts `size` episodes of one task (a group, for group-relative training or best-of-N), each on
   * clean machines, and sends each episode as it starts: as many at once as there are free slots,
   * the rest as slots free up (close episodes of the group, or others, to free them), in the order
   * starts asked. With `together` (or fail_fast), all start at once or none. Cancelling the stream
   * cancels the starts that wait; episodes already sent stay open on their leases.
   */
  StartGroup(argument: _pincer_v1_StartGroupRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_pincer_v1_StartGroupResponse__Output>;
  StartGroup(argument: _pincer_v1_StartGroupRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_pincer_v1_StartGroupResponse__Output>;
  /**
   * Starts `size` episodes of one task (a group, for group-relative training or best-of-N), each on
   * clean machines, and sends each episode as it starts: as many at once as there are free slots,
   * the rest as slots free up (close episodes of the group, or others, to free them), in the order
   * starts asked. With `together` (or fail_fast), all start at once or none. Cancelling the stream
   * cancels the starts that wait; episodes already sent stay open on their leases.
   */
  startGroup(argument: _pincer_v1_StartGroupRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_pincer_v1_StartGroupResponse__Output>;
  startGroup(argument: _pincer_v1_StartGroupRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_pincer_v1_StartGroupResponse__Output>;
  
  /**
   * Records the screens of the episode's environments (all, or the one named) from now on, as
   * `pincer run --record` does: ffmpeg on each machine, 5 frames a second, H.264 in MP4. An episode
   * records once: a start while it records, or after its recording ended, is FAILED_PRECONDITION.
   */
  StartRecording(argument: _pincer_v1_StartRecordingRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_StartRecordingResponse__Output>): grpc.ClientUnaryCall;
  StartRecording(argument: _pincer_v1_StartRecordingRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_StartRecordingResponse__Output>): grpc.ClientUnaryCall;
  StartRecording(argument: _pincer_v1_StartRecordingRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_StartRecordingResponse__Output>): grpc.ClientUnaryCall;
  StartRecording(argument: _pincer_v1_StartRecordingRequest, callback: grpc.requestCallback<_pincer_v1_StartRecordingResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Records the screens of the episode's environments (all, or the one named) from now on, as
   * `pincer run --record` does: ffmpeg on each machine, 5 frames a second, H.264 in MP4. An episode
   * records once: a start while it records, or after its recording ended, is FAILED_PRECONDITION.
   */
  startRecording(argument: _pincer_v1_StartRecordingRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_StartRecordingResponse__Output>): grpc.ClientUnaryCall;
  startRecording(argument: _pincer_v1_StartRecordingRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_StartRecordingResponse__Output>): grpc.ClientUnaryCall;
  startRecording(argument: _pincer_v1_StartRecordingRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_StartRecordingResponse__Output>): grpc.ClientUnaryCall;
  startRecording(argument: _pincer_v1_StartRecordingRequest, callback: grpc.requestCallback<_pincer_v1_StartRecordingResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Runs one action and observes the screens after it, with the reward so far.
   */
  Step(argument: _pincer_v1_StepRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_StepResponse__Output>): grpc.ClientUnaryCall;
  Step(argument: _pincer_v1_StepRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_StepResponse__Output>): grpc.ClientUnaryCall;
  Step(argument: _pincer_v1_StepRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_StepResponse__Output>): grpc.ClientUnaryCall;
  Step(argument: _pincer_v1_StepRequest, callback: grpc.requestCallback<_pincer_v1_StepResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Runs one action and observes the screens after it, with the reward so far.
   */
  step(argument: _pincer_v1_StepRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_StepResponse__Output>): grpc.ClientUnaryCall;
  step(argument: _pincer_v1_StepRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_StepResponse__Output>): grpc.ClientUnaryCall;
  step(argument: _pincer_v1_StepRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_StepResponse__Output>): grpc.ClientUnaryCall;
  step(argument: _pincer_v1_StepRequest, callback: grpc.requestCallback<_pincer_v1_StepResponse__Output>): grpc.ClientUnaryCall;
  
}

/**
 * Episodes of a dataset's tasks on clean machines, for agents and trainers in any language. Served
 * by the controller (`pincer serve DATASET`), not by the daemon. An episode is an attempt: it starts
 * on freshly reset machines from the server's pool, is stepped with actions, gets observations and
 * rewards (the task's evaluator so far), and writes an attempt folder in the server's run folder
 * when it closes.
 * 
 * Every episode holds a lease: any call naming the episode renews it, and so does RenewLease. When
 * a lease expires the server closes the episode and its machines go back to the pool. Beyond
 * loopback the server requires the metadata `authorization: Bearer <token>`.
 */
export interface EpisodesHandlers extends grpc.UntypedServiceImplementation {
  /**
   * Ends the episode (final evaluation, teardown, attempt folder) and frees its machines.
   * Idempotent: closing a closed episode answers what the first close did.
   */
  CloseEpisode: grpc.handleUnaryCall<_pincer_v1_CloseEpisodeRequest__Output, _pincer_v1_CloseEpisodeResponse>;
  
  /**
   * Stops the episode's recording, keeps each video in the attempt folder (recording-<env>.mp4,
   * named in summary.json's recordings) and streams the video of the environment asked. A
   * recording the episode's close stopped can still be fetched after the close. Each video is sent
   * once; when none is left to send (no StartRecording) it is FAILED_PRECONDITION.
   */
  EndRecording: grpc.handleServerStreamingCall<_pincer_v1_EndRecordingRequest__Output, _pincer_v1_EndRecordingResponse>;
  
  /**
   * Runs the task's evaluator on the machines now. Success (or an evaluator error) ends the
   * episode, as after a step.
   */
  Evaluate: grpc.handleUnaryCall<_pincer_v1_EvaluateRequest__Output, _pincer_v1_EvaluateResponse>;
  
  /**
   * The dataset's tasks.
   */
  ListTasks: grpc.handleUnaryCall<_pincer_v1_ListTasksRequest__Output, _pincer_v1_ListTasksResponse>;
  
  /**
   * Observes the screens again, without acting.
   */
  Observe: grpc.handleUnaryCall<_pincer_v1_ObserveRequest__Output, _pincer_v1_ObserveResponse>;
  
  /**
   * Extends the episode's lease without doing anything else.
   */
  RenewLease: grpc.handleUnaryCall<_pincer_v1_RenewLeaseRequest__Output, _pincer_v1_RenewLeaseResponse>;
  
  /**
   * Starts an episode of a task on clean machines; waits for free machines in order, or fails with
   * RESOURCE_EXHAUSTED when fail_fast is set and none are free.
   */
  StartEpisode: grpc.handleUnaryCall<_pincer_v1_StartEpisodeRequest__Output, _pincer_v1_StartEpisodeResponse>;
  
  /**
   * Starts `size` episodes of one task (a group, for group-relative training or best-of-N), each on
   * clean machines, and sends each episode as it starts: as many at once as there are free slots,
   * the rest as slots free up (close episodes of the group, or others, to free them), in the order
   * starts asked. With `together` (or fail_fast), all start at once or none. Cancelling the stream
   * cancels the starts that wait; episodes already sent stay open on their leases.
   */
  StartGroup: grpc.handleServerStreamingCall<_pincer_v1_StartGroupRequest__Output, _pincer_v1_StartGroupResponse>;
  
  /**
   * Records the screens of the episode's environments (all, or the one named) from now on, as
   * `pincer run --record` does: ffmpeg on each machine, 5 frames a second, H.264 in MP4. An episode
   * records once: a start while it records, or after its recording ended, is FAILED_PRECONDITION.
   */
  StartRecording: grpc.handleUnaryCall<_pincer_v1_StartRecordingRequest__Output, _pincer_v1_StartRecordingResponse>;
  
  /**
   * Runs one action and observes the screens after it, with the reward so far.
   */
  Step: grpc.handleUnaryCall<_pincer_v1_StepRequest__Output, _pincer_v1_StepResponse>;
  
}

export interface EpisodesDefinition extends grpc.ServiceDefinition {
  CloseEpisode: MethodDefinition<_pincer_v1_CloseEpisodeRequest, _pincer_v1_CloseEpisodeResponse, _pincer_v1_CloseEpisodeRequest__Output, _pincer_v1_CloseEpisodeResponse__Output>
  EndRecording: MethodDefinition<_pincer_v1_EndRecordingRequest, _pincer_v1_EndRecordingResponse, _pincer_v1_EndRecordingRequest__Output, _pincer_v1_EndRecordingResponse__Output>
  Evaluate: MethodDefinition<_pincer_v1_EvaluateRequest, _pincer_v1_EvaluateResponse, _pincer_v1_EvaluateRequest__Output, _pincer_v1_EvaluateResponse__Output>
  ListTasks: MethodDefinition<_pincer_v1_ListTasksRequest, _pincer_v1_ListTasksResponse, _pincer_v1_ListTasksRequest__Output, _pincer_v1_ListTasksResponse__Output>
  Observe: MethodDefinition<_pincer_v1_ObserveRequest, _pincer_v1_ObserveResponse, _pincer_v1_ObserveRequest__Output, _pincer_v1_ObserveResponse__Output>
  RenewLease: MethodDefinition<_pincer_v1_RenewLeaseRequest, _pincer_v1_RenewLeaseResponse, _pincer_v1_RenewLeaseRequest__Output, _pincer_v1_RenewLeaseResponse__Output>
  StartEpisode: MethodDefinition<_pincer_v1_StartEpisodeRequest, _pincer_v1_StartEpisodeResponse, _pincer_v1_StartEpisodeRequest__Output, _pincer_v1_StartEpisodeResponse__Output>
  StartGroup: MethodDefinition<_pincer_v1_StartGroupRequest, _pincer_v1_StartGroupResponse, _pincer_v1_StartGroupRequest__Output, _pincer_v1_StartGroupResponse__Output>
  StartRecording: MethodDefinition<_pincer_v1_StartRecordingRequest, _pincer_v1_StartRecordingResponse, _pincer_v1_StartRecordingRequest__Output, _pincer_v1_StartRecordingResponse__Output>
  Step: MethodDefinition<_pincer_v1_StepRequest, _pincer_v1_StepResponse, _pincer_v1_StepRequest__Output, _pincer_v1_StepResponse__Output>
}
