import { createHash, randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { type FileHandle, link, lstat, mkdir, open, rename, unlink } from "node:fs/promises";
import type * as grpc from "@grpc/grpc-js";
import {
  AlreadyExistsError,
  CancelledError,
  ChunkReader,
  echo,
  FileSink,
  InvalidArgumentError,
  openDirect,
  quoted,
  ResourceExhaustedError,
  type wire,
} from "@pincer/shared";
import { dirname, join } from "node:path";
import type { Anchored, Jail } from "../security/jail.js";
import type { UploadJournal } from "./uploadJournal.js";
import { anchorPath, fsError, withPath } from "./paths.js";

/** Largest data message, both directions. */
export const MAX_CHUNK_BYTES = 1024 * 1024;
/** Download messages handed to grpc-js and not yet written to the connection. */
const DOWNLOAD_WINDOW = 8;

export interface TransferLimits {
  /** Largest file one upload may write, in bytes. @default no limit */
  maxUploadBytes?: number;
  /** Every path must resolve inside this directory (--file-root). @default anywhere */
  jail?: Jail;
  /** Records the temporary files of uploads in progress, for cleanup after a crash. @default none */
  journal?: UploadJournal;
}

const SHA256_HEX = /^[0-9a-f]{64}$/;

function checkSha(value: string, field: string): string {
  const v = value.toLowerCase();
  if (v && !SHA256_HEX.test(v)) throw InvalidArgumentError.forField(field, `${quoted(value)} is not a hex sha256 (64 characters)`);
  return v;
}

/**
 * Receives an upload: header, chunks, optional trailer. Writes a temporary file beside the
 * destination and moves it into place only when the stream ended normally and the size and
 * sha256 match; otherwise removes it.
 */
export async function upload(
  call: grpc.ServerReadableStream<wire.UploadRequest__Output, wire.UploadResponse>,
  signal: AbortSignal,
  limits: TransferLimits,
): Promise<wire.UploadResponse> {
  const messages = call[Symbol.asyncIterator]() as AsyncIterator<wire.UploadRequest__Output>;
  const first = await messages.next();
  if (first.done || first.value.message !== "header" || !first.value.header) {
    throw InvalidArgumentError.forField("header", "the first message of an upload must be the header");
  }
  const h = first.value.header;
  const anchored = anchorPath(h.path, limits.jail, { createParents: h.createParents });
  try {
    return await receive(anchored, h, messages, signal, limits);
  } finally {
    anchored.close();
  }
}

/**
 * Writes an upload's chunks to a temporary file in the destination's (held) directory and moves it
 * into place once complete and verified.
 */
async function receive(
  a: Anchored,
  h: NonNullable<wire.UploadRequest__Output["header"]>,
  messages: AsyncIterator<wire.UploadRequest__Output>,
  signal: AbortSignal,
  limits: TransferLimits,
): Promise<wire.UploadResponse> {
  const dest = a.path;
  const expectedSha = checkSha(h.sha256, "header.sha256");
  const expectedSize = h.size ?? undefined;
  const maxBytes = limits.maxUploadBytes ?? Infinity;
  if (expectedSize !== undefined && expectedSize > maxBytes) {
    throw new ResourceExhaustedError(
      `${echo(dest)}: ${expectedSize} bytes is over this daemon's upload limit of ${maxBytes} bytes; start it with a higher --max-upload-bytes`,
    );
  }
  const mode = h.mode === 0 ? 0o644 : h.mode & 0o7777;
  if (a.name === ".") throw new InvalidArgumentError(`${echo(dest)}: is a directory`);
  // Without a file root the parents are made here (inside one, while the path was resolved).
  if (h.createParents && !a.pinned) await mkdir(a.dir, { recursive: true, mode: 0o755 }).catch((e: unknown) => Promise.reject(fsError(e, a.dir)));
  const existing = await lstat(a.at).catch(() => undefined);
  if (existing?.isDirectory()) throw new InvalidArgumentError(`${echo(dest)}: is a directory`);
  if (existing && !h.overwrite) throw new AlreadyExistsError(`${echo(dest)}: already exists; pass overwrite to replace it`);

  const tmpName = `.${a.name}.pincer-${randomBytes(6).toString("hex")}.part`;
  const tmp = `${a.dir}/${tmpName}`;
  // Recorded before it exists, so that a crash at any point leaves an entry for the next start.
  const forget = limits.journal?.begin(join(dirname(a.path), tmpName)) ?? (() => undefined);
  const sink = await FileSink.create(tmp, { mode: 0o600, expectedBytes: expectedSize }).catch((e: unknown) => {
    forget();
    return Promise.reject(fsError(e, dest));
  });
  let trailer: { size: number; sha256: string } | undefined;
  try {
    for (;;) {
      const next = await messages.next();
      if (next.done) break;
      const msg = next.value;
      if (trailer) throw InvalidArgumentError.forField("trailer", "nothing may follow the trailer");
      if (msg.message === "trailer" && msg.trailer) {
        trailer = { size: msg.trailer.size, sha256: checkSha(msg.trailer.sha256, "trailer.sha256") };
        continue;
      }
      if (msg.message !== "chunk" || !msg.chunk) throw InvalidArgumentError.forField("chunk", "after the header only data chunks and a trailer may come");
      const chunk = msg.chunk;
      if (chunk.length > MAX_CHUNK_BYTES) throw InvalidArgumentError.forField("chunk", `${chunk.length} bytes is over the ${MAX_CHUNK_BYTES}-byte chunk limit`);
      if (sink.bytes + chunk.length > maxBytes)
        throw new ResourceExhaustedError(
          `${echo(dest)}: the upload passed this daemon's limit of ${maxBytes} bytes; nothing was written; start it with a higher --max-upload-bytes`,
        );
      // Writes go to explicit positions, several in flight while the next chunks arrive.
      await sink.write(chunk);
    }
    // A cancelled call must never commit, even if its stream looked finished.
    await new Promise((r) => setImmediate(r));
    if (signal.aborted) throw new CancelledError(`${echo(dest)}: upload cancelled by the client; nothing was written`);
    const size = sink.bytes;
    const sha256 = await sink.digest();
    checkReceived(dest, { size, sha256 }, { size: expectedSize, sha256: expectedSha }, trailer);
    await sink.handle.chmod(mode);
    await sink.finish();
    await sink.close();
    // Inside a file root: the directory must still be where the path leads (not moved out meanwhile).
    a.recheck();
    await moveIntoPlace(tmp, a.at, h.overwrite);
    forget();
    await syncDir(a.dir);
    return { path: dest, size, sha256 };
  } catch (err) {
    await sink.close().catch(() => undefined);
    await unlink(tmp).catch(() => undefined);
    forget();
    if ((err as NodeJS.ErrnoException).code === "ERR_STREAM_PREMATURE_CLOSE" || signal.aborted) {
      throw new CancelledError(`${echo(dest)}: upload stream broke off; nothing was written`, { cause: err });
    }
    throw fsError(err, dest);
  }
}

/** The received bytes must match what the header and the trailer announced, where they did. */
function checkReceived(
  dest: string,
  got: { size: number; sha256: string },
  header: { size: number | undefined; sha256: string | undefined },
  trailer: { size: number; sha256: string } | undefined,
): void {
  for (const [where, want] of [
    ["header", header],
    ["trailer", trailer],
  ] as const) {
    if (!want) continue;
    if (want.size !== undefined && want.size !== got.size) {
      throw InvalidArgumentError.forField(`${where}.size`, `${echo(dest)}: received ${got.size} bytes but ${want.size} were announced; nothing was written`);
    }
    if (want.sha256 && want.sha256 !== got.sha256) {
      throw InvalidArgumentError.forField(`${where}.sha256`, `${echo(dest)}: content has sha256 ${got.sha256}, not ${want.sha256}; nothing was written`);
    }
  }
}

/** Renames the finished temporary file onto the destination, or links it when it must not replace one. */
async function moveIntoPlace(tmp: string, dest: string, overwrite: boolean): Promise<void> {
  if (overwrite) {
    await rename(tmp, dest);
  } else {
    // Fails atomically with EEXIST if the destination appeared meanwhile.
    await link(tmp, dest);
    await unlink(tmp);
  }
}

async function syncDir(dir: string): Promise<void> {
  const d = await open(dir, "r").catch(() => undefined);
  if (!d) return;
  await d.sync().catch(() => undefined);
  await d.close();
}

/** Streams a file: header, chunks from the offset, trailer with the sha256 of what was sent. */
export async function download(
  call: grpc.ServerWritableStream<wire.DownloadRequest__Output, wire.DownloadResponse>,
  signal: AbortSignal,
  limits: TransferLimits = {},
): Promise<void> {
  const chunkSize = call.request.chunkSize === 0 ? MAX_CHUNK_BYTES : call.request.chunkSize;
  if (chunkSize > MAX_CHUNK_BYTES) throw InvalidArgumentError.forField("chunk_size", `${chunkSize} is over ${MAX_CHUNK_BYTES}`);
  // Opened without following a symlink put in the file's place after the path was resolved.
  const { fh, path } = await withPath(call.request.path, limits.jail, { followLast: true }, async (a) => {
    if (a.name === ".") throw InvalidArgumentError.forField("path", `${echo(a.path)} is a directory; download its files one by one`);
    return {
      fh: await open(a.at, constants.O_RDONLY | (a.pinned ? constants.O_NOFOLLOW : 0)).catch((e: unknown) => Promise.reject(fsError(e, a.path))),
      path: a.path,
    };
  });
  await sendFile(call, signal, fh, path, chunkSize).finally(() => fh.close());
}

/** Streams an open file: header, chunks from the asked offset, trailer. */
async function sendFile(
  call: grpc.ServerWritableStream<wire.DownloadRequest__Output, wire.DownloadResponse>,
  signal: AbortSignal,
  fh: FileHandle,
  path: string,
  chunkSize: number,
): Promise<void> {
  const st = await fh.stat();
  if (st.isDirectory()) throw InvalidArgumentError.forField("path", `${echo(path)} is a directory; download its files one by one`);
  const offset = call.request.offset;
  if (offset > st.size) throw InvalidArgumentError.forField("offset", `${offset} is past the end of ${echo(path)} (${st.size} bytes)`);
  // Large files are read past the page cache (see directIo.ts in @pincer/shared).
  const direct = await openDirect(fh, constants.O_RDONLY, st.size - offset);
  // The file is read into reused buffers laid out as encoded chunk messages, several reads ahead.
  // A buffer goes back to the pool in the write callback: by then grpc-js has framed (copied) it.
  const reader = new ChunkReader(fh, offset, chunkSize, DOWNLOAD_WINDOW, direct);
  // Up to DOWNLOAD_WINDOW messages wait in grpc-js at once. Waiting for 'drain' after each one
  // (its HTTP/2 stream buffers 16 KiB) left the socket idle while the next chunk was hashed.
  let queued = 0;
  let wake: (() => void) | undefined;
  const onAbort = () => wake?.();
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    const hash = createHash("sha256");
    call.write({ header: { size: st.size, offset, modifiedMs: Math.round(st.mtimeMs) } });
    let sent = 0;
    for (;;) {
      if (signal.aborted) return;
      const chunk = await reader.next();
      if (!chunk) break;
      queued++;
      call.write(chunk.message as wire.DownloadResponse, () => {
        queued--;
        chunk.release();
        wake?.();
      });
      // Hashed while the message goes out; its buffer is released only in the callback above.
      hash.update(chunk.data);
      sent += chunk.data.length;
      if (queued >= DOWNLOAD_WINDOW) {
        await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
      }
    }
    call.write({ trailer: { bytes: sent, sha256: hash.digest("hex") } });
  } finally {
    signal.removeEventListener("abort", onAbort);
    await reader.close();
    await direct?.close();
  }
}
