/**
 * Filesystem blob store: `<root>/<tenant>/<runId>/<callId>`. Puts go to `<callId>~<pid>.<random>.tmp`, fdatasync,
 * rename; `~` is outside the key alphabet, and the pid lets a later open remove what a killed writer left.
 */
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { EvidenceError } from '../errors.js';
import { VERIFIED_MARKS_FILE, VerifiedMarks } from '../integrity/verifiedMarks.js';
import type { OpenedFile } from '../integrity/integrity.js';
import { fileIdentity, openedRegular, processExists, readFullAt, tempNameFor } from '../files/localFile.js';
import { assertSafeSegment, TEMPORARY_CALL_ID, validateBlobKey, type BlobKey } from './blobKey.js';
import type { BlobStore } from './blobStore.js';

/** The older form without a pid records no writer. */
const TEMP_NAME = /~(?:(\d+)\.)?[0-9a-f]{12}\.tmp$/;
const STALE_TEMP_MS = 60 * 60 * 1000;

export interface OrphanSweep {
  readonly files: number;
  readonly bytes: number;
}

export class FsBlobStore implements BlobStore {
  readonly kind = 'filesystem' as const;
  /** Not awaited by `open`: it walks every run folder. Never rejects. */
  orphanSweep: Promise<OrphanSweep> = Promise.resolve({ files: 0, bytes: 0 });

  /** One per tenant, so concurrent searches share what was read. */
  private readonly marks = new Map<string, VerifiedMarks>();

  private constructor(readonly root: string) {}

  /** `sweep: false` for a short-lived process, which would otherwise wait for the sweep before it could exit. */
  static async open(root: string, options: { sweep?: boolean } = {}): Promise<FsBlobStore> {
    const resolved = path.resolve(root);
    await fsp.mkdir(resolved, { recursive: true });
    const st = await fsp.stat(resolved);
    if (!st.isDirectory()) throw new EvidenceError('invalidArgument', 'blob store root is not a directory');
    const store = new FsBlobStore(resolved);
    if (options.sweep ?? true) store.orphanSweep = removeOrphanedTemps(resolved).catch(() => ({ files: 0, bytes: 0 }));
    return store;
  }

  private filePath(key: BlobKey): string {
    validateBlobKey(key);
    return path.join(this.root, key.tenant, key.runId, key.callId);
  }

