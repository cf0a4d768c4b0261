/**
 * A search over a local file (docs/contracts.md §2.10): workers read it by descriptor, hash the chunks not yet
 * verified and match each piece while it is in cache.
 */
import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { EvidenceError } from '../../errors.js';
import { checkChunks, chunkCount, type Manifest, type OpenedFile } from '../../integrity/integrity.js';
import {
  isSet,
  lookupVerifiedOrMarked,
  rememberVerified,
  setBit,
  verifiedChunkStats,
} from '../../integrity/verifiedChunks.js';
import type { VerifiedMarks } from '../../integrity/verifiedMarks.js';
import { mergeLanes, type LaneResult } from './patternMerge.js';
import type { FromWorker, PatternSearchResult, ToWorker } from './patternProtocol.js';
import {
  PATTERN_TIMEOUT_MESSAGE,
  patternFailure,
  SEARCH_CANCELLED_MESSAGE,
  SearchDeadlineError,
} from './searchErrors.js';
import { pieceBytesOf, setupOf, type PatternSearchOptions } from './searchSetup.js';
import { acquireWorker, releaseWorker, startedWorkers, WORKER_START_MS } from './workerPool.js';

/** Small enough to be read, hashed and matched while it is in the processor's cache. */
const FILE_PIECE_BYTES = 256 * 1024;

/** Balances hashing between the two threads. */
const MAIN_HASH_SHARE = 0.6;

const PROGRESS_TICK_MS = 25;

/**
 * Threat model: docs/contracts.md §1.1. The file's identity is taken before and after: when it changed, the search
 * fails as a digest mismatch, so every read saw the same bytes.
 */
export async function searchFile(
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
    // The descriptor is closed only once stopped workers ended: a reused descriptor number could name another file.
    if (!clean) await Promise.race([Promise.all(ended), new Promise((r) => setTimeout(r, TERMINATE_WAIT_MS).unref())]);
  }
}

const TERMINATE_WAIT_MS = 2_000;

/** Below it a second worker costs more than it saves. */
const SPLIT_MIN_BYTES = 8 * 1024 * 1024;

interface Lane {
  readonly from: number;
  readonly to: number;
  /** The first lane of a split completes the line still pending past `to`. */
  readonly finish: boolean;
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
 * No new piece within `budgetMs` of the worker's start is the catastrophic-pattern timeout; a rejection of this
 * thread's hashing fails the search at once.
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

/** Rejects with a digest mismatch on the first chunk that differs or the file ending early. */
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
