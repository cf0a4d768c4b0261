/**
 * Pattern mode of `read_tool_output`, guarded against catastrophic backtracking: the
 * orchestration (docs/contracts.md, reader section). Pure pattern analysis lives in
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
 * `pattern search timed out …` instead of hanging the extension host.
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

/**
 * Streams the verified content through a matching worker. The pattern must already be
 * known to compile (the caller reports syntax errors); UTF-8 content only.
 */
export async function searchPattern(source: RangeSource, manifest: Manifest, options: PatternSearchOptions): Promise<PatternSearchResult> {
  const cs = manifest.chunkSize;
  // Pieces are whole chunks (verification is per chunk): PIECE_BYTES at the default chunk
  // size, and never more than 16 chunks, so small chunks (tests) make many pieces. A slot
  // holds a window of a few pieces, never more than the content.
  const pieceBytes = Math.max(1, Math.min(16, Math.floor(PIECE_BYTES / cs))) * cs;
  const slotBytes = Math.min(PIECES_PER_WINDOW * pieceBytes, manifest.byteCount);
  const slots = [new SharedArrayBuffer(slotBytes), new SharedArrayBuffer(slotBytes)];
  const worker = startWorker();
  const setup: MatcherSetup = {
    pattern: options.pattern, offset: options.offset, limit: options.limit, maxLineChars: options.maxLineChars,
    maxContentChars: options.maxContentChars, maxLineBytes: MAX_MATCH_LINE_BYTES, cutMarker: options.cutMarker,
    chunkSize: manifest.chunkSize, chunkNewlines: manifest.chunkNewlines,
  };
  const post = (m: ToWorker): void => worker.postMessage(m);
  post({ type: 'search', setup, slots });
  const replies: FromWorker[] = [];
  let waiting: ((r: FromWorker) => void) | undefined;
  let failure: Error | undefined;
  let lastReply = 0;
  const deliver = (r: FromWorker): void => {
    lastReply = Date.now();
    if (waiting) { const w = waiting; waiting = undefined; w(r); } else replies.push(r);
  };
  worker.on('message', (r: FromWorker) => deliver(r));
  worker.on('error', (e) => { failure = e; deliver({ type: 'error', message: e.message }); });
  worker.on('exit', () => deliver({ type: 'error', message: 'pattern worker exited' }));

  const next = (deadline: number): Promise<FromWorker> => {
    const ready = replies.shift();
    if (ready) return Promise.resolve(ready);
    return new Promise<FromWorker>((resolve, reject) => {
      const timer = setTimeout(() => { waiting = undefined; reject(new EvidenceError('invalidArgument', PATTERN_TIMEOUT_MESSAGE)); }, Math.max(0, deadline - Date.now()));
      waiting = (r) => { clearTimeout(timer); resolve(r); };
    });
  };
  // Post times of the pieces not yet acknowledged, oldest first. The worker takes them in
  // order, so the oldest one's clock starts when it was posted or when the worker
  // answered last, whichever is later.
  const pending: number[] = [];
  // The isolate starts while the first windows are read and verified (pieces posted
  // before it listens wait in its port). Starting is not the pattern's time: the budget
  // only counts from its first reply.
  let started = false;
  const awaitStart = async (): Promise<void> => {
    if (started) return;
    const r = await next(Date.now() + Math.max(options.budgetMs, WORKER_START_MS));
    if (r.type !== 'ready') throw patternFailure(r.type === 'error' ? r.message : 'worker did not start', failure);
    started = true;
  };
  const expectAck = async (): Promise<void> => {
    await awaitStart();
    const r = await next(Math.max(pending[0]!, lastReply) + options.budgetMs);
    if (r.type === 'error') throw patternFailure(r.message, failure);
    if (r.type !== 'ack') throw new EvidenceError('backend', 'pattern search failed');
    pending.shift();
  };

  try {
    for await (const w of streamVerifiedInto(source, manifest, slots.map((s) => new Uint8Array(s)))) {
      let pieces = 0;
      for (let off = 0; off < w.bytes.length; off += pieceBytes, pieces++) {
        post({ type: 'piece', slot: w.slot, offset: off, length: Math.min(pieceBytes, w.bytes.length - off), start: w.start + off });
        pending.push(Date.now());
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
    return { totalMatches: r.totalMatches, matches: r.matches, cut: r.cut };
  } finally {
    worker.removeAllListeners('exit');
    // Not awaited: the answer does not wait for the isolate to be torn down.
    void worker.terminate();
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