  /**
   * The identity is taken from the still-open descriptor once in place (a rename moves ctime), so it names this file
   * even if the path is replaced (docs/contracts.md §1.1).
   */
  async put(
    key: BlobKey,
    body: Uint8Array | AsyncIterable<Uint8Array>,
  ): Promise<{ sizeBytes: number; identity?: string }> {
    const target = this.filePath(key);
    await fsp.mkdir(path.dirname(target), { recursive: true });
    const temp = tempNameFor(target);
    const fh = await fsp.open(temp, 'wx');
    let sizeBytes = 0;
    let identity: string | undefined;
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
        // Durable before it becomes visible under its key (docs/contracts.md §2.6).
        await fh.datasync();
        await fsp.rename(temp, target);
        identity = await fh.stat({ bigint: true }).then(fileIdentity, () => undefined);
      } finally {
        await fh.close();
      }
    } catch (e) {
      await fsp.rm(temp, { force: true });
      throw e;
    }
    return identity === undefined ? { sizeBytes } : { sizeBytes, identity };
  }

  scratchDir(key: BlobKey): string {
    return path.dirname(this.filePath(key));
  }

  async size(key: BlobKey): Promise<number | undefined> {
    try {
      const st = await fsp.stat(this.filePath(key));
      return st.isFile() ? st.size : undefined;
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  }

  /** The way git's index tells a file unchanged (docs/contracts.md §1.1). */
  async identity(key: BlobKey): Promise<string | undefined> {
    try {
      const st = await fsp.stat(this.filePath(key), { bigint: true });
      return st.isFile() ? fileIdentity(st) : undefined;
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  }

  /** `stat` then gives the identity of this open file, not of whatever the path names later. */
  async openFile(key: BlobKey): Promise<OpenedFile | undefined> {
    let fh: fsp.FileHandle;
    try {
      fh = await fsp.open(this.filePath(key), 'r');
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
    return openedRegular(fh);
  }

  /** Opened per call, never cached: a blob deleted or replaced between calls must read as gone or changed. */
  async readInto(key: BlobKey, start: number, target: Uint8Array): Promise<number> {
    let fh: fsp.FileHandle;
    try {
      fh = await fsp.open(this.filePath(key), 'r');
    } catch (e) {
      if (isNotFound(e)) throw new EvidenceError('missing', 'stored bytes are missing');
      throw e;
    }
    try {
      return await readFullAt(fh, target, start);
    } finally {
      await fh.close();
    }
  }

  verifiedMarks(tenant: string): VerifiedMarks {
    let m = this.marks.get(tenant);
    if (!m) {
      m = new VerifiedMarks(path.join(this.root, assertSafeSegment('tenant', tenant), VERIFIED_MARKS_FILE));
      this.marks.set(tenant, m);
    }
    return m;
  }

  /** The identity comes from a descriptor opened before the rename, so it names the file moved. */
  async move(from: BlobKey, to: BlobKey): Promise<{ identity?: string }> {
    const source = this.filePath(from);
    const target = this.filePath(to);
    let fh: fsp.FileHandle;
    try {
      fh = await fsp.open(source, 'r');
    } catch (e) {
      if (isNotFound(e)) throw new EvidenceError('missing', 'stored bytes are missing');
      throw e;
    }
    try {
      await fsp.mkdir(path.dirname(target), { recursive: true });
      await fsp.rename(source, target);
      const identity = await fh.stat({ bigint: true }).then(
        (st) => (st.isFile() ? fileIdentity(st) : undefined),
        () => undefined,
      );
      return identity === undefined ? {} : { identity };
    } catch (e) {
      if (isNotFound(e)) throw new EvidenceError('missing', 'stored bytes are missing');
      throw e;
    } finally {
      await fh.close();
    }
  }

  async delete(key: BlobKey): Promise<void> {
    await fsp.rm(this.filePath(key), { force: true });
  }

  async deleteRun(tenant: string, runId: string): Promise<void> {
    await fsp.rm(path.join(this.root, assertSafeSegment('tenant', tenant), assertSafeSegment('runId', runId)), {
      recursive: true,
      force: true,
    });
  }
}

/**
 * A live writer's file is kept. Without a recorded pid, or with one that may have been reused, a file is removed once
 * untouched for `STALE_TEMP_MS` (docs/contracts.md §2.6).
 */
async function removeOrphanedTemps(root: string): Promise<OrphanSweep> {
  let files = 0;
  let bytes = 0;
  const now = Date.now();
  const entries = async (dir: string): Promise<import('node:fs').Dirent[]> =>
    fsp.readdir(dir, { withFileTypes: true }).catch(() => []);
  const sweep = async (dir: string, f: import('node:fs').Dirent): Promise<void> => {
    const m = TEMP_NAME.exec(f.name) ?? TEMPORARY_CALL_ID.exec(f.name);
    if (!m || !f.isFile()) return;
    const file = path.join(dir, f.name);
    const st = await fsp.stat(file).catch(() => undefined);
    if (!st) return;
    const writerGone = m[1] !== undefined && !processExists(Number(m[1]));
    if (writerGone || now - st.mtimeMs > STALE_TEMP_MS) {
      await fsp.rm(file, { force: true });
      files++;
      bytes += st.size;
    }
  };
  for (const tenant of await entries(root)) {
    if (!tenant.isDirectory()) continue;
    const tenantDir = path.join(root, tenant.name);
    for (const run of await entries(tenantDir)) {
      // A file here is the verified marks' (its rewrite's temporary file too).
      if (!run.isDirectory()) {
        await sweep(tenantDir, run);
        continue;
      }
      const runDir = path.join(tenantDir, run.name);
      for (const f of await entries(runDir)) await sweep(runDir, f);
    }
  }
  return { files, bytes };
}

function isNotFound(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
