/**
 * Marks of whole verified files on disk (docs/contracts.md §1.1), so a new process need not re-hash what another
 * verified; git's index kept on disk. A lost mark only costs a re-hash, so nothing here is durable and errors are
 * swallowed; the file is rewritten when it grows past its bound.
 */
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { frameLine, unframeLine } from './checkedLines.js';
import { readFullAt, tempNameFor } from '../files/localFile.js';
import { Lru } from '../lru.js';

/** A leading dot: never a run id. */
export const VERIFIED_MARKS_FILE = '.verified-v1';

const KEEP_MARKS = 4096;
const MAX_FILE_BYTES = 2 * KEEP_MARKS * 160;

/** After a failed rewrite (a full disk), appends wait this long. */
const REWRITE_BACKOFF_MS = 60_000;

const KEY = /^[\x21-\x7e]{1,256}$/;

export class VerifiedMarks {
  private readonly keys = new Lru<string, true>({ maxEntries: KEEP_MARKS });
  /** Which file: `ino:birthtime`. */
  private readOffset = 0;
  private readId: string | undefined;
  private rewriteFailedAt = 0;
  /** Concurrent lookups share one refresh. */
  private refreshing: Promise<void> | undefined;

  constructor(readonly file: string) {}

  async has(key: string): Promise<boolean> {
    if (this.keys.has(key)) return true;
    await this.refresh();
    return this.keys.has(key);
  }

  /** Best effort: a failure only means the next process hashes again. */
  async add(key: string): Promise<void> {
    if (!KEY.test(key) || this.keys.has(key)) return;
    this.remember(key);
    try {
      const line = encode(key);
      const st = await fsp.stat(this.file).catch(() => undefined);
      if (st && st.size + line.length > MAX_FILE_BYTES) {
        if (Date.now() - this.rewriteFailedAt < REWRITE_BACKOFF_MS) return;
        await this.refresh();
        await this.rewrite();
        return;
      }
      await fsp.mkdir(path.dirname(this.file), { recursive: true });
      await fsp.appendFile(this.file, line);
    } catch {
      // Best effort: a lost mark only costs a re-hash.
    }
  }

  /** Starts over when the file was replaced or shortened. */
  private refresh(): Promise<void> {
    this.refreshing ??= this.readNew()
      .catch(() => undefined)
      .finally(() => {
        this.refreshing = undefined;
      });
    return this.refreshing;
  }

  private async readNew(): Promise<void> {
    let fh: fsp.FileHandle;
    try {
      fh = await fsp.open(this.file, 'r');
    } catch {
      return;
    }
    try {
      const st = await fh.stat({ bigint: true });
      const size = Number(st.size);
      // A rewrite may reuse the freed inode: the birth time tells them apart.
      const id = `${st.dev}:${st.ino}:${st.birthtimeNs}`;
      if (id !== this.readId || size < this.readOffset) {
        this.readId = id;
        this.readOffset = 0;
      }
      // A file grown past the bound is read from its newest part (the partial line there is skipped, as a torn one
      // would be).
      if (size - this.readOffset > MAX_FILE_BYTES) this.readOffset = size - MAX_FILE_BYTES;
      if (size === this.readOffset) return;
      const buf = Buffer.allocUnsafe(size - this.readOffset);
      const got = await readFullAt(fh, buf, this.readOffset);
      // The last segment may still be being written, so it is read again next time unless it checks out.
      let start = buf.indexOf(10);
      if (start === -1 || start >= got) return;
      let consumed = start;
      while (start < got) {
        let end = buf.indexOf(10, start + 1);
        if (end === -1 || end > got) end = got;
        const key = decode(buf, start + 1, end);
        if (key !== undefined) this.remember(key);
        if (end < got || key !== undefined) consumed = end;
        start = end;
      }
      this.readOffset += consumed;
    } finally {
      await fh.close();
    }
  }

  private remember(key: string): void {
    this.keys.set(key, true);
  }

  private async rewrite(): Promise<void> {
    const temp = tempNameFor(this.file);
    try {
      await fsp.writeFile(temp, Buffer.concat([...this.keys.keys()].map(encode)), { flag: 'wx' });
      await fsp.rename(temp, this.file);
    } catch {
      this.rewriteFailedAt = Date.now();
      await fsp.rm(temp, { force: true }).catch(() => undefined);
    }
  }
}

function encode(key: string): Buffer {
  return frameLine(Buffer.from(key, 'latin1'));
}

function decode(buf: Buffer, start: number, end: number): string | undefined {
  const key = unframeLine(buf, start, end)?.toString('latin1');
  return key !== undefined && KEY.test(key) ? key : undefined;
}
