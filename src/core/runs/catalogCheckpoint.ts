/**
 * The catalog's checkpoint (docs/architecture.md §6): the in-memory index as
 * columns, saved beside the catalog so that opening a store reads one compact file and
 * only the catalog lines appended after it, instead of parsing every catalog line.
 *
 * File `.catalog-v1.ckpt`: `BEC1`, the JSON part's byte length (u32 LE), the JSON part
 * (string columns and rare fields, one length-prefixed document each), padding to 8
 * bytes, the numeric columns (f64 LE) and the sorted handle hashes (u32 LE), then a
 * crc32 (u32 LE) of everything before it. It names the catalog it was made from
 * (the header's random id) and the offset it covers; anything that does not match or
 * check is ignored and the catalog is read from its start, so a checkpoint can only
 * save time, never change an answer. It is replaced by rename, never written in place.
 */
import { randomBytes } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import { crc32 } from 'node:zlib';
import type { LogProblem } from './types.js';

const MAGIC = 'BEC1';

/** Numeric columns per run and per call (see `CatalogColumns`). */
export const RUN_NUMBERS = 7;
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
  /** Per run: id, startedAt, label ('' = none), finishedAt ('' = none), status ('' = none). */
  readonly runText: { readonly id: string[]; readonly s: string[]; readonly l: (string | null)[]; readonly f: (string | null)[]; readonly st: (string | null)[] };
  /** Per run (RUN_NUMBERS each): startedMs, z, m, blobBytes, callCount, profile-hash table index, flags (1 pinned, 2 ok, 4 tornTail). */
  readonly runNum: Float64Array;
  /** Rare per-run fields by run index. */
  readonly runSource: Record<string, unknown>;
  readonly runProblems: Record<string, readonly LogProblem[]>;
  /** Per call: id. */
  readonly callId: string[];
  /**
   * Per call (CALL_NUMBERS each): run index, startedMs, tool, status and slots table
   * indexes, bytes, blob, catOff, catLen, sub, flags (1 finished, 2 hasResult,
   * 4 ambiguous), reserved.
   */
  readonly callNum: Float64Array;
  /** Per call: offset and length of its `call_finished` line in the run log. */
  readonly callLog: Float64Array;
  /** Handle lookup, sorted by key: crc32 of a handle and the index of the call that minted it. */
  readonly hashKeys: Uint32Array;
  readonly hashCalls: Uint32Array;
}

/** Lets the event loop run between the pieces of a large read. */
function breathe(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * The JSON part is several documents (the small fields, then one per string column),
 * each preceded by its byte length (u32 LE), so a reader parses them one at a time with
 * the event loop free in between (one 10 MB parse would stall it).
 */
function jsonParts(c: CatalogColumns): Buffer[] {
  const meta = {
    catalogId: c.catalogId, tenant: c.tenant, offset: c.offset, built: c.built, table: c.table,
    runSource: c.runSource, runProblems: c.runProblems, runs: c.runText.id.length, calls: c.callId.length, hashes: c.hashKeys.length,
  };
  const docs = [meta, c.runText.id, c.runText.s, c.runText.l, c.runText.f, c.runText.st, c.callId];
  return docs.flatMap((d) => {
    const b = Buffer.from(JSON.stringify(d), 'utf8');
    const len = Buffer.alloc(4);
    len.writeUInt32LE(b.length, 0);
    return [len, b];
  });
}

/** Writes the checkpoint atomically (temporary file, then rename). */
export async function writeCheckpoint(file: string, c: CatalogColumns): Promise<void> {
  const parts = jsonParts(c);
  const jsonLen = parts.reduce((n, b) => n + b.length, 0);
  const head = Buffer.alloc(8);
  head.write(MAGIC, 0, 'latin1');
  head.writeUInt32LE(jsonLen, 4);
  const pad = Buffer.alloc((8 - ((8 + jsonLen) % 8)) % 8);
  const nums = [c.runNum, c.callNum, c.callLog, c.hashKeys, c.hashCalls].map((a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength));
  const body = Buffer.concat([head, ...parts, pad, ...nums]);
  const sum = Buffer.alloc(4);
  sum.writeUInt32LE(crc32(body) >>> 0, 0);
  const temp = `${file}~${randomBytes(6).toString('hex')}.tmp`;
  try {
    await fsp.writeFile(temp, Buffer.concat([body, sum]), { flag: 'wx' });
    await fsp.rename(temp, file);
  } catch (e) {
    await fsp.rm(temp, { force: true });
    throw e;
  }
}

type Meta = Pick<CatalogColumns, 'catalogId' | 'tenant' | 'offset' | 'built' | 'table' | 'runSource' | 'runProblems'> & { runs: number; calls: number; hashes: number };

/** Reads a checkpoint; undefined when missing, damaged or not this tenant's. */
export async function readCheckpoint(file: string, tenant: string): Promise<CatalogColumns | undefined> {
  const buf = await fsp.readFile(file).catch(() => undefined);
  if (!buf || buf.length < 16 || buf.toString('latin1', 0, 4) !== MAGIC) return undefined;
  if ((crc32(buf.subarray(0, buf.length - 4)) >>> 0) !== buf.readUInt32LE(buf.length - 4)) return undefined;
  try {
    const jsonLen = buf.readUInt32LE(4);
    let at = 8;
    const next = async (): Promise<unknown> => {
      const len = buf.readUInt32LE(at);
      const v: unknown = JSON.parse(buf.toString('utf8', at + 4, at + 4 + len));
      at += 4 + len;
      await breathe();
      return v;
    };
    const meta = (await next()) as Meta;
    if (meta.tenant !== tenant) return undefined;
    const runText = {
      id: (await next()) as string[], s: (await next()) as string[], l: (await next()) as (string | null)[],
      f: (await next()) as (string | null)[], st: (await next()) as (string | null)[],
    };
    const callId = (await next()) as string[];
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
    if (at !== buf.length - 4) return undefined;
    return { ...meta, runText, callId, runNum, callNum, callLog, hashKeys, hashCalls };
  } catch {
    return undefined;
  }
}
