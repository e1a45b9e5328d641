import { constants } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";

/**
 * Direct I/O (O_DIRECT) for large transfers: the data moves between the disk and a process's own
 * buffers without passing through the page cache. Measured on the 2-core VMs Pincer is developed
 * on: copying 1 GiB into the page cache cost 0.25 CPU-s of kernel time when its pages had been used
 * before and 1.5–2.7 CPU-s when they had not (dd, five runs in a row), and a controller receiving
 * a 1 GiB download spent 1.5–1.8 CPU-s per GiB in the kernel with buffered writes against 0.3–0.5
 * with O_DIRECT; a buffered read of 1 GiB not in the cache cost about 1 CPU-s (dd: 1.1).
 * A large transfer also no longer evicts the machine's cache.
 *
 * The kernel wants the buffers, file offsets and lengths aligned to the device's logical block
 * size; 4096 covers 512-byte and 4 KiB devices (a device with larger blocks refuses with EINVAL,
 * and the transfer goes on buffered). Node cannot allocate aligned memory or tell a
 * Buffer's address, but a WebAssembly memory is mapped on pages of its own, so its buffer starts
 * page-aligned: aligned buffers are carved from such memories and pooled. Where WebAssembly is
 * unavailable (node --jitless), O_DIRECT does not exist (macOS, Windows) or PINCER_DIRECT_IO=0,
 * transfers use ordinary buffered I/O.
 */

/** Offsets and lengths of direct reads and writes are multiples of this. */
export const DIRECT_IO_BLOCK = 4096;
/** Transfers of at least this many bytes use direct I/O. @default 64 MiB */
export const DIRECT_IO_MIN_BYTES = 64 * 1024 * 1024;
/** Idle aligned memory kept for the next transfers, per buffer size. */
const POOL_KEEP_BYTES = 24 * 1024 * 1024;
const WASM_PAGE = 65536;

/** The one piece of WebAssembly used here (the project's TypeScript lib has no WebAssembly types). */
interface WasmMemoryConstructor {
  new (descriptor: { initial: number }): { readonly buffer: ArrayBuffer };
}

/** Idle aligned buffers by size. */
const pools = new Map<number, Buffer[]>();

/**
 * For a transfer of `bytes`: a second descriptor on the file `fh` is open on, with O_DIRECT added
 * to `flags`, or undefined where the transfer should use buffered I/O (small, no O_DIRECT on this
 * platform or file system, or PINCER_DIRECT_IO=0). It is opened through /proc/self/fd, never by
 * path again: a path can be swapped for a symlink or another file between two opens.
 */
export async function openDirect(fh: FileHandle, flags: number, bytes: number): Promise<FileHandle | undefined> {
  const direct = (constants as { O_DIRECT?: number }).O_DIRECT;
  if (direct === undefined || process.env.PINCER_DIRECT_IO === "0" || bytes < DIRECT_IO_MIN_BYTES) return undefined;
  const again = await open(`/proc/self/fd/${fh.fd}`, flags | direct).catch(() => undefined);
  if (!again) return undefined;
  // The same file, or nothing.
  const [a, b] = await Promise.all([fh.stat(), again.stat()]).catch(() => [undefined, undefined]);
  if (a && b && a.dev === b.dev && a.ino === b.ino) return again;
  await again.close();
  return undefined;
}

/**
 * `count` page-aligned buffers of `bytes` each (a multiple of {@link DIRECT_IO_BLOCK}), or
 * undefined when aligned memory cannot be had.
 */
export function takeAligned(count: number, bytes: number): Buffer[] | undefined {
  const Memory = (globalThis as { WebAssembly?: { Memory?: WasmMemoryConstructor } }).WebAssembly?.Memory;
  if (!Memory || bytes % DIRECT_IO_BLOCK !== 0) return undefined;
  const pool = pools.get(bytes) ?? [];
  pools.set(bytes, pool);
  try {
    if (pool.length < count) {
      const missing = count - pool.length;
      const pages = Math.ceil((missing * bytes) / WASM_PAGE);
      const memory = new Memory({ initial: pages });
      for (let i = 0; i < missing; i++) pool.push(Buffer.from(memory.buffer, i * bytes, bytes));
    }
  } catch {
    // Out of memory or address space now; perhaps not for the next transfer.
    return undefined;
  }
  return pool.splice(pool.length - count, count);
}

/** Gives buffers from {@link takeAligned} back once no read or write uses them any more. */
export function returnAligned(buffers: Buffer[]): void {
  for (const b of buffers) {
    const pool = pools.get(b.length);
    if (pool && (pool.length + 1) * b.length <= POOL_KEEP_BYTES) pool.push(b);
  }
}
