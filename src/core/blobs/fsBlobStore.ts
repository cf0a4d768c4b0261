/**
 * Filesystem blob store (the editor's default): `<root>/<tenant>/<runId>/<callId>`.
 *
 * Puts are atomic and durable: bytes go to `<callId>~<pid>.<random>.tmp` in the same
 * folder, are fdatasynced, then renamed into place (as artifacts are). `~` is outside the
 * safe-segment alphabet, so a temporary name can never equal a key's file. The writer's
 * pid in the name lets a later open remove what a killed writer left (`orphanSweep`).
 * Ranged reads use file positions (`read(fd, …, position)`), never a full read.
 */
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { EvidenceError } from '../errors.js';
import { VERIFIED_MARKS_FILE, VerifiedMarks } from '../integrity/verifiedMarks.js';
import type { OpenedFile } from '../integrity/integrity.js';
import { fileIdentity, openedRegular, processExists, readFullAt, tempNameFor } from '../files/localFile.js';
import { assertSafeSegment, TEMPORARY_CALL_ID, validateBlobKey, type BlobKey } from './blobKey.js';
import type { BlobStore } from './blobStore.js';

/**
 * A temporary file (`tempNameFor`): `<callId>~<pid>.<hex>.tmp`, or the older `<callId>~<hex>.tmp` (no writer recorded).
 */
const TEMP_NAME = /~(?:(\d+)\.)?[0-9a-f]{12}\.tmp$/;
/** A temporary file with no live writer recorded is removed once untouched this long. */
const STALE_TEMP_MS = 60 * 60 * 1000;

/** What the start-up sweep removed. */
export interface OrphanSweep {
  readonly files: number;
  readonly bytes: number;
}

/** A `BlobStore` over one root folder. */
export class FsBlobStore implements BlobStore {
  readonly kind = 'filesystem' as const;
  /**
   * The start-up sweep of temporary files left by killed writers, started by `open` and
   * not awaited there (it walks every run folder); never rejects.
   */
  orphanSweep: Promise<OrphanSweep> = Promise.resolve({ files: 0, bytes: 0 });

  /** One `VerifiedMarks` per tenant, so concurrent searches share what was read. */
  private readonly marks = new Map<string, VerifiedMarks>();

  private constructor(readonly root: string) {}

  /**
   * Opens (creating it and its parents if missing) the root folder, and starts
   * `orphanSweep` unless `sweep` is false (a short-lived process: the sweep reads every
   * run's folder, and the process would wait for it before it could exit).
   */
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
   * Streams the body into a temporary file, then renames it over the key's file. Returns
   * the identity of the file as written, taken (as git's checkout does) from the still-open
   * descriptor once the file is in place (a rename moves ctime), so it names this file
   * even if the path is replaced meanwhile; undefined if that `fstat` fails (docs/contracts.md §1.1).
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
      // Nothing under the temporary name once it is renamed: `force` makes this a no-op then.
      await fsp.rm(temp, { force: true });
      throw e;
    }
    return identity === undefined ? { sizeBytes } : { sizeBytes, identity };
  }

  /**
   * The key's own folder: a streamed put's scratch files are on the blobs' disk, and its start-up sweep knows their
   * names.
   */
  scratchDir(key: BlobKey): string {
    return path.dirname(this.filePath(key));
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

  /** dev:ino:size:mtimeNs:ctimeNs of the file, the way git's index tells a file unchanged (docs/contracts.md §1.1). */
  async identity(key: BlobKey): Promise<string | undefined> {
    try {
      const st = await fsp.stat(this.filePath(key), { bigint: true });
      return st.isFile() ? fileIdentity(st) : undefined;
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  }

  /**
   * The key's file opened for reading (undefined when it is gone or not a file): a
   * pattern search's worker reads it by descriptor, and `stat` gives the identity of this
   * open file, not of whatever the path names later (docs/contracts.md §1.1, §2.10).
   */
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
      return await readFullAt(fh, target, start);
    } finally {
      await fh.close();
    }
  }

  /** `<root>/<tenant>/.verified-v1`: marks of whole verified files (docs/contracts.md §1.1). */
  verifiedMarks(tenant: string): VerifiedMarks {
    let m = this.marks.get(tenant);
    if (!m) {
      m = new VerifiedMarks(path.join(this.root, assertSafeSegment('tenant', tenant), VERIFIED_MARKS_FILE));
      this.marks.set(tenant, m);
    }
    return m;
  }

  /**
   * Renames the file over the target's (one atomic rename in the same store). Its identity
   * is taken from a descriptor opened before the rename (so it names the file moved, even
   * if the target path is replaced meanwhile), once the rename changed its ctime.
   */
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

  /** Removes one file. */
  async delete(key: BlobKey): Promise<void> {
    await fsp.rm(this.filePath(key), { force: true });
  }

  /** Removes `<root>/<tenant>/<runId>/` and everything in it. */
  async deleteRun(tenant: string, runId: string): Promise<void> {
    await fsp.rm(path.join(this.root, assertSafeSegment('tenant', tenant), assertSafeSegment('runId', runId)), {
      recursive: true,
      force: true,
    });
  }
}

/**
 * Removes temporary files under `<root>/<tenant>/<runId>/` (and `<root>/<tenant>/`, where
 * the verified marks are rewritten; and `<root>/<tenant>/artifacts/`, where a streamed
 * artifact waits under a temporary key for its move) whose writer is gone: its pid
 * (in the name) names no process on this machine, or, with no pid recorded or a pid that
 * may have been reused, the file is untouched for `STALE_TEMP_MS`. A live writer's file
 * is kept: it is being written (docs/contracts.md §2.6).
 */
async function removeOrphanedTemps(root: string): Promise<OrphanSweep> {
  let files = 0;
  let bytes = 0;
  const now = Date.now();
  const entries = async (dir: string): Promise<import('node:fs').Dirent[]> =>
    fsp.readdir(dir, { withFileTypes: true }).catch(() => []);
  const sweep = async (dir: string, f: import('node:fs').Dirent): Promise<void> => {
    // A file being written (`tempNameFor`), or a whole temporary key a writer killed before its move left
    // (`temporaryCallId`).
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
      // A file here is the verified marks' (docs/contracts.md §1.1): its rewrite's temporary file too.
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
