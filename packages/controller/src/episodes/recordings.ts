import { open } from "node:fs/promises";
import { join } from "node:path";
import { FailedPreconditionError, InvalidArgumentError } from "@pincer/shared";
import type { Attempt } from "../runner/attempt.js";
import type { RecordingResults } from "../runner/recording.js";
import type { Res } from "./wire.js";

/** Bytes of video per EndRecording message. */
export const RECORDING_CHUNK_BYTES = 1024 * 1024;

/** One environment's video to send: its file in the attempt folder. */
export interface EpisodeVideo {
  environment: string;
  path: string;
}

/**
 * The screen recording of one episode: StartRecording starts it on the episode's attempt (one
 * recording per episode), EndRecording or the episode's close stops it (the videos stay in the
 * attempt folder, named in summary.json), and EndRecording sends each environment's video once,
 * after the close too.
 */
export class EpisodeRecording {
  readonly #attempt: Attempt;
  /** The task's environments, in order. */
  readonly #names: readonly string[];
  /** The environments recorded, in the task's order; empty until the start. */
  #recorded: string[] = [];
  #running = false;
  /** The stopped recording's videos (or why there is none) not sent yet. */
  readonly #unsent = new Map<string, RecordingResults[string]>();

  constructor(attempt: Attempt, names: readonly string[]) {
    this.#attempt = attempt;
    this.#names = names;
  }

  #known(environment: string): string {
    if (this.#names.includes(environment)) return environment;
    throw InvalidArgumentError.forField("environment", `the episode has no environment ${JSON.stringify(environment)}; it has ${this.#names.join(", ")}`);
  }

  /** Starts recording `environment`, or every environment when it is empty. */
  async start(environment: string): Promise<Res<"StartRecording">> {
    const names = environment ? [this.#known(environment)] : [...this.#names];
    if (this.#recorded.length > 0) {
      const state = this.#running ? "is recording already" : "has recorded already (an episode records once; start another episode to record again)";
      throw new FailedPreconditionError(`the episode ${state}`);
    }
    await this.#attempt.startRecording(names);
    this.#recorded = names;
    this.#running = true;
    return { environments: names };
  }

  /** Stops the recording if it runs (before the episode's close, or by it); the videos are then ready to send. */
  async stop(): Promise<void> {
    if (!this.#running) return;
    this.#running = false;
    const results = (await this.#attempt.endRecording()) ?? {};
    for (const name of this.#recorded) this.#unsent.set(name, results[name] ?? { error: "the recording did not start" });
  }

  /** Stops the recording and hands out `environment`'s video (default: the first recorded), once. */
  async end(environment: string): Promise<EpisodeVideo> {
    const name = environment ? this.#known(environment) : this.#recorded[0];
    if (!name || (!this.#running && this.#unsent.size === 0)) {
      const why = this.#recorded.length > 0 ? "its recording ended and its videos were sent" : "call StartRecording first";
      throw new FailedPreconditionError(`the episode is not recording: ${why}`);
    }
    if (!this.#recorded.includes(name)) throw new FailedPreconditionError(`the episode records ${this.#recorded.join(", ")}, not ${name}`);
    await this.stop();
    const video = this.#unsent.get(name);
    if (!video) throw new FailedPreconditionError(`the video of ${name} was sent already (each video is sent once)`);
    this.#unsent.delete(name);
    if ("error" in video) throw new FailedPreconditionError(`recording ${name} failed: ${video.error}`);
    return { environment: name, path: join(this.#attempt.dir, video.file) };
  }
}

/**
 * Sends the video in messages of {@link RECORDING_CHUNK_BYTES}, the first with its media type,
 * size and environment; stops early when `send` says the client is gone.
 */
export async function sendVideo(video: EpisodeVideo, send: (res: Res<"EndRecording">) => Promise<boolean>): Promise<void> {
  const fh = await open(video.path, "r");
  try {
    const { size } = await fh.stat();
    let offset = 0;
    do {
      const chunk = Buffer.allocUnsafe(Math.min(RECORDING_CHUNK_BYTES, size - offset));
      const { bytesRead } = await fh.read(chunk, 0, chunk.length, offset);
      const head = offset === 0 ? { mimeType: "video/mp4", size, environment: video.environment } : {};
      offset += bytesRead;
      if (!(await send({ chunk: chunk.subarray(0, bytesRead), ...head }))) return;
      // A file cut short while it is read ends the stream where it ends.
      if (bytesRead === 0) return;
    } while (offset < size);
  } finally {
    await fh.close();
  }
}
