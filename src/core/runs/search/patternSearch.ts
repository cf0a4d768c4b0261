/**
 * Pattern mode of `read_tool_output`, guarded against catastrophic backtracking: the
 * orchestration (docs/contracts.md §2.10). Pure pattern analysis lives in
 * `patternAnalysis.ts`, the matching in `patternWorker.ts` (its own bundle,
 * `dist/patternWorker.js`), the messages between them in `patternProtocol.ts`.
 *
 * A JavaScript regular expression cannot be interrupted on the thread that runs it,
 * so matching runs in a worker thread. Two ways to feed it:
 * - a local file (`RangeSource.openFile`, the filesystem blob store): `searchFile`, a
 *   worker reads the file itself by descriptor and matches each piece while it is in
 *   cache; a first page of a large file runs in two lanes (two workers, one half each),
 *   otherwise the chunks not yet verified are hashed on both threads (see there);
 * - any other source (S3, memory): `searchSlots`, below.
 *
 * `searchSlots`: the main thread reads the content in windows of
 * about 4 MiB into two reused SharedArrayBuffer slots, verifies every chunk digest in
 * place (`streamVerifiedInto`), and only then hands the slot to the worker as ~1 MiB
 * pieces (whole chunks); while the worker scans one slot the main thread fills the
 * other. No byte is copied to the worker and none is used before it is verified. The
 * worker acknowledges each piece; a piece it has not finished `budgetMs` after it
 * could start on it terminates the worker and the search fails with
 * `pattern search timed out …` instead of hanging the extension host. The whole search
 * also has one overall limit (`timeoutMs`) and honours an AbortSignal.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { EvidenceError } from '../../errors.js';
import {
  checkChunks,
  chunkCount,
  readVerified,
  streamVerifiedInto,
  type Manifest,
  type OpenedFile,
  type RangeSource,
} from '../../integrity/integrity.js';
import {
  isSet,
  lookupVerifiedOrMarked,
  rememberVerified,
  setBit,
  verifiedChunkStats,
} from '../../integrity/verifiedChunks.js';
import type { VerifiedMarks } from '../../integrity/verifiedMarks.js';
import {
  PATTERN_WORKER_MARK,
  type FromWorker,
  type MatcherSetup,
  type PatternSearchResult,
  type ToWorker,
} from './patternProtocol.js';
import { requiredLiteral } from './patternAnalysis.js';
import { mergeLanes, type LaneResult } from './patternMerge.js';

export { cannotMatchNewline, requiredLiteral } from './patternAnalysis.js';
export type { PatternMatch, PatternSearchResult } from './patternProtocol.js';

/** Parameters of one search. */
export interface PatternSearchOptions {
  readonly pattern: string;
  readonly offset: number;
  readonly limit: number;
  readonly maxLineChars: number;
  readonly maxContentChars: number;
  readonly budgetMs: number;
  /** Appended to a line cut at `maxLineChars` (counted within it). */
  readonly cutMarker: string;
  /** Binary content: matched as bytes (`grep -a`), shown escaped. */
  readonly binary?: boolean;
  /** Overall time limit of the whole search (none when absent). */
  readonly timeoutMs?: number;
  /** Aborting stops the search (the worker is terminated). */
  readonly signal?: AbortSignal;
}

/** Time allowed for the worker isolate to start (machine load, not the pattern). */
const WORKER_START_MS = 10_000;

/** @internal Longest line prefix the worker keeps for matching. */
export const MAX_MATCH_LINE_BYTES = 1024 * 1024;

/** Target size of a piece: the unit the worker acknowledges and the time budget covers. */
const PIECE_BYTES = 1024 * 1024;

/**
 * Piece of a file search (`searchFile`): read, hashed and matched while it is still in
 * the processor's cache (a 1 MiB piece measured slower on the 256 MiB bench log).
 */
const FILE_PIECE_BYTES = 256 * 1024;

/** Pieces per window: one physical read and one digest pass cover this many. */
const PIECES_PER_WINDOW = 4;

