/** A local file as the verified-chunk cache and a pattern search see it (docs/contracts.md §1.1, §2.10). */
import { randomBytes } from 'node:crypto';
import type { BigIntStats } from 'node:fs';
import { chmod, rename, rm, writeFile, type FileHandle } from 'node:fs/promises';

/** Its descriptor is usable from any thread of this process. */
export interface OpenedFile {
  readonly fd: number;
  /** Fewer at the end of the file. */
  read(target: Uint8Array, position: number): Promise<number>;
  stat(): Promise<{ identity: string; size: number }>;
  close(): Promise<void>;
}

/** The way git's index tells a file unchanged (docs/contracts.md §1.1). */
export function fileIdentity(st: BigIntStats): string {
  return `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
}

/** `stat` is the identity of this open file, not of whatever the path names later. */
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

/** Undefined (the handle closed) when it is not a regular file. */
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

/** The blob store's start-up sweep recognises this form and its pid (docs/contracts.md §2.6). */
export function tempNameFor(target: string): string {
  return `${target}~${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
}

/**
 * Through a temporary file and a rename, so a reader or a crash never sees half a file. `mode` is set exactly, not
 * through the umask.
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

/** A read may return less, so this loops. */
export async function readFullAt(fh: FileHandle, target: Uint8Array, position: number): Promise<number> {
  let got = 0;
  while (got < target.length) {
    const { bytesRead } = await fh.read(target, got, target.length - got, position + got);
    if (bytesRead === 0) break;
    got += bytesRead;
  }
  return got;
}

export function processExists(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export const FILE_PIECE_BYTES = 1024 * 1024;

/** The buffer is reused: a consumer copies or writes each piece before asking for the next. */
export async function* piecesOf(handle: FileHandle, size: number): AsyncGenerator<Uint8Array> {
  const buf = Buffer.allocUnsafe(Math.min(FILE_PIECE_BYTES, Math.max(1, size)));
  for (let at = 0; at < size;) {
    const { bytesRead } = await handle.read(buf, 0, Math.min(buf.length, size - at), at);
    if (bytesRead === 0) return;
    at += bytesRead;
    yield buf.subarray(0, bytesRead);
  }
}
