import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type ServedEpisodes, serveEpisodes } from "../fixtures/servedEpisodes.js";

// `pincer serve`'s screen recordings (what OSWorld's controller.start_recording / end_recording
// ask for): ffmpeg on the local machine records from StartRecording; EndRecording streams the MP4
// the attempt folder keeps; a recording the close stops is kept, and can still be fetched.

type Any = any;
const runCommand = (command: string) => ({ toolCall: { name: "desktop__run_command", argumentsJson: JSON.stringify({ command }) } });
const move = (x: number, y: number) => ({ pyautogui: `pyautogui.moveTo(${x}, ${y})` });

let served: ServedEpisodes | undefined;
beforeAll(async () => {
  served = await serveEpisodes("examples", ["--provider", "local", "--task", "write-greeting"]);
}, 120_000);
afterAll(async () => {
  await served?.close();
});

/** The status a streaming call ends with ("OK" when it succeeds), and its message. */
async function streamStatus(method: string, req: Record<string, unknown>): Promise<{ code: string; details: string }> {
  try {
    await served!.stream(method, req);
    return { code: "OK", details: "" };
  } catch (err) {
    const e = err as grpc.ServiceError;
    return { code: grpc.status[e.code]!, details: e.details };
  }
}

/** The video an EndRecording stream carried, after checking its first message says what it is. */
function videoOf(messages: Any[]): Buffer {
  expect(messages.length).toBeGreaterThan(0);
  expect(messages[0]).toMatchObject({ mimeType: "video/mp4", environment: "desktop" });
  const video = Buffer.concat(messages.map((m) => m.chunk as Buffer));
  expect(Number(messages[0].size)).toBe(video.length);
  expect(messages.slice(1).every((m) => m.mimeType === "" && Number(m.size) === 0)).toBe(true);
  // An MP4 opens with its ftyp box.
  expect(video.subarray(4, 8).toString("latin1")).toBe("ftyp");
  expect(video.length).toBeGreaterThan(1024);
  return video;
}

function summaryOf(attemptDir: string): Any {
  return JSON.parse(readFileSync(join(attemptDir, "summary.json"), "utf8"));
}

describe("pincer serve --provider local: screen recordings of an episode", () => {
  test("StartRecording, steps, EndRecording streams the MP4 the attempt folder keeps; misuse is FAILED_PRECONDITION or INVALID_ARGUMENT", async () => {
    const { call, statusOf } = served!;
    const ep = await call("StartEpisode", { taskId: "write-greeting" });
    const episodeId = ep.episodeId;
    try {
      expect(ep.done, ep.endReason).toBe(false);
      const notYet = await streamStatus("EndRecording", { episodeId });
      expect(notYet).toMatchObject({ code: "FAILED_PRECONDITION" });
      expect(notYet.details).toContain("StartRecording");
      expect((await statusOf("StartRecording", { episodeId, environment: "server" })).code).toBe("INVALID_ARGUMENT");

      expect(await call("StartRecording", { episodeId })).toEqual({ environments: ["desktop"] });
      const again = await statusOf("StartRecording", { episodeId });
      expect(again).toMatchObject({ code: "FAILED_PRECONDITION" });
      expect(again.details).toContain("recording already");
      expect(await call("Step", { episodeId, action: move(600, 400) })).toMatchObject({ error: "", done: false });
      expect(await call("Step", { episodeId, action: runCommand("sleep 0.5") })).toMatchObject({ error: "", done: false });
      expect(await call("Step", { episodeId, action: move(200, 100) })).toMatchObject({ error: "", done: false });

      const video = videoOf(await served!.stream("EndRecording", { episodeId }));
      // Sent once; and an episode records once.
      expect((await streamStatus("EndRecording", { episodeId })).code).toBe("FAILED_PRECONDITION");
      expect((await statusOf("StartRecording", { episodeId })).details).toContain("recorded already");

      const closed = await call("CloseEpisode", { episodeId });
      expect(readFileSync(join(closed.attemptDir, "recording-desktop.mp4")).equals(video)).toBe(true);
      expect(summaryOf(closed.attemptDir).results.recordings).toEqual({ desktop: { file: "recording-desktop.mp4" } });
    } finally {
      await call("CloseEpisode", { episodeId }).catch(() => undefined);
    }
  }, 120_000);

  test("a recording still going at CloseEpisode is kept in the attempt folder, and EndRecording still sends it once", async () => {
    const { call } = served!;
    const ep = await call("StartEpisode", { taskId: "write-greeting" });
    const episodeId = ep.episodeId;
    let closed: Any;
    try {
      await call("StartRecording", { episodeId, environment: "desktop" });
      expect(await call("Step", { episodeId, action: move(300, 300) })).toMatchObject({ error: "", done: false });
      expect(await call("Step", { episodeId, action: runCommand("sleep 0.5") })).toMatchObject({ error: "", done: false });
    } finally {
      closed = await call("CloseEpisode", { episodeId });
    }
    const kept = readFileSync(join(closed.attemptDir, "recording-desktop.mp4"));
    expect(summaryOf(closed.attemptDir).results.recordings).toEqual({ desktop: { file: "recording-desktop.mp4" } });
    // OSWorld's loop evaluates (which closes an ended episode) before it ends the recording.
    expect(videoOf(await served!.stream("EndRecording", { episodeId, environment: "desktop" })).equals(kept)).toBe(true);
    expect((await streamStatus("EndRecording", { episodeId })).code).toBe("FAILED_PRECONDITION");
  }, 120_000);
});
