/**
 * Any source that is not a local file: the main thread verifies windows in two reused shared slots and hands them to
 * the worker without a copy (docs/contracts.md §2.10).
 */
import { EvidenceError } from '../../errors.js';
import { streamVerifiedInto, type Manifest, type RangeSource } from '../../integrity/integrity.js';
import type { FromWorker, PatternSearchResult, ToWorker } from './patternProtocol.js';
import {
  PATTERN_TIMEOUT_MESSAGE,
  patternFailure,
  SEARCH_CANCELLED_MESSAGE,
  SearchDeadlineError,
} from './searchErrors.js';
import { pieceBytesOf, setupOf, type PatternSearchOptions } from './searchSetup.js';
import { acquireWorker, releaseWorker, startedWorkers, WORKER_START_MS } from './workerPool.js';

const PIECES_PER_WINDOW = 4;

export async function searchSlots(
  source: RangeSource,
  manifest: Manifest,
  options: PatternSearchOptions,
): Promise<PatternSearchResult> {
  const { signal } = options;
  const overall = Date.now() + (options.timeoutMs ?? Number.MAX_SAFE_INTEGER / 2);
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

  /** Rejects at a piece's budget or the overall limit, whichever is first, or on abort. */
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
  // The worker takes pieces in order, so the oldest one's clock starts when it was posted or when the worker last
  // answered, whichever is later.
  const pending: { at: number; bytes: number }[] = [];
  // Starting the isolate is not the pattern's time: the budget counts from its first reply.
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
    // The answer does not wait for the isolate to be torn down.
    void releaseWorker(worker, clean);
  }
}
