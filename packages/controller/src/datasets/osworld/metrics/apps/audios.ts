import { z } from "zod";
import { defineMetric, type OsworldMetric } from "../../metric.js";
import { librosaLoad } from "../../../pycompat/audioLoad.js";
import { fastdtw, type Vec } from "../../../pycompat/fastdtw.js";
import { librosaMfcc, normalizeRows } from "../../../pycompat/mfcc.js";
import { fail, pass } from "../../../../evaluators/verdict.js";
import { filePath } from "../common/outcome.js";

/**
 * OSWorld's `compare_audios(audio_path_1, audio_path_2)` (vlc.py): both files loaded as librosa.load
 * does (22,050 Hz, mono, float32; see pycompat/audioLoad.ts), their MFCCs (pycompat/mfcc.ts) each
 * normalised row by row by the largest magnitude, aligned by fastdtw's pure-Python implementation
 * (pycompat/fastdtw.ts) with scipy's cosine distance between frames, and scored exp(−distance /
 * path length). A missing path scores 0; two files that are both empty or unreadable score 1, one
 * of them 0.
 */
const compareAudios = defineMetric({
  name: "compare_audios",
  options: z.strictObject({}),
  async run(result, expected) {
    const p1 = filePath(result);
    const p2 = filePath(expected);
    if (p1 === undefined || p2 === undefined) return fail(`no ${p1 === undefined ? "result" : "expected"} audio file`);
    const [y1, y2] = await Promise.all([librosaLoad(p1), librosaLoad(p2)]);
    const bad1 = y1 === null || y1.length === 0;
    const bad2 = y2 === null || y2.length === 0;
    if (bad1 && bad2) return pass("both audio files are empty or unreadable, which OSWorld takes as the same");
    if (bad1 || bad2) return fail(`the ${bad1 ? "result" : "expected"} audio file is empty or unreadable`);
    const score = audioSimilarity(y1!, y2!);
    const text = `MFCC similarity ${score.toFixed(6)} (exp of minus the mean cosine distance along the DTW path)`;
    return score >= 1 ? pass(text) : fail(text, score);
  },
});

/** exp(−d/len(path)) of fastdtw's alignment of the two signals' normalised MFCC frames. */
export function audioSimilarity(y1: Float32Array, y2: Float32Array): number {
  const frames = (y: Float32Array): Vec[] => {
    const { coefficients, frames: n } = librosaMfcc(y, 22050);
    const rows = normalizeRows(coefficients);
    // mfcc.T, cast to float64 by fastdtw
    return Array.from({ length: n }, (_, t) => Float64Array.from(rows, (row) => row[t]!));
  };
  const { distance, path } = fastdtw(frames(y1), frames(y2), scipyCosine);
  const normalized = path.length === 0 ? Number.POSITIVE_INFINITY : distance / path.length;
  return Math.exp(-normalized);
}

/**
 * scipy 1.10's `spatial.distance.cosine(u, v)`: |1 − mean(u·v) / √(mean(u²)·mean(v²))|, each mean
 * numpy's pairwise sum divided by the length.
 */
export function scipyCosine(u: Vec, v: Vec): number {
  const n = u.length;
  const uv = new Float64Array(n);
  const uu = new Float64Array(n);
  const vv = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    uv[i] = u[i]! * v[i]!;
    uu[i] = u[i]! * u[i]!;
    vv[i] = v[i]! * v[i]!;
  }
  const mean = (a: Float64Array) => npSum(a) / n;
  return Math.abs(1.0 - mean(uv) / Math.sqrt(mean(uu) * mean(vv)));
}

/** numpy's float64 `add.reduce` of a contiguous array (pairwise summation, 8 accumulators, blocks of 128). */
function npSum(a: Float64Array, start = 0, n = a.length): number {
  if (n < 8) {
    let s = -0.0;
    for (let i = 0; i < n; i++) s += a[start + i]!;
    return s;
  }
  if (n <= 128) {
    const r = Array.from({ length: 8 }, (_, j) => a[start + j]!);
    let i = 8;
    for (; i < n - (n % 8); i += 8) for (let j = 0; j < 8; j++) r[j]! += a[start + i + j]!;
    let s = r[0]! + r[1]! + (r[2]! + r[3]!) + (r[4]! + r[5]! + (r[6]! + r[7]!));
    for (; i < n; i++) s += a[start + i]!;
    return s;
  }
  let n2 = Math.floor(n / 2);
  n2 -= n2 % 8;
  return npSum(a, start, n2) + npSum(a, start + n2, n - n2);
}

/** OSWorld's audio metric. */
export const audioMetrics: OsworldMetric[] = [compareAudios];