/** Message of the time guard. */
export const PATTERN_TIMEOUT_MESSAGE =
  'pattern search timed out: the pattern backtracks too much on this output; use a simpler pattern';

/** Message of a search stopped by its overall time limit (`timeoutMs`). */
function searchDeadlineMessage(timeoutMs: number, searchedBytes: number, totalBytes: number): string {
  return (
    `pattern search stopped at its time limit (${timeoutMs} ms) after ${searchedBytes} of ${totalBytes} bytes; ` +
    `no partial count is given; ` +
    `use a more specific pattern or raise the search time limit`
  );
}

/**
 * A search stopped by its time limit: an `invalidArgument` like every stop the caller can
 * act on, told apart by its class so `evidence_search` can end with a partial answer
 * (docs/contracts.md §2.11) rather than fail.
 */
export class SearchDeadlineError extends EvidenceError {
  constructor(timeoutMs: number, searchedBytes: number, totalBytes: number) {
    super('invalidArgument', searchDeadlineMessage(timeoutMs, searchedBytes, totalBytes));
  }
}

/** Message of a search its caller cancelled. */
export const SEARCH_CANCELLED_MESSAGE = 'pattern search cancelled';

/**
 * Idle workers kept between searches (a fresh isolate costs tens of milliseconds, more
 * under tsx): taken by the next search, returned after a clean `done`, terminated after
 * anything else (a timed-out, cancelled or failed worker may still be busy or hold stale
 * messages). Unreferenced while idle, so they never keep a process alive.
 */
const idleWorkers: Worker[] = [];
const startedWorkers = new WeakSet<Worker>();
/** Idle workers kept: one per lane of a split search (§2.10). */
const MAX_IDLE_WORKERS = 2;

function acquireWorker(): Worker {
  const w = idleWorkers.pop() ?? startWorker();
  w.ref();
  return w;
}

/** Returns the worker to the idle list, or terminates it (the promise of its end). */
function releaseWorker(w: Worker, clean: boolean): Promise<unknown> {
  w.removeAllListeners('message');
  w.removeAllListeners('error');
  w.removeAllListeners('exit');
  if (clean && idleWorkers.length < MAX_IDLE_WORKERS) {
    idleWorkers.push(w);
    const drop = (): void => {
      const i = idleWorkers.indexOf(w);
      if (i !== -1) idleWorkers.splice(i, 1);
    };
    w.on('error', drop);
    w.on('exit', drop);
    w.unref();
    return Promise.resolve();
  }
  return w.terminate();
}

/**
 * Streams the verified content through a matching worker. The pattern must already be
 * known to compile (the caller reports syntax errors). Stops with an `invalidArgument`
 * error when one piece takes longer than `budgetMs` (catastrophic backtracking), when the
 * whole search passes `timeoutMs`, or when `signal` aborts (docs/contracts.md, reader
 * section); in every case the worker is terminated.
 */
export async function searchPattern(
  source: RangeSource,
  manifest: Manifest,
  options: PatternSearchOptions,
): Promise<PatternSearchResult> {
  if (options.signal?.aborted) throw new EvidenceError('invalidArgument', SEARCH_CANCELLED_MESSAGE);
  if (await lacksRequiredLiteral(source, manifest, options)) return { totalMatches: 0, matches: [], cut: false };
  const file = manifest.byteCount > 0 ? await source.openFile?.() : undefined;
  if (!file) return searchSlots(source, manifest, options);
  try {
    return await searchFile(file, manifest, options, source.verifiedMarks);
  } finally {
    await file.close();
  }
}

/** Outputs up to this size are first checked for the pattern's required literal on this thread. */
const LITERAL_CHECK_MAX_BYTES = 64 * 1024;

/**
 * True when a small text output (every byte read and verified here) does not contain the
 * literal every match of the pattern must contain (`requiredLiteral`, sound by
 * construction): it then has no match, and no worker is asked. `evidence_search` over
 * thousands of small outputs spent most of its time in worker round trips for outputs
 * that could not match (docs/contracts.md §2.11). The check is `indexOf` over the bytes
 * — linear, so safe on this thread whatever the pattern; text content is valid UTF-8, so
 * a line containing the literal contains its UTF-8 bytes. Binary content is searched
 * as bytes by other rules and is not checked here.
 */
