/**
 * Persisted marks of whole verified files (docs/contracts.md §1.1, "Marks kept on disk"):
 * the verified-chunk cache (verifiedChunks.ts) lives in one process, so without these a
 * new process (the MCP server, the command line, the editor after a restart) hashed every
 * chunk of a 256 MiB output on its first search. A mark says "the file with this identity
 * (device, inode, size, mtime and ctime in nanoseconds) was hashed whole and matched the
 * manifest with this digest"; it is written by the process that wrote the blob (its
 * manifest was hashed from the bytes written) or that verified every chunk in a search.
 * This is git's index kept on disk: stat data recorded once content was checked.
 *
 * One append-only file per tenant of the filesystem blob store, `<root>/<tenant>/.verified-v1`;
 * each line, `identity|manifestDigest`, is a self-checking line
 * (checkedLines.ts): a torn or altered line fails its checksum and is ignored. A lost
 * mark only costs a re-hash, so nothing here must be durable: no fsync, errors are
 * swallowed, and a rewrite that races another process's append may drop that mark.
 *
 * Bounded: when the file passes `MAX_FILE_BYTES` the next writer rewrites it (temporary
 * file + rename) with the newest `KEEP_MARKS` marks it knows; readers notice the new file
 * (another inode or birth time, or a shorter one) and read it from the start. A reader
 * reads at most `MAX_FILE_BYTES` (the newest part of a file grown past it). In memory at
 * most `KEEP_MARKS` keys. A rewrite's temporary file left by a killed process is removed
 * by the stores' start-up sweeps (docs/contracts.md §2.6), not here: listing the tenant
 * folder costs a name per run.
 */
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { frameLine, unframeLine } from './checkedLines.js';
import { readFullAt, tempNameFor } from '../files/localFile.js';
import { Lru } from '../lru.js';

/** File name inside `<root>/<tenant>/` (a leading dot: never a run id, which is `[a-z0-9-]`). */
export const VERIFIED_MARKS_FILE = '.verified-v1';

/** A rewrite keeps this many of the newest marks (about 150 bytes each). */
const KEEP_MARKS = 4096;
/** Size past which the next append rewrites the file. */
const MAX_FILE_BYTES = 2 * KEEP_MARKS * 160;

/** After a failed rewrite (a full disk, no permission), marks are appended again only after this long. */
const REWRITE_BACKOFF_MS = 60_000;

/** A key is `identity|manifestDigest`: printable ASCII without newline or tab. */
const KEY = /^[\x21-\x7e]{1,256}$/;

/** The marks of one tenant's blob folder. */
export class VerifiedMarks {
  /** Keys known, oldest first (a Map keeps insertion order; a re-added key moves last). */
  private readonly keys = new Lru<string, true>({ maxEntries: KEEP_MARKS });
  /** How far the file has been read, and which file (`ino:birthtime`) that was. */
  private readOffset = 0;
  private readId: string | undefined;
  /** When a rewrite last failed (0: never): appends wait `REWRITE_BACKOFF_MS` after it. */
  private rewriteFailedAt = 0;
  /** One refresh at a time: concurrent lookups share it. */
  private refreshing: Promise<void> | undefined;

  constructor(readonly file: string) {}

  /** True when the key is marked, in memory or in the file (its new lines are read first). */
  async has(key: string): Promise<boolean> {
    if (this.keys.has(key)) return true;
    await this.refresh();
    return this.keys.has(key);
  }

  /** Appends a mark (best effort: a failure only means the next process hashes again). */
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
      // Best effort (see the file comment).
    }
  }

  /** Reads the lines added since the last read; starts over when the file was replaced or shortened. */
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
      // A rewrite may reuse the freed inode: the birth time (where the file system keeps one) tells them apart.
      const id = `${st.dev}:${st.ino}:${st.birthtimeNs}`;
      if (id !== this.readId || size < this.readOffset) {
        this.readId = id;
        this.readOffset = 0;
      }
      // Never more than the bound at once: a file grown past it is read from its newest part
      // (the partial line where that starts is skipped below, as a torn one would be).
      if (size - this.readOffset > MAX_FILE_BYTES) this.readOffset = size - MAX_FILE_BYTES;
      if (size === this.readOffset) return;
      const buf = Buffer.allocUnsafe(size - this.readOffset);
      const got = await readFullAt(fh, buf, this.readOffset);
      // Lines start with "\n": every segment between two newlines is complete; the last one
      // may still be being written, so it is read again next time unless it checks out.
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

  /** Replaces the file with the newest marks this process knows (temporary file + rename). */
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
