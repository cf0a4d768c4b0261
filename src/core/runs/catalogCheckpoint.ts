/**
 * The catalog's checkpoint (docs/architecture.md §6): the in-memory index as
 * columns, saved beside the catalog so that opening a store reads one compact file and
 * only the catalog lines appended after it, instead of parsing every catalog line.
 *
 * File `.catalog-v1.ckpt`: `BEC4`, the JSON part's byte length (u32 LE), the JSON part
 * (small and sparse fields, then the run id and label columns in length-prefixed
 * documents of at most `TEXT_CHUNK` entries, so no single parse holds the event loop),
 * padding to 8 bytes, the numeric columns (f64 LE), the sorted handle hashes and run
 * keys (u32 LE), then a crc32
 * (u32 LE) of everything before it. The in-memory index has the same layout
 * (catalogIndex.ts), so loading adopts the columns as they are. It names the catalog it
 * was made from (the header's random id) and the offset it covers; anything that does
 * not match or check (a checkpoint of an earlier version, `BEC1`, too) is ignored and the catalog is read from its start, so a checkpoint can only
 * save time, never change an answer. It is replaced by rename, never written in place.
 */
import { randomBytes } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import { crc32 } from 'node:zlib';
import { yieldToLoop } from './slices.js';
import type { LogProblem } from './types.js';

const MAGIC = 'BEC4';
/** Entries of a string column per JSON document. */
const TEXT_CHUNK = 16_384;
/** Bytes checksummed between yields. */
const CRC_SLICE = 1024 * 1024;

/** Numeric columns per run and per call (see `CatalogColumns`). */
export const RUN_NUMBERS = 10;
export const CALL_NUMBERS = 12;

/** The index as columns: what a checkpoint holds. */
export interface CatalogColumns {
  readonly catalogId: string;
  readonly tenant: string;
  /** Catalog bytes covered (a line start). */
  readonly offset: number;
  readonly built: boolean;
  /** Small tables the columns index into (tools, statuses, slot lists, profile hashes). */
  readonly table: readonly string[];
  /** Distinct run sources, indexed by a run's source number. */
  readonly sources: readonly unknown[];
  /** Per run: id and label (null: none). */
  readonly runText: { readonly id: string[]; readonly l: (string | null)[] };
  /**
   * Rare text by row index: a run's recorded start and finish when not the `toISOString`
   * of its number, a call's id when not `<run token>-<n>` (almost always empty).
   */
  readonly sparse: { readonly sx: Record<string, string>; readonly fx: Record<string, string>; readonly callId: Record<string, string> };
  /**
   * Per run (RUN_NUMBERS each): startedMs, z, m, blobBytes, callCount, profile-hash table
   * index, flags (1 pinned, 2 ok, 4 tornTail), finishedMs (NaN: not finished), status
   * table index (-1: none), source index (-1: none).
   */
  readonly runNum: Float64Array;
  /** Rare per-run field by run index. */
  readonly runProblems: Record<string, readonly LogProblem[]>;
  /** Calls. */
  readonly calls: number;
  /**
   * Per call (CALL_NUMBERS each): run index, startedMs, tool, status and slots table
   * indexes, bytes, blob, catOff, catLen, sub, flags (1 finished, 2 hasResult,
   * 4 ambiguous), number n of a call id `<run token>-<n>` (0: the id is in `sparse.callId`).
   */
  readonly callNum: Float64Array;
  /** Per call: offset and length of its `call_finished` line in the run log. */
  readonly callLog: Float64Array;
  /** Handle lookup, sorted by key: crc32 of a handle and the index of the call that minted it. */
  readonly hashKeys: Uint32Array;
  readonly hashCalls: Uint32Array;
  /** Run lookup, sorted by key: crc32 of a run's token (else its id) and the run's index. */
  readonly runKeys: Uint32Array;
  readonly runKeyRuns: Uint32Array;
}

/** crc32 of buffers, a slice at a time with the loop free in between. */
async function crcOf(parts: readonly Uint8Array[], prior = 0): Promise<number> {
  let sum = prior;
  for (const p of parts) {
    for (let at = 0; at < p.length; at += CRC_SLICE) {
      sum = crc32(p.subarray(at, Math.min(p.length, at + CRC_SLICE)), sum);
      await yieldToLoop();
    }
  }
  return sum >>> 0;
}

function chunks<T>(column: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < column.length; i += TEXT_CHUNK) out.push(column.slice(i, i + TEXT_CHUNK));
  return out;
}

type Meta = Pick<CatalogColumns, 'catalogId' | 'tenant' | 'offset' | 'built' | 'table' | 'sources' | 'runProblems' | 'sparse' | 'calls'> & { runs: number; hashes: number };

