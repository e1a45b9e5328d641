import { z } from "zod";
import { defineMetric, type OsworldMetric } from "../../metric.js";
import { hashDistance, phash } from "../../../pycompat/imagehash.js";
import type { PilImage } from "../../../pycompat/pilImage.js";
import { readVideoFrames } from "../../../pycompat/videoFrames.js";
import { fail, pass } from "../../../../evaluators/verdict.js";
import { filePath } from "../common/outcome.js";

/**
 * OSWorld's `compare_videos` (vlc.py): the videos' frames, as OpenCV decodes them, compared pair by
 * pair through imagehash's perceptual hash. Pincer decodes with ffmpeg on the controller (what
 * OpenCV's FFmpeg backend runs), see pycompat/videoFrames.ts.
 */

/** The perceptual hashes of a video's first `max` frames; a missing file has none (OpenCV opens nothing). */
async function frameHashes(path: string | undefined, max: number): Promise<Uint8Array[]> {
  const hashes: Uint8Array[] = [];
  if (path === undefined) return hashes;
  await readVideoFrames(path, max, (f) => {
    const img: PilImage = { width: f.width, height: f.height, channels: 3, data: f.data, mode: "RGB", transparency: false };
    hashes.push(phash(img));
  });
  return hashes;
}

/**
 * `compare_videos(video_path1, video_path2, max_frames_to_check=100, threshold=5)`: reads a frame of
 * each at a time, up to `max_frames_to_check`; when either video ends, 1 if both ended there, else
 * 0 (so the lengths must agree unless both are longer than the frames checked); a pair whose hashes
 * differ in more than `threshold` bits is a mismatch, and more than `threshold` mismatches is 0.
 */
const compareVideos = defineMetric({
  name: "compare_videos",
  options: z.strictObject({ max_frames_to_check: z.number().default(100), threshold: z.number().default(5) }),
  async run(result, expected, { max_frames_to_check: max, threshold }) {
    const limit = Math.max(0, Math.ceil(max));
    const [a, b] = await Promise.all([frameHashes(filePath(result), limit), frameHashes(filePath(expected), limit)]);
    let mismatches = 0;
    for (let i = 0; i < limit; i++) {
      if (i >= a.length || i >= b.length) {
        if (a.length === b.length) return pass(`both videos end after ${i} frame(s), and no more than ${threshold} of them differ`);
        const count = (n: number) => (n < limit ? `${n}` : `${limit} or more`);
        return fail(`the videos' lengths differ: the result has ${count(a.length)} frame(s), the expected video ${count(b.length)}`);
      }
      if (hashDistance(a[i]!, b[i]!) > threshold && ++mismatches > threshold) {
        return fail(`${mismatches} frames differ (perceptual hashes more than ${threshold} bits apart) by frame ${i + 1}`);
      }
    }
    return pass(`the first ${limit} frame(s) agree: ${mismatches} differ, no more than ${threshold}`);
  },
});

/** OSWorld's video metric. */
export const videoMetrics: OsworldMetric[] = [compareVideos];
