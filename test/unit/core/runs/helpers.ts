/** Shared helpers of the run-layer tests: scratch folders, stores, byte assertions. */
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { BlobKey } from '../../../../src/core/blobs/blobKey.js';
import type { BlobStore } from '../../../../src/core/blobs/blobStore.js';
import type { OpenedFile } from '../../../../src/core/integrity/integrity.js';
import { Catalog } from '../../../../src/core/runs/catalog/catalog.js';
import { RunStore } from '../../../../src/core/runs/store/runStore.js';
import type { RunStoreOptions } from '../../../../src/core/runs/types.js';
import type { VerifiedMarks } from '../../../../src/core/integrity/verifiedMarks.js';

// Start-up maintenance at once (not a second after the open): tests wait for it with catalogSettled().
Catalog.startUpDelayMs = 0;

/** A scratch folder removed by `cleanup`. */
export function scratch(name = 'runs'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), `${name}-`));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** sha256 hex. */
export function sha(bytes: Uint8Array | string): string {
  return createHash('sha256')
    .update(typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes)
    .digest('hex');
}

/** Opens a store under `dir` with test-friendly defaults. */
export function openStore(dir: string, options: Partial<RunStoreOptions> = {}): Promise<RunStore> {
  return RunStore.open({ logsDir: path.join(dir, 'logs'), tenant: 'tenant-a', ...options });
}

/** Asserts a promise rejects with an EvidenceError of `code` and exactly `message`. */
export async function rejectsWith(p: Promise<unknown>, code: string, message: string | RegExp): Promise<void> {
  await assert.rejects(p, (e: Error & { code?: string }) => {
    assert.equal(e.code, code, `code of "${e.message}"`);
    if (typeof message === 'string') assert.equal(e.message, message);
    else assert.match(e.message, message);
    return true;
  });
}

/** A BlobStore wrapper that counts bytes read (to prove reads are bounded). */
export class CountingStore implements BlobStore {
  readonly kind: BlobStore['kind'];
  bytesRead = 0;
  reads = 0;
  /** Passed through: the inner store's marks on disk (docs/contracts.md §1.1). */
  readonly verifiedMarks?: (tenant: string) => VerifiedMarks;
  constructor(private readonly inner: BlobStore) {
    this.kind = inner.kind;
    if (inner.verifiedMarks) this.verifiedMarks = (tenant) => inner.verifiedMarks!(tenant);
  }
  put(key: BlobKey, body: Uint8Array | AsyncIterable<Uint8Array>): Promise<{ sizeBytes: number; identity?: string }> {
    return this.inner.put(key, body);
  }
  size(key: BlobKey): Promise<number | undefined> {
    return this.inner.size(key);
  }
  async readInto(key: BlobKey, start: number, target: Uint8Array): Promise<number> {
    const n = await this.inner.readInto(key, start, target);
    this.bytesRead += n;
    this.reads++;
    return n;
  }
  identity(key: BlobKey): Promise<string | undefined> {
    return this.inner.identity?.(key) ?? Promise.resolve(undefined);
  }
  /** Passed through: a pattern search's workers then read the file by descriptor (those reads are not counted). */
  openFile(key: BlobKey): Promise<OpenedFile | undefined> {
    return this.inner.openFile?.(key) ?? Promise.resolve(undefined);
  }
  move(from: BlobKey, to: BlobKey): Promise<{ identity?: string }> {
    return this.inner.move(from, to);
  }
  delete(key: BlobKey): Promise<void> {
    return this.inner.delete(key);
  }
  deleteRun(tenant: string, runId: string): Promise<void> {
    return this.inner.deleteRun(tenant, runId);
  }
}

/** `n` lines `line <i>` (each ends with `\n`). */
export function numberedLines(n: number, mark?: (i: number) => string): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(`line ${i}${mark ? mark(i) : ''}\n`);
  return out.join('');
}

/** True while a process with this pid runs (a zombie awaiting its reaper has stopped running). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** Waits up to `ms` for a pid to stop running. */
export async function waitGone(pid: number, ms = 15_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (!alive(pid)) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return !alive(pid);
}
