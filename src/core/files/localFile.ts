/**
 * A local file as the verified-chunk cache and a pattern search see it, for the store that
 * keeps files (the filesystem blob store, artifacts included): its identity, and an open
 * descriptor a search's workers read (docs/contracts.md §1.1, §2.10).
 */
import { randomBytes } from 'node:crypto';
import type { BigIntStats } from 'node:fs';
import { chmod, rename, rm, writeFile, type FileHandle } from 'node:fs/promises';

/** A local file opened for a search: its descriptor is usable from any thread of this process. */
export interface OpenedFile {
  readonly fd: number;
  /** Bytes at `position` into `target` (from index 0), up to its length; fewer at the end of the file. */
  read(target: Uint8Array, position: number): Promise<number>;
  /**
   * The open file's identity (device, inode, size, mtime and ctime in nanoseconds, as `RangeSource.identity`) and size.
   */
  stat(): Promise<{ identity: string; size: number }>;
  close(): Promise<void>;
}

/** dev:ino:size:mtimeNs:ctimeNs, the way git's index tells a file unchanged (docs/contracts.md §1.1). */
export function fileIdentity(st: BigIntStats): string {
  return `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
}

/**
 * An `OpenedFile` over a handle the caller opened and checked to be a regular file: its
 * `stat` is the identity of this open file, not of whatever the path names later.
 */
function openedFile(fh: FileHandle): OpenedFile {
  return {
    fd: fh.fd,
    read: (target, position) => readFullAt(fh, target, position),
    stat: async () => {
      const s = await fh.stat({ bigint: true });
      return { identity: fileIdentity(s), size: Number(s.size) };
    },
    close: () => fh.close(),
  };
}

/**
 * An `OpenedFile` over a handle the caller just opened, or undefined (the handle closed)
 * when it is not a regular file; a failing `fstat` closes it and throws.
 */
export async function openedRegular(fh: FileHandle): Promise<OpenedFile | undefined> {
  const st = await fh.stat().catch(async (e: unknown) => {
    await fh.close();
    throw e;
  });
  if (!st.isFile()) {
    await fh.close();
    return undefined;
  }
  return openedFile(fh);
}

/**
 * The temporary name a file is written under before its rename: `<target>~<pid>.<12 hex>.tmp`.
 * The filesystem blob store's start-up sweep recognises this form (and the writer's pid in
 * it) to remove what a killed writer left (docs/contracts.md §2.6).
 */
export function tempNameFor(target: string): string {
  return `${target}~${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
}

/**
 * Replaces `file`'s content with `text` through a temporary file beside it and a rename, so a
 * reader (a running shim, an agent reading its settings) or a crash never sees half a file.
 * `mode` is set exactly (not through the umask: a token file stays 0600); the temporary file
 * is removed when the write fails.
 */
export async function replaceFileText(file: string, text: string, mode: number): Promise<void> {
  const aside = tempNameFor(file);
  try {
    await writeFile(aside, text, { mode });
    await chmod(aside, mode);
    await rename(aside, file);
  } catch (e) {
    await rm(aside, { force: true });
    throw e;
  }
}

/** Fills `target` from `position` on; fewer bytes only at the end of the file (a read may return less). */
export async function readFullAt(fh: FileHandle, target: Uint8Array, position: number): Promise<number> {
  let got = 0;
  while (got < target.length) {
    const { bytesRead } = await fh.read(target, got, target.length - got, position + got);
    if (bytesRead === 0) break;
    got += bytesRead;
  }
  return got;
}

/**
 * True while a process with this pid exists here: the writer of a temporary file named after it may still be writing.
 */
export function processExists(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Bytes a streamed read of a local file hands on at a time. */
export const FILE_PIECE_BYTES = 1024 * 1024;

/**
 * The first `size` bytes of an open file (fewer if it shrank), one bounded piece at a time. The buffer is
 * reused: a consumer copies or writes each piece before asking for the next (the stores' `putStream`, `putVerified`).
 */
export async function* piecesOf(handle: FileHandle, size: number): AsyncGenerator<Uint8Array> {
  const buf = Buffer.allocUnsafe(Math.min(FILE_PIECE_BYTES, Math.max(1, size)));
  for (let at = 0; at < size;) {
    const { bytesRead } = await handle.read(buf, 0, Math.min(buf.length, size - at), at);
    if (bytesRead === 0) return;
    at += bytesRead;
    yield buf.subarray(0, bytesRead);
  }
}
