/**
 * Filesystem blob store (the editor's default): `<root>/<tenant>/<runId>/<callId>`.
 *
 * Puts are atomic: bytes go to `<callId>~<random>.tmp` in the same folder, then a rename.
 * `~` is outside the safe-segment alphabet, so a temporary name can never equal a key's
 * file. Ranged reads use file positions (`read(fd, …, position)`), never a full read.
 */
import { randomBytes } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { EvidenceError } from '../errors.js';
import { assertSafeSegment, validateBlobKey, type BlobKey } from './blobKey.js';
import type { BlobStore } from './blobStore.js';

/** A `BlobStore` over one root folder. */
export class FsBlobStore implements BlobStore {
  readonly kind = 'filesystem' as const;

  private constructor(readonly root: string) {}

  /** Opens (creating it and its parents if missing) the root folder. */
  static async open(root: string): Promise<FsBlobStore> {
    const resolved = path.resolve(root);
    await fsp.mkdir(resolved, { recursive: true });
    const st = await fsp.stat(resolved);
    if (!st.isDirectory()) throw new EvidenceError('invalidArgument', 'blob store root is not a directory');
    return new FsBlobStore(resolved);
  }

  private filePath(key: BlobKey): string {
    validateBlobKey(key);
    return path.join(this.root, key.tenant, key.runId, key.callId);
  }

  /** Streams the body into a temporary file, then renames it over the key's file. */
  async put(key: BlobKey, body: Uint8Array | AsyncIterable<Uint8Array>): Promise<{ sizeBytes: number }> {
    const target = this.filePath(key);
    await fsp.mkdir(path.dirname(target), { recursive: true });
    const temp = `${target}~${randomBytes(6).toString('hex')}.tmp`;
    const fh = await fsp.open(temp, 'wx');
    let sizeBytes = 0;
    try {
      try {
        const pieces = body instanceof Uint8Array ? [body] : body;
        for await (const piece of pieces) {
          let off = 0;
          while (off < piece.length) {
            const { bytesWritten } = await fh.write(piece, off, piece.length - off);
            off += bytesWritten;
          }
          sizeBytes += piece.length;
        }
      } finally {
        await fh.close();
      }
      await fsp.rename(temp, target);
    } catch (e) {
      await fsp.rm(temp, { force: true });
      throw e;
    }
    return { sizeBytes };
  }

  /** File size, or undefined when the file is gone. */
  async size(key: BlobKey): Promise<number | undefined> {
    try {
      const st = await fsp.stat(this.filePath(key));
      return st.isFile() ? st.size : undefined;
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  }

  /**
   * Reads at file positions into `target`; fewer bytes when the file is shorter. The
   * file is opened per call, never cached: a blob deleted or replaced between calls must
   * read as gone or changed, not as the old bytes.
   */
  async readInto(key: BlobKey, start: number, target: Uint8Array): Promise<number> {
    let fh: fsp.FileHandle;
    try {
      fh = await fsp.open(this.filePath(key), 'r');
    } catch (e) {
      if (isNotFound(e)) throw new EvidenceError('missing', 'stored bytes are missing');
      throw e;
    }
    try {
      let got = 0;
      while (got < target.length) {
        const { bytesRead } = await fh.read(target, got, target.length - got, start + got);
        if (bytesRead === 0) break;
        got += bytesRead;
      }
      return got;
    } finally {
      await fh.close();
    }
  }

  /** Removes one file. */
  async delete(key: BlobKey): Promise<void> {
    await fsp.rm(this.filePath(key), { force: true });
  }

  /** Removes `<root>/<tenant>/<runId>/` and everything in it. */
  async deleteRun(tenant: string, runId: string): Promise<void> {
    await fsp.rm(path.join(this.root, assertSafeSegment('tenant', tenant), assertSafeSegment('runId', runId)), { recursive: true, force: true });
  }
}

function isNotFound(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
