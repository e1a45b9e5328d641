import { spawn } from "node:child_process";

/** One decoded frame: 8-bit RGB samples, row by row. */
export interface RgbFrame {
  width: number;
  height: number;
  data: Uint8Array;
}

/**
 * The first `max` frames of a video's first video stream as OpenCV's `VideoCapture.read()` gives them
 * (its FFmpeg backend: every decoded frame in presentation order, rotated as the stream's
 * display matrix says, converted to 8-bit colour by swscale), decoded by ffmpeg on the controller
 * (Debian's `ffmpeg` package) and handed to `onFrame` one by one. Returns how many there were: fewer
 * than `max` when the video ends, 0 when the file is not a video OpenCV or ffmpeg can open.
 */
export async function readVideoFrames(path: string, max: number, onFrame: (f: RgbFrame) => void): Promise<number> {
  if (max <= 0) return 0;
  const args = ["-nostdin", "-v", "error", "-i", `file:${path}`, "-map", "0:v:0", "-frames:v", String(max), "-vsync", "passthrough"];
  args.push("-f", "image2pipe", "-c:v", "ppm", "-pix_fmt", "rgb24", "pipe:1");
  const child = spawn("ffmpeg", args, { stdio: ["ignore", "pipe", "ignore"] });
  const reader = new PpmReader(onFrame);
  let failure: unknown;
  child.stdout.on("data", (d: Buffer) => {
    if (failure !== undefined) return;
    try {
      reader.push(d);
    } catch (err) {
      failure = err;
      child.kill();
    }
  });
  await new Promise<void>((resolve, reject) => {
    child.on("error", (err: NodeJS.ErrnoException) =>
      reject(err.code === "ENOENT" ? new Error("ffmpeg is needed on the controller to decode videos (Debian: apt-get install ffmpeg)") : err),
    );
    // A file ffmpeg cannot open or decode gives no frames, as OpenCV's read() then returns False.
    child.on("close", () => (failure === undefined ? resolve() : reject(failure)));
  });
  return reader.count;
}

/** Splits ffmpeg's stream of PPM (P6, maxval 255) frames, keeping the chunks of a frame until it is whole. */
class PpmReader {
  count = 0;
  private chunks: Buffer[] = [];
  private length = 0;
  private need = 0;
  constructor(private readonly onFrame: (f: RgbFrame) => void) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.length += chunk.length;
    while (this.length > 0 && this.length >= this.need) {
      const buf = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
      this.chunks = [buf];
      const parsed = nextPpm(buf);
      if (parsed === null || "size" in parsed) {
        // Wait for the rest of the header, or of the frame.
        this.need = parsed === null ? this.length + 1 : parsed.size;
        return;
      }
      this.count++;
      this.onFrame(parsed.frame);
      const rest = buf.subarray(parsed.end);
      this.chunks = rest.length ? [rest] : [];
      this.length = rest.length;
      this.need = 0;
    }
  }
}

/** A PPM frame at the start of `buf` and where it ends; its whole size when only its header is there; null before that. */
function nextPpm(buf: Buffer): { frame: RgbFrame; end: number } | { size: number } | null {
  const fields: number[] = [];
  let i = 2;
  if (buf.length < 2) return null;
  if (buf[0] !== 0x50 || buf[1] !== 0x36) throw new Error("ffmpeg's output is not PPM frames");
  while (fields.length < 3) {
    while (i < buf.length && /\s/.test(String.fromCharCode(buf[i]!))) i++;
    let j = i;
    while (j < buf.length && buf[j]! >= 0x30 && buf[j]! <= 0x39) j++;
    if (j >= buf.length) return null;
    fields.push(Number(buf.toString("latin1", i, j)));
    i = j;
  }
  const [width, height, maxval] = fields as [number, number, number];
  if (maxval !== 255) throw new Error(`ffmpeg gave ${maxval}-valued PPM frames`);
  const start = i + 1;
  const end = start + width * height * 3;
  if (buf.length < end) return { size: end };
  return { frame: { width, height, data: new Uint8Array(buf.subarray(start, end)) }, end };
}