async function lacksRequiredLiteral(
  source: RangeSource,
  manifest: Manifest,
  options: PatternSearchOptions,
): Promise<boolean> {
  if (options.binary || manifest.byteCount === 0 || manifest.byteCount > LITERAL_CHECK_MAX_BYTES) return false;
  const literal = requiredLiteral(options.pattern);
  // U+FFFD may stand for bytes that are not its UTF-8 encoding (a decoder's replacement).
  if (literal === null || literal.includes('\uFFFD')) return false;
  const bytes = await readVerified(source, manifest, 0, manifest.byteCount);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).indexOf(Buffer.from(literal, 'utf8')) === -1;
}

/** The matcher's parameters for one search. */
function setupOf(manifest: Manifest, options: PatternSearchOptions): MatcherSetup {
  return {
    pattern: options.pattern,
    offset: options.offset,
    limit: options.limit,
    maxLineChars: options.maxLineChars,
    maxContentChars: options.maxContentChars,
    maxLineBytes: MAX_MATCH_LINE_BYTES,
    cutMarker: options.cutMarker,
    binary: options.binary ?? false,
    chunkSize: manifest.chunkSize,
    chunkNewlines: manifest.chunkNewlines,
  };
}

/**
 * Pieces are whole chunks (verification is per chunk): `target` bytes at the default chunk
 * size, and never more than 16 chunks, so small chunks (tests) make many pieces.
 */
function pieceBytesOf(manifest: Manifest, target = PIECE_BYTES): number {
  const cs = manifest.chunkSize;
  return Math.max(1, Math.min(16, Math.floor(target / cs))) * cs;
}

/**
 * Share of the chunks still to hash that the main thread hashes on a file search (the
 * last ones); the worker hashes the first ones while it also reads and matches every
 * piece, so this share balances the two threads on two cores.
 */
const MAIN_HASH_SHARE = 0.6;

/** How often the main thread looks at the worker's progress counter during a file search. */
const PROGRESS_TICK_MS = 25;

/**
 * A search over a local file (docs/contracts.md §2.10, threat model in §1.1): a worker
 * reads the file by descriptor and matches each piece while it is in cache. A first page
 * of a large file is split in two lanes, each hashing the chunks of its half not already
 * in the verified-chunk cache; otherwise one worker hashes the first of those chunks
 * before it matches them and this thread the last ones, from its own reads of the same
 * open file. Every thread reads one file whose identity (device, inode, size, mtime,
 * ctime) is taken before and after the search: when it changed, the search fails as a
 * digest mismatch, so all reads saw the same bytes under the cache's trust. A piece
 * overrunning `budgetMs`, the overall `timeoutMs` and `signal` stop the workers as in the
 * slot search.
 */
