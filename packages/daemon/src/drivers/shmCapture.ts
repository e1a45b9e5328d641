import type { XConnection } from "./xConnection.js";

interface ShmSegment {
  buffer: Buffer;
  size: number;
  getImage(
    drawable: number,
    x: number,
    y: number,
    w: number,
    h: number,
    planeMask: number,
    format: number,
    offset: number,
    cb: (err: Error | null, rep: { depth: number; size: number }) => void,
  ): void;
  detach(cb?: () => void): void;
}

const Z_PIXMAP = 2;

interface ShmExtension {
  createSegment(size: number, cb: (err: Error | null, seg: ShmSegment) => void): void;
}

/** A segment of `size` bytes attached to the X server, or undefined when that fails. */
function newSegment(ext: ShmExtension, size: number): Promise<ShmSegment | undefined> {
  return new Promise((resolve) => ext.createSegment(size, (err, seg) => resolve(err ? undefined : seg)));
}

/**
 * Screen capture through the MIT-SHM extension on the daemon's X connection: the X server writes
 * the pixels into a shared /dev/shm segment instead of sending them over the socket. Measured here
 * at about a quarter of libnut's XGetImage time for a 1920x1080 screen. One segment serves all
 * captures, so captures run one at a time. The x11 package copies each capture out of the segment
 * into a buffer of the screen's size (8 MiB at 1920x1080); `release` gives both back while the
 * daemon is idle, and the next capture attaches a new segment.
 */
export class ShmCapture {
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly x: XConnection,
    private readonly ext: ShmExtension,
    private readonly size: number,
    private segment: ShmSegment | undefined,
  ) {}

  /** Sets up a segment for the whole screen, or returns undefined when MIT-SHM is not usable here. */
  static async create(x: XConnection): Promise<ShmCapture | undefined> {
    const ext = await x.requireExtension("shm").catch(() => undefined);
    if (!ext || typeof ext.createSegment !== "function") return undefined;
    const size = x.screenWidth * x.screenHeight * 4;
    const segment = await newSegment(ext, size);
    return segment ? new ShmCapture(x, ext, size, segment) : undefined;
  }

  /** Runs `job` after the captures and releases asked for before it. */
  private serial<T>(job: () => Promise<T>): Promise<T> {
    const run = this.queue.then(job);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Has the X server write a region into the segment, then hands the segment's first
   * `width * height * 4` bytes (BGRX words, the top byte undefined) to `use`, which copies what it
   * needs out: they are valid only until `use` returns. A caller can convert (and shrink) the
   * pixels in the one pass that reads them.
   */
  read<T>(region: { x: number; y: number; width: number; height: number }, use: (bgrx: Buffer) => T): Promise<T> {
    return this.serial(async () => {
      if (!this.segment) {
        this.segment = await newSegment(this.ext, this.size);
        if (!this.segment) throw new Error("MIT-SHM: could not attach a new segment after releasing the last one");
      }
      const segment = this.segment;
      return new Promise<T>((resolve, reject) => {
        segment.getImage(this.x.root, region.x, region.y, region.width, region.height, 0xffffffff, Z_PIXMAP, 0, (err, rep) => {
          if (err) return reject(err);
          const bytes = region.width * region.height * 4;
          if (rep.size < bytes) return reject(new Error(`MIT-SHM returned ${rep.size} bytes for ${bytes / 4} pixels (depth ${rep.depth})`));
          try {
            resolve(use(segment.buffer.subarray(0, bytes)));
          } catch (e) {
            reject(e);
          }
        });
      });
    });
  }

  /**
   * Detaches the segment (after the captures under way) so that its memory can be collected; the
   * next capture attaches a new one. Resolves once the X server let go of it (at most 1 s).
   */
  release(): Promise<void> {
    return this.serial(async () => {
      const segment = this.segment;
      this.segment = undefined;
      if (!segment || this.x.closed) return;
      // Bounded: an X server that went away does not answer, and captures wait behind this.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 1_000);
        segment.detach(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    });
  }

  /**
   * Captures a region as packed RGBA (opaque). The X server delivers BGRX words; they are
   * converted while copied out of the shared segment.
   */
  grab(region: { x: number; y: number; width: number; height: number }): Promise<{ rgba: Buffer; width: number; height: number }> {
    return this.read(region, (bgrx) => {
      const count = region.width * region.height;
      const src = new Uint32Array(bgrx.buffer, bgrx.byteOffset, count);
      const rgba = Buffer.allocUnsafe(count * 4);
      const dst = new Uint32Array(rgba.buffer, rgba.byteOffset, count);
      for (let i = 0; i < count; i++) {
        const v = src[i]!;
        // Little-endian BGRX word 0xXXRRGGBB → RGBA word 0xFFBBGGRR.
        dst[i] = (0xff000000 | ((v & 0xff) << 16) | (v & 0xff00) | ((v >>> 16) & 0xff)) >>> 0;
      }
      return { rgba, width: region.width, height: region.height };
    });
  }

  /**
   * Captures a region as the X server delivers it (BGRX words, no conversion) into `into` when it
   * is the right size, else into a new buffer. Used to compare frames, where a copy is all it takes.
   */
  grabRaw(region: { x: number; y: number; width: number; height: number }, into?: Buffer): Promise<Buffer> {
    return this.read(region, (bgrx) => {
      const out = into?.length === bgrx.length ? into : Buffer.allocUnsafe(bgrx.length);
      bgrx.copy(out);
      return out;
    });
  }

  close(): void {
    this.segment?.detach();
    this.segment = undefined;
  }
}