/** The JSON part: the small fields, then every string column in chunks (one length-prefixed document each). */
async function jsonParts(c: CatalogColumns): Promise<Buffer[]> {
  const meta: Meta = {
    catalogId: c.catalogId, tenant: c.tenant, offset: c.offset, built: c.built, table: c.table, sources: c.sources,
    runProblems: c.runProblems, sparse: c.sparse, runs: c.runText.id.length, calls: c.calls, hashes: c.hashKeys.length,
  };
  const docs: unknown[] = [meta, ...[c.runText.id, c.runText.l].flatMap((col: readonly unknown[]) => chunks(col))];
  const out: Buffer[] = [];
  for (const d of docs) {
    const b = Buffer.from(JSON.stringify(d), 'utf8');
    const len = Buffer.alloc(4);
    len.writeUInt32LE(b.length, 0);
    out.push(len, b);
    await yieldToLoop();
  }
  return out;
}

/** Writes the checkpoint atomically (temporary file, then rename), in slices. */
export async function writeCheckpoint(file: string, c: CatalogColumns): Promise<void> {
  const parts = await jsonParts(c);
  const jsonLen = parts.reduce((n, b) => n + b.length, 0);
  const head = Buffer.alloc(8);
  head.write(MAGIC, 0, 'latin1');
  head.writeUInt32LE(jsonLen, 4);
  const pad = Buffer.alloc((8 - ((8 + jsonLen) % 8)) % 8);
  const nums = [c.runNum, c.callNum, c.callLog, c.hashKeys, c.hashCalls, c.runKeys, c.runKeyRuns].map((a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength));
  const all = [head, ...parts, pad, ...nums];
  const sum = Buffer.alloc(4);
  sum.writeUInt32LE(await crcOf(all), 0);
  all.push(sum);
  const temp = `${file}~${randomBytes(6).toString('hex')}.tmp`;
  try {
    const fh = await fsp.open(temp, 'wx');
    try {
      for (const b of all) {
        let off = 0;
        while (off < b.length) off += (await fh.write(b, off, b.length - off)).bytesWritten;
      }
    } finally {
      await fh.close();
    }
    await fsp.rename(temp, file);
  } catch (e) {
    await fsp.rm(temp, { force: true });
    throw e;
  }
}

/** Reads a checkpoint; undefined when missing, damaged, of another version or not this tenant's. */
export async function readCheckpoint(file: string, tenant: string): Promise<CatalogColumns | undefined> {
  const buf = await fsp.readFile(file).catch(() => undefined);
  if (!buf || buf.length < 16 || buf.toString('latin1', 0, 4) !== MAGIC) return undefined;
  if ((await crcOf([buf.subarray(0, buf.length - 4)])) !== buf.readUInt32LE(buf.length - 4)) return undefined;
  try {
    const jsonLen = buf.readUInt32LE(4);
    let at = 8;
    const next = async (): Promise<unknown> => {
      const len = buf.readUInt32LE(at);
      const v: unknown = JSON.parse(buf.toString('utf8', at + 4, at + 4 + len));
      at += 4 + len;
      await yieldToLoop();
      return v;
    };
    const column = async <T>(n: number): Promise<T[]> => {
      const out: T[] = [];
      for (let i = 0; i < n; i += TEXT_CHUNK) {
        const part = (await next()) as T[];
        if (!Array.isArray(part)) throw new Error('not a column');
        for (const x of part) out.push(x);
      }
      if (out.length !== n) throw new Error('column length');
      return out;
    };
    const meta = (await next()) as Meta;
    if (meta.tenant !== tenant) return undefined;
    const runText = { id: await column<string>(meta.runs), l: await column<string | null>(meta.runs) };
    if (at !== 8 + jsonLen) return undefined;
    at += (8 - ((8 + jsonLen) % 8)) % 8;
    // Aligned copies: the file's buffer may not start on an 8-byte boundary.
    const take = <T extends Float64Array | Uint32Array>(make: (n: number) => T, n: number): T => {
      const out = make(n);
      Buffer.from(out.buffer).set(buf.subarray(at, at + out.byteLength));
      at += out.byteLength;
      return out;
    };
    const f64 = (n: number): Float64Array => new Float64Array(n);
    const u32 = (n: number): Uint32Array => new Uint32Array(n);
    const runNum = take(f64, meta.runs * RUN_NUMBERS);
    const callNum = take(f64, meta.calls * CALL_NUMBERS);
    const callLog = take(f64, meta.calls * 2);
    const hashKeys = take(u32, meta.hashes);
    const hashCalls = take(u32, meta.hashes);
    const runKeys = take(u32, meta.runs);
    const runKeyRuns = take(u32, meta.runs);
    if (at !== buf.length - 4) return undefined;
    return { ...meta, runText, runNum, callNum, callLog, hashKeys, hashCalls, runKeys, runKeyRuns };
  } catch {
    return undefined;
  }
}
