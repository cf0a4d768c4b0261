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
 * each line, `identity|manifestDigest`, is framed as the catalog's lines are
 * (checkedLines.ts): a torn or altered line fails its checksum and is ignored. A lost
 * mark only costs a re-hash, so nothing here must be durable: no fsync, errors are
 * swallowed, and a rewrite that races another process's append may drop that mark.
 *
 * Bounded: when the file passes `MAX_FILE_BYTES` the next writer rewrites it (temporary
 * file + rename) with the newest `KEEP_MARKS` marks it knows; readers notice the new file
 * (another inode, or a shorter one) and read it from the start. In memory at most
 * `KEEP_MARKS` keys.
 */
import { randomBytes } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { frameLine, unframeLine } from './checkedLines.js';
import { processExists } from './localFile.js';

/** File name inside `<root>/<tenant>/` (a leading dot: never a run id, which is `[a-z0-9-]`). */
export const VERIFIED_MARKS_FILE = '.verified-v1';

/** A rewrite keeps this many of the newest marks (about 150 bytes each). */
const KEEP_MARKS = 4096;
/** Size past which the next append rewrites the file. */
const MAX_FILE_BYTES = 2 * KEEP_MARKS * 160;

/** A key is `identity|manifestDigest`: printable ASCII without newline or tab. */
const KEY = /^[\x21-\x7e]{1,256}$/;

/** The marks of one tenant's blob folder. */
export class VerifiedMarks {
  /** Keys known, oldest first (a Map keeps insertion order; a re-added key moves last). */
  private readonly keys = new Map<string, true>();
  /** How far the file has been read, and which file (inode) that was. */
  private readOffset = 0;
  private readIno: bigint | undefined;
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
    this.refreshing ??= this.readNew().catch(() => undefined).finally(() => { this.refreshing = undefined; });
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
      if (st.ino !== this.readIno || size < this.readOffset) { this.readIno = st.ino; this.readOffset = 0; }
      if (size === this.readOffset) return;
      const buf = Buffer.allocUnsafe(size - this.readOffset);
      let got = 0;
      while (got < buf.length) {
        const { bytesRead } = await fh.read(buf, got, buf.length - got, this.readOffset + got);
        if (bytesRead === 0) break;
        got += bytesRead;
      }
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
    this.keys.delete(key);
    this.keys.set(key, true);
    while (this.keys.size > KEEP_MARKS) this.keys.delete(this.keys.keys().next().value!);
  }

  /**
   * Replaces the file with the newest marks this process knows (temporary file + rename);
   * first removes the temporary files of rewrites whose process is gone (rare: a rewrite
   * is one small write).
   */
  private async rewrite(): Promise<void> {
    const dir = path.dirname(this.file);
    const prefix = `${path.basename(this.file)}~`;
    for (const name of await fsp.readdir(dir).catch(() => [] as string[])) {
      const pid = name.startsWith(prefix) ? Number(/^(\d+)\./.exec(name.slice(prefix.length))?.[1]) : NaN;
      if (Number.isInteger(pid) && !processExists(pid)) await fsp.rm(path.join(dir, name), { force: true });
    }
    const temp = `${this.file}~${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      await fsp.writeFile(temp, Buffer.concat([...this.keys.keys()].map(encode)), { flag: 'wx' });
      await fsp.rename(temp, this.file);
    } catch {
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