async function searchFile(
  file: OpenedFile,
  manifest: Manifest,
  options: PatternSearchOptions,
  marks: VerifiedMarks | undefined,
): Promise<PatternSearchResult> {
  const { signal } = options;
  const overall = Date.now() + (options.timeoutMs ?? Number.MAX_SAFE_INTEGER / 2);
  const before = await file.stat();
  if (before.size !== manifest.byteCount) throw new EvidenceError('digestMismatch');
  const cs = manifest.chunkSize;
  const chunks = chunkCount(manifest.byteCount, cs);
  const known = await lookupVerifiedOrMarked(before.identity, manifest, marks);
  const todo: number[] = [];
  for (let i = 0; i < chunks; i++) if (!known || !isSet(known, i)) todo.push(i);
  verifiedChunkStats.skipped += chunks - todo.length;
  const pieceBytes = pieceBytesOf(manifest, FILE_PIECE_BYTES);
  // A first page of a large file is split in two lanes at a chunk boundary, each lane a
  // worker that reads, hashes (the chunks of its range not yet verified) and matches its
  // half; otherwise one worker reads and matches everything while this thread hashes the
  // last chunks not yet verified (MAIN_HASH_SHARE).
  const split = options.offset === 0 && manifest.byteCount >= SPLIT_MIN_BYTES && availableParallelism() >= 2;
  const lanes: Lane[] = [];
  let mainChunks: number[] = [];
  if (split) {
    const middle = Math.floor(chunks / 2);
    let startLine = 0;
    for (let c = 0; c < middle; c++) startLine += manifest.chunkNewlines[c]!;
    lanes.push(
      laneOf(
        0,
        middle * cs,
        true,
        0,
        todo.filter((i) => i < middle),
        chunks,
      ),
    );
    lanes.push(
      laneOf(
        middle * cs,
        manifest.byteCount,
        false,
        startLine,
        todo.filter((i) => i >= middle),
        chunks,
      ),
    );
  } else {
    const first = todo.length === 0 ? chunks : todo[Math.floor(todo.length * (1 - MAIN_HASH_SHARE))]!;
    lanes.push(
      laneOf(
        0,
        manifest.byteCount,
        false,
        0,
        todo.filter((i) => i < first),
        chunks,
      ),
    );
    mainChunks = todo.filter((i) => i >= first);
  }
  const searched = (): number =>
    Math.min(
      manifest.byteCount,
      lanes.reduce((n, l) => n + Atomics.load(l.progress, 0) * pieceBytes, 0),
    );
  const workers = lanes.map(() => acquireWorker());
  let failure: Error | undefined;
  let clean = false;
  let stopped: EvidenceError | undefined;
  const checkStop = (): void => {
    if (stopped) throw stopped;
    if (signal?.aborted) throw new EvidenceError('invalidArgument', SEARCH_CANCELLED_MESSAGE);
    if (Date.now() >= overall) throw new SearchDeadlineError(options.timeoutMs!, searched(), manifest.byteCount);
  };
  try {
    const replies = workers.map((worker, i) => {
      const reply = new Promise<FromWorker>((resolve) => {
        worker.on('message', (r: FromWorker) => {
          if (r.type === 'ready') startedWorkers.add(worker);
          else resolve(r);
        });
        worker.on('error', (e) => {
          failure = e;
          resolve({ type: 'error', message: e.message });
        });
        worker.on('exit', () => resolve({ type: 'error', message: 'pattern worker exited' }));
      });
      const lane = lanes[i]!;
      worker.postMessage({
        type: 'file',
        setup: setupOf(manifest, options),
        fd: file.fd,
        byteCount: manifest.byteCount,
        pieceBytes,
        from: lane.from,
        to: lane.to,
        finish: lane.finish,
        startLine: lane.startLine,
        hash: lane.hash,
        chunkDigests: manifest.chunkDigests,
        progress: lane.progress.buffer as SharedArrayBuffer,
      } satisfies ToWorker);
      return reply;
    });
    const mine = hashFileChunks(file, manifest, mainChunks, checkStop);
    let rs: FromWorker[];
    try {
      rs = await watchFileSearch(
        workers,
        replies,
        mine,
        lanes.map((l) => l.progress),
        searched,
        manifest.byteCount,
        overall,
        options,
      );
    } catch (e) {
      // Stops this thread's hashing too; its own rejection is then expected and ignored.
      stopped = e as EvidenceError;
      mine.catch(() => undefined);
      throw e;
    }
    const done: Extract<FromWorker, { type: 'done' }>[] = [];
    for (const r of rs) {
      if (r.type === 'mismatch') throw new EvidenceError('digestMismatch');
      if (r.type === 'error') throw patternFailure(r.message, failure);
      if (r.type !== 'done') throw new EvidenceError('backend', 'pattern search failed');
      done.push(r);
    }
    clean = true;
    await mine;
    for (const r of done) verifiedChunkStats.hashed += r.hashed ?? 0;
    const after = await file.stat();
    if (after.identity !== before.identity) throw new EvidenceError('digestMismatch');
    const verified = known ? Uint8Array.from(known) : new Uint8Array(Math.ceil(chunks / 8));
    for (const i of todo) setBit(verified, i);
    await rememberVerified(before.identity, manifest, verified, marks);
    const [a, b] = done;
    const r = b ? mergeLanes(laneResult(a!), laneResult(b), options.limit, options.maxContentChars) : a!;
    return { totalMatches: r.totalMatches, matches: r.matches, cut: r.cut };
  } finally {
    const ended = workers.map((w) => releaseWorker(w, clean));
    // A stopped worker may still be reading: the caller closes the descriptor only once it
    // has ended (else a reused descriptor number could name another file), waiting at most
    // TERMINATE_WAIT_MS.
    if (!clean) await Promise.race([Promise.all(ended), new Promise((r) => setTimeout(r, TERMINATE_WAIT_MS).unref())]);
  }
}

