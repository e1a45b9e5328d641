import { spawn } from "node:child_process";

/** librosa's default rate. */
export const LIBROSA_SR = 22050;

/**
 * `librosa.load(path)` with its defaults (sr=22050, mono, float32): the file decoded by ffmpeg on the
 * controller (Debian's `ffmpeg` package; librosa reads through libsndfile, or audioread where
 * libsndfile cannot), its channels averaged in float32 as `np.mean(y, axis=0)`, then, when its
 * rate is not 22,050 Hz, resampled by libsoxr at soxr's 'HQ' quality (ffmpeg's `aresample` with
 * `resampler=soxr`, where librosa calls python-soxr) and cut or zero-padded to ⌈n·22050/rate⌉
 * samples as `librosa.resample` does. Null when ffmpeg cannot open or decode the file (librosa
 * raises).
 */
export async function librosaLoad(path: string): Promise<Float32Array | null> {
  const wav = await runFfmpeg(["-nostdin", "-v", "error", "-i", `file:${path}`, "-map", "0:a:0", "-c:a", "pcm_f32le", "-f", "wav", "pipe:1"]);
  if (wav === null) return null;
  const parsed = parseFloatWav(wav);
  if (parsed === null) return null;
  const mono = toMono(parsed.samples, parsed.channels);
  if (parsed.rate === LIBROSA_SR || mono.length === 0) return mono;
  const raw = Buffer.from(mono.buffer, mono.byteOffset, mono.byteLength);
  const args = ["-nostdin", "-v", "error", "-f", "f32le", "-ar", String(parsed.rate), "-ac", "1", "-i", "pipe:0"];
  args.push("-af", `aresample=${LIBROSA_SR}:resampler=soxr:precision=20`, "-f", "f32le", "-c:a", "pcm_f32le", "pipe:1");
  const out = await runFfmpeg(args, raw);
  if (out === null) throw new Error("ffmpeg could not resample the audio (it needs libsoxr)");
  const resampled = new Float32Array(out.buffer.slice(out.byteOffset, out.byteOffset + (out.length - (out.length % 4))));
  // librosa.util.fix_length(y_hat, size=ceil(n * ratio))
  const size = Math.ceil(mono.length * (LIBROSA_SR / parsed.rate));
  const fixed = new Float32Array(size);
  fixed.set(resampled.subarray(0, size));
  return fixed;
}

/** The channels' mean per sample, in float32 (numpy adds the channels in order, then divides). */
function toMono(samples: Float32Array, channels: number): Float32Array {
  if (channels === 1) return samples;
  const n = Math.floor(samples.length / channels);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    let s = samples[i * channels]!;
    for (let c = 1; c < channels; c++) s = Math.fround(s + samples[i * channels + c]!);
    out[i] = Math.fround(s / channels);
  }
  return out;
}

/** The channels, rate and float32 samples of ffmpeg's WAV output (its sizes are unset on a pipe: the data runs to the end). */
function parseFloatWav(buf: Buffer): { channels: number; rate: number; samples: Float32Array } | null {
  if (buf.length < 12 || buf.toString("latin1", 0, 4) !== "RIFF" || buf.toString("latin1", 8, 12) !== "WAVE") return null;
  let pos = 12;
  let channels = 0;
  let rate = 0;
  while (pos + 8 <= buf.length) {
    const id = buf.toString("latin1", pos, pos + 4);
    const size = buf.readUInt32LE(pos + 4);
    if (id === "fmt ") {
      channels = buf.readUInt16LE(pos + 10);
      rate = buf.readUInt32LE(pos + 12);
    } else if (id === "data") {
      if (channels === 0) return null;
      const start = pos + 8;
      const end = start + Math.floor((buf.length - start) / (4 * channels)) * 4 * channels;
      return { channels, rate, samples: new Float32Array(buf.buffer.slice(buf.byteOffset + start, buf.byteOffset + end)) };
    }
    pos += 8 + size + (size % 2);
  }
  return null;
}

/** ffmpeg's standard output, or null when it fails (a file it cannot open or decode). */
async function runFfmpeg(args: string[], input?: Buffer): Promise<Buffer | null> {
  const child = spawn("ffmpeg", args, { stdio: [input === undefined ? "ignore" : "pipe", "pipe", "ignore"] });
  const chunks: Buffer[] = [];
  child.stdout?.on("data", (d: Buffer) => chunks.push(d));
  if (input !== undefined && child.stdin) {
    child.stdin.on("error", () => {});
    child.stdin.end(input);
  }
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on("error", (err: NodeJS.ErrnoException) =>
      reject(err.code === "ENOENT" ? new Error("ffmpeg is needed on the controller to decode audio (Debian: apt-get install ffmpeg)") : err),
    );
    child.on("close", (c) => resolve(c));
  });
  return code === 0 ? Buffer.concat(chunks) : null;
}
