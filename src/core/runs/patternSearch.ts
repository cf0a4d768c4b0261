/**
 * Pattern mode of `read_tool_output`, guarded against catastrophic backtracking: the
 * orchestration (docs/contracts.md §2.10). Pure pattern analysis lives in
 * `patternAnalysis.ts`, the matching in `patternWorker.ts` (its own bundle,
 * `dist/patternWorker.js`), the messages between them in `patternProtocol.ts`.
 *
 * A JavaScript regular expression cannot be interrupted on the thread that runs it,
 * so matching runs in a worker thread. The main thread reads the content in windows of
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
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { EvidenceError } from '../errors.js';
import { streamVerifiedInto, type Manifest, type RangeSource } from '../integrity.js';
import { PATTERN_WORKER_MARK, type FromWorker, type MatcherSetup, type PatternSearchResult, type ToWorker } from './patternProtocol.js';

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

/** Pieces per window: one physical read and one digest pass cover this many. */
const PIECES_PER_WINDOW = 4;

/** Message of the time guard. */
export const PATTERN_TIMEOUT_MESSAGE = 'pattern search timed out: the pattern backtracks too much on this output; use a simpler pattern';

/** Message of a search stopped by its overall time limit (`timeoutMs`). */
export function searchDeadlineMessage(timeoutMs: number, searchedBytes: number, totalBytes: number): string {
  return `pattern search stopped at its time limit (${timeoutMs} ms) after ${searchedBytes} of ${totalBytes} bytes; no partial count is given; use a more specific pattern or raise the search time limit`;
}

/** Message of a search its caller cancelled. */
export const SEARCH_CANCELLED_MESSAGE = 'pattern search cancelled';

/**
 * One idle worker kept between searches (a fresh isolate costs tens of milliseconds,
 * more under tsx): taken by the next search, returned after a clean `done`, terminated
 * after anything else (a timed-out, cancelled or failed worker may still be busy or hold
 * stale messages). Unreferenced while idle, so it never keeps a process alive.
 */
let idleWorker: Worker | undefined;
const startedWorkers = new WeakSet<Worker>();

function acquireWorker(): Worker {
  const w = idleWorker ?? startWorker();
  idleWorker = undefined;
  w.ref();
  return w;
}

function releaseWorker(w: Worker, clean: boolean): void {
  w.removeAllListeners('message');
  w.removeAllListeners('error');
  w.removeAllListeners('exit');
  if (clean && idleWorker === undefined) {
    idleWorker = w;
    w.on('error', () => { if (idleWorker === w) idleWorker = undefined; });
    w.on('exit', () => { if (idleWorker === w) idleWorker = undefined; });
    w.unref();
    return;
  }
  // Not awaited: the answer does not wait for the isolate to be torn down.
  void w.terminate();
}

/**
 * Streams the verified content through a matching worker. The pattern must already be
 * known to compile (the caller reports syntax errors). Stops with an `invalidArgument`
 * error when one piece takes longer than `budgetMs` (catastrophic backtracking), when the
 * whole search passes `timeoutMs`, or when `signal` aborts (docs/contracts.md, reader
 * section); in every case the worker is terminated.
 */
export async function searchPattern(source: RangeSource, manifest: Manifest, options: PatternSearchOptions): Promise<PatternSearchResult> {
  const { signal } = options;
  if (signal?.aborted) throw new EvidenceError('invalidArgument', SEARCH_CANCELLED_MESSAGE);
  const overall = Date.now() + (options.timeoutMs ?? Number.MAX_SAFE_INTEGER / 2);
  const cs = manifest.chunkSize;
  // Pieces are whole chunks (verification is per chunk): PIECE_BYTES at the default chunk
  // size, and never more than 16 chunks, so small chunks (tests) make many pieces. A slot
  // holds a window of a few pieces, never more than the content.
  const pieceBytes = Math.max(1, Math.min(16, Math.floor(PIECE_BYTES / cs))) * cs;
  const slotBytes = Math.max(1, Math.min(PIECES_PER_WINDOW * pieceBytes, manifest.byteCount));
  const slots = [new SharedArrayBuffer(slotBytes), new SharedArrayBuffer(slotBytes)];
  const worker = acquireWorker();
  const setup: MatcherSetup = {
    pattern: options.pattern, offset: options.offset, limit: options.limit, maxLineChars: options.maxLineChars,
    maxContentChars: options.maxContentChars, maxLineBytes: MAX_MATCH_LINE_BYTES, cutMarker: options.cutMarker, binary: options.binary ?? false,
    chunkSize: manifest.chunkSize, chunkNewlines: manifest.chunkNewlines,
  };
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
    if (waiting) { const w = waiting; waiting = undefined; w(r); } else replies.push(r);
  };
  worker.on('message', (r: FromWorker) => deliver(r));
  worker.on('error', (e) => { failure = e; deliver({ type: 'error', message: e.message }); });
  worker.on('exit', () => deliver({ type: 'error', message: 'pattern worker exited' }));
  const deadlineError = (): EvidenceError => new EvidenceError('invalidArgument', searchDeadlineMessage(options.timeoutMs!, searched, manifest.byteCount));
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
      const timer = setTimeout(() => { waiting = undefined; stop = undefined; reject(byOverall ? deadlineError() : new EvidenceError('invalidArgument', PATTERN_TIMEOUT_MESSAGE)); }, Math.max(0, Math.min(deadline, overall) - Date.now()));
      waiting = (r) => { clearTimeout(timer); stop = undefined; resolve(r); };
      stop = (e) => { clearTimeout(timer); waiting = undefined; stop = undefined; reject(e); };
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
    for await (const w of streamVerifiedInto(source, manifest, slots.map((s) => new Uint8Array(s)))) {
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
    releaseWorker(worker, clean);
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
  const options = { workerData: PATTERN_WORKER_MARK, execArgv: [], resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 8 } };
  const bundled = path.join(__dirname, 'patternWorker.js');
  if (existsSync(bundled)) return new Worker(bundled, options);
  const source = path.join(__dirname, 'patternWorker.ts');
  return new Worker(`require('tsx/cjs'); require(${JSON.stringify(source)});`, { ...options, eval: true });
}