/** Longest wait for stopped workers to end before their file is closed. */
const TERMINATE_WAIT_MS = 2_000;

/** Smallest file split in two lanes: below it a second worker costs more than it saves. */
const SPLIT_MIN_BYTES = 8 * 1024 * 1024;

/** One lane of a file search: its byte range, where its lines start, the chunks it hashes, its progress counter. */
interface Lane {
  readonly from: number;
  readonly to: number;
  /** Past `to`, complete the line still pending (the first lane of a split). */
  readonly finish: boolean;
  /** Lines that end before `from`. */
  readonly startLine: number;
  readonly hash: Uint8Array;
  readonly progress: Int32Array;
}

function laneOf(
  from: number,
  to: number,
  finish: boolean,
  startLine: number,
  hashChunks: readonly number[],
  chunks: number,
): Lane {
  const hash = new Uint8Array(Math.ceil(chunks / 8));
  for (const i of hashChunks) setBit(hash, i);
  return { from, to, finish, startLine, hash, progress: new Int32Array(new SharedArrayBuffer(4)) };
}

function laneResult(r: Extract<FromWorker, { type: 'done' }>): LaneResult {
  return { totalMatches: r.totalMatches, matches: r.matches, cut: r.cut, stoppedByBudget: r.stoppedByBudget ?? false };
}

/**
 * Waits for the worker's answer to a file search while watching its progress counter:
 * no new piece within `budgetMs` (counted once the worker has started) is the
 * catastrophic-pattern timeout, `overall` the search's deadline, `signal` its cancellation;
 * a rejection of `mine` (this thread's hashing) fails the search at once.
 */
function watchFileSearch(
  workers: readonly Worker[],
  replies: readonly Promise<FromWorker>[],
  mine: Promise<unknown>,
  progress: readonly Int32Array[],
  searched: () => number,
  byteCount: number,
  overall: number,
  options: PatternSearchOptions,
): Promise<FromWorker[]> {
  return new Promise<FromWorker[]>((resolve, reject) => {
    const t0 = Date.now();
    const seen = progress.map(() => 0);
    const since = progress.map(() => t0);
    const got: (FromWorker | undefined)[] = replies.map(() => undefined);
    let settled = false;
    const finish = (f: () => void): void => {
      if (settled) return;
      settled = true;
      clearInterval(timer);
      options.signal?.removeEventListener('abort', onAbort);
      f();
    };
    const onAbort = (): void => finish(() => reject(new EvidenceError('invalidArgument', SEARCH_CANCELLED_MESSAGE)));
    options.signal?.addEventListener('abort', onAbort);
    const timer = setInterval(
      () => {
        const now = Date.now();
        if (now >= overall) {
          finish(() => reject(new SearchDeadlineError(options.timeoutMs!, searched(), byteCount)));
          return;
        }
        workers.forEach((w, i) => {
          if (got[i]) return;
          const done = Atomics.load(progress[i]!, 0);
          const started = startedWorkers.has(w);
          if (done !== seen[i] || !started) {
            seen[i] = done;
            since[i] = now;
          }
          if (!started && now - t0 > Math.max(options.budgetMs, WORKER_START_MS))
            finish(() => reject(patternFailure('worker did not start', undefined)));
          else if (started && now - since[i]! > options.budgetMs)
            finish(() => reject(new EvidenceError('invalidArgument', PATTERN_TIMEOUT_MESSAGE)));
        });
      },
      Math.max(1, Math.min(PROGRESS_TICK_MS, options.budgetMs)),
    );
    replies.forEach((p, i) =>
      p.then(
        (r) => {
          got[i] = r;
          // A lane that failed decides at once; otherwise the answer waits for every lane.
          if (r.type !== 'done') finish(() => resolve([r]));
          else if (got.every((x) => x !== undefined)) finish(() => resolve(got as FromWorker[]));
        },
        () => undefined,
      ),
    );
    mine.catch((e: unknown) => finish(() => reject(e)));
  });
}

