/**
 * The catalog's checkpoint (docs/architecture.md, "Catalog"): the in-memory index as
 * columns, saved beside the catalog so that opening a store reads one compact file and
 * only the catalog lines appended after it, instead of parsing every catalog line.
 *
 * File `.catalog-v1.ckpt`: `BEC1`, the JSON part's byte length (u32 LE), the JSON part
 * (string columns and rare fields), padding to 8 bytes, the numeric columns (f64 LE),
 * then a crc32 (u32 LE) of everything before it. It names the catalog it was made from
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
}

/** Writes the checkpoint atomically (temporary file, then rename). */
export async function writeCheckpoint(file: string, c: CatalogColumns): Promise<void> {
  const json = Buffer.from(JSON.stringify({
    catalogId: c.catalogId, tenant: c.tenant, offset: c.offset, built: c.built, table: c.table, runText: c.runText,
    runSource: c.runSource, runProblems: c.runProblems, callId: c.callId, runs: c.runText.id.length, calls: c.callId.length,
  }), 'utf8');
  const head = Buffer.alloc(8);
  head.write(MAGIC, 0, 'latin1');
  head.writeUInt32LE(json.length, 4);
  const pad = Buffer.alloc((8 - ((8 + json.length) % 8)) % 8);
  const nums = [c.runNum, c.callNum, c.callLog].map((a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength));
  const body = Buffer.concat([head, json, pad, ...nums]);
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

/** Reads a checkpoint; undefined when missing, damaged or not this tenant's. */
export async function readCheckpoint(file: string, tenant: string): Promise<CatalogColumns | undefined> {
  const buf = await fsp.readFile(file).catch(() => undefined);
  if (!buf || buf.length < 16 || buf.toString('latin1', 0, 4) !== MAGIC) return undefined;
  if ((crc32(buf.subarray(0, buf.length - 4)) >>> 0) !== buf.readUInt32LE(buf.length - 4)) return undefined;
  try {
    const jsonLen = buf.readUInt32LE(4);
    const j = JSON.parse(buf.toString('utf8', 8, 8 + jsonLen)) as Omit<CatalogColumns, 'runNum' | 'callNum' | 'callLog'> & { runs: number; calls: number };
    if (j.tenant !== tenant) return undefined;
    let at = 8 + jsonLen + ((8 - ((8 + jsonLen) % 8)) % 8);
    // An aligned copy: the file's buffer may not start on an 8-byte boundary.
    const take = (n: number): Float64Array => {
      const out = new Float64Array(n);
      Buffer.from(out.buffer).set(buf.subarray(at, at + n * 8));
      at += n * 8;
      return out;
    };
    const runNum = take(j.runs * RUN_NUMBERS);
    const callNum = take(j.calls * CALL_NUMBERS);
    const callLog = take(j.calls * 2);
    if (at !== buf.length - 4) return undefined;
    return { ...j, runNum, callNum, callLog };
  } catch {
    return undefined;
  }
}