/**
 * Hashes `chunks` (ascending) of `file` against the manifest, reading contiguous runs of at
 * most one piece at a time; rejects with a digest mismatch on the first chunk that differs
 * or the file ending early, and with `checkStop`'s error when the search is stopped.
 */
async function hashFileChunks(
  file: OpenedFile,
  m: Manifest,
  chunks: readonly number[],
  checkStop: () => void,
): Promise<void> {
  const cs = m.chunkSize;
  const per = pieceBytesOf(m) / cs;
  const buf = new Uint8Array(per * cs);
  for (let k = 0; k < chunks.length;) {
    checkStop();
    const first = chunks[k]!;
    let n = 1;
    while (n < per && k + n < chunks.length && chunks[k + n] === first + n) n++;
    const start = first * cs;
    const end = Math.min((first + n) * cs, m.byteCount);
    const got = await file.read(buf.subarray(0, end - start), start);
    checkChunks(m, first, buf.subarray(0, got), end - start);
    k += n;
  }
}

async function searchSlots(
  source: RangeSource,
  manifest: Manifest,
  options: PatternSearchOptions,
): Promise<PatternSearchResult> {
  const { signal } = options;
  const overall = Date.now() + (options.timeoutMs ?? Number.MAX_SAFE_INTEGER / 2);
  // A slot holds a window of a few pieces, never more than the content.
  const pieceBytes = pieceBytesOf(manifest);
  const slotBytes = Math.max(1, Math.min(PIECES_PER_WINDOW * pieceBytes, manifest.byteCount));
  const slots = [new SharedArrayBuffer(slotBytes), new SharedArrayBuffer(slotBytes)];
  const worker = acquireWorker();
  const setup = setupOf(manifest, options);
  const post = (m: ToWorker): void => worker.postMessage(m);
  post({ type: 'search', setup, slots });
  const replies: FromWorker[] = [];
  let waiting: ((r: FromWorker) => void) | undefined;
  let stop: ((e: Error) => void) | undefined;
  let failure: Error | undefined;
  let lastReply = 0;
  let searched = 0;
  const deliver = (r: FromWorker): void => {
    lastReply = Date.now();
    if (waiting) {
      const w = waiting;
      waiting = undefined;
      w(r);
    } else replies.push(r);
  };
  worker.on('message', (r: FromWorker) => deliver(r));
  worker.on('error', (e) => {
    failure = e;
    deliver({ type: 'error', message: e.message });
  });
  worker.on('exit', () => deliver({ type: 'error', message: 'pattern worker exited' }));
  const deadlineError = (): EvidenceError => new SearchDeadlineError(options.timeoutMs!, searched, manifest.byteCount);
  const cancelled = (): EvidenceError => new EvidenceError('invalidArgument', SEARCH_CANCELLED_MESSAGE);
  const onAbort = (): void => stop?.(cancelled());
  signal?.addEventListener('abort', onAbort);
  const checkStop = (): void => {
    if (signal?.aborted) throw cancelled();
    if (Date.now() >= overall) throw deadlineError();
  };

  /** The next reply; rejects at `deadline` (a piece's budget) or the overall limit, whichever is first, or on abort. */
  const next = (deadline: number): Promise<FromWorker> => {
    const ready = replies.shift();
    if (ready) return Promise.resolve(ready);
    checkStop();
    return new Promise<FromWorker>((resolve, reject) => {
      const byOverall = overall <= deadline;
      const timer = setTimeout(
        () => {
          waiting = undefined;
          stop = undefined;
          reject(byOverall ? deadlineError() : new EvidenceError('invalidArgument', PATTERN_TIMEOUT_MESSAGE));
        },
        Math.max(0, Math.min(deadline, overall) - Date.now()),
      );
      waiting = (r) => {
        clearTimeout(timer);
        stop = undefined;
        resolve(r);
      };
      stop = (e) => {
        clearTimeout(timer);
        waiting = undefined;
        stop = undefined;
        reject(e);
      };
    });
  };
  // Post times and sizes of the pieces not yet acknowledged, oldest first. The worker
  // takes them in order, so the oldest one's clock starts when it was posted or when the
  // worker answered last, whichever is later.
  const pending: { at: number; bytes: number }[] = [];
  // A fresh isolate starts while the first windows are read and verified (pieces posted
  // before it listens wait in its port). Starting is not the pattern's time: the budget
  // only counts from its first reply.
  const awaitStart = async (): Promise<void> => {
    if (startedWorkers.has(worker)) return;
    const r = await next(Date.now() + Math.max(options.budgetMs, WORKER_START_MS));
    if (r.type !== 'ready') throw patternFailure(r.type === 'error' ? r.message : 'worker did not start', failure);
    startedWorkers.add(worker);
  };
  const expectAck = async (): Promise<void> => {
    await awaitStart();
    const r = await next(Math.max(pending[0]!.at, lastReply) + options.budgetMs);
    if (r.type === 'error') throw patternFailure(r.message, failure);
    if (r.type !== 'ack') throw new EvidenceError('backend', 'pattern search failed');
    searched += pending.shift()!.bytes;
  };

  let clean = false;
  try {
    for await (const w of streamVerifiedInto(
      source,
      manifest,
      slots.map((s) => new Uint8Array(s)),
    )) {
      checkStop();
      let pieces = 0;
      for (let off = 0; off < w.bytes.length; off += pieceBytes, pieces++) {
        const length = Math.min(pieceBytes, w.bytes.length - off);
        post({ type: 'piece', slot: w.slot, offset: off, length, start: w.start + off });
        pending.push({ at: Date.now(), bytes: length });
      }
      // The generator refills the other slot next: the worker must be done with it.
      while (pending.length > pieces) await expectAck();
    }
    while (pending.length > 0) await expectAck();
    await awaitStart();
    post({ type: 'end' });
    const r = await next(Date.now() + options.budgetMs);
    if (r.type === 'error') throw patternFailure(r.message, failure);
    if (r.type !== 'done') throw new EvidenceError('backend', 'pattern search failed');
    clean = true;
    return { totalMatches: r.totalMatches, matches: r.matches, cut: r.cut };
  } finally {
    signal?.removeEventListener('abort', onAbort);
    // Not awaited: the answer does not wait for the isolate to be torn down (the slots stay referenced by it).
    void releaseWorker(worker, clean);
  }
}

function patternFailure(message: string, failure: Error | undefined): EvidenceError {
  // Out of memory in the isolate (resourceLimits) reads like a timeout to the model: the pattern is too costly.
  if (failure && /memory/i.test(failure.message)) return new EvidenceError('invalidArgument', PATTERN_TIMEOUT_MESSAGE);
  return new EvidenceError('backend', `pattern search failed: ${message}`);
}

/**
 * The worker's entry: the bundle beside this one (`dist/patternWorker.js` next to
 * `dist/extension.js` and `dist/mcp.js`, see esbuild.js), or, when running from source
 * (tests, benchmarks under tsx), the TypeScript file through tsx's require hook. No
 * inspector flags or loaders from the parent: a bare, fast-starting isolate.
 */
function startWorker(): Worker {
  const options = {
    workerData: PATTERN_WORKER_MARK,
    execArgv: [],
    resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 8 },
  };
  const bundled = path.join(__dirname, 'patternWorker.js');
  if (existsSync(bundled)) return new Worker(bundled, options);
  const source = path.join(__dirname, 'patternWorker.ts');
  return new Worker(`require('tsx/cjs'); require(${JSON.stringify(source)});`, { ...options, eval: true });
}
