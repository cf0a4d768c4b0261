/**
 * Pattern mode of `read_tool_output`, guarded against catastrophic backtracking.
 *
 * A JavaScript regular expression cannot be interrupted on the thread that runs it,
 * so matching runs in a worker thread: the main thread streams verified pieces (at most
 * about 1 MiB each) to it and waits for an acknowledgement per piece. A piece that takes
 * longer than the budget terminates the worker and the search fails with
 * `pattern search timed out …` instead of hanging the extension host.
 *
 * Matching is per line (a line is the bytes between `\n`s, without them). A line longer
 * than 1 MiB is matched on its first 1 MiB only, so memory stays bounded on a single
 * gigantic line. The worker is plain JavaScript evaluated from a string, so it runs the
 * same under tsx, mocha and the esbuild bundle.
 */
import { Worker } from 'node:worker_threads';
import { EvidenceError } from '../errors.js';
import { streamVerified, type Manifest, type RangeSource } from '../integrity.js';

/** What the worker returns. */
export interface PatternSearchResult {
  /** Matching lines in the whole content. */
  readonly totalMatches: number;
  /** The returned page of matches (1-based line numbers), each line already cut to the limit. */
  readonly matches: readonly { readonly line_number: number; readonly text: string }[];
  /** True when a returned line was cut or the content budget stopped the page early. */
  readonly cut: boolean;
}

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

/** Longest line prefix the worker keeps for matching. */
const MAX_MATCH_LINE_BYTES = 1024 * 1024;

/** Message of the time guard. */
export const PATTERN_TIMEOUT_MESSAGE = 'pattern search timed out: the pattern backtracks too much on this output; use a simpler pattern';

const WORKER_SOURCE = String.raw`
const { parentPort, workerData } = require('node:worker_threads');
const { pattern, offset, limit, maxLineChars, maxContentChars, maxLineBytes, cutMarker } = workerData;
const re = new RegExp(pattern);
const decoder = new TextDecoder('utf-8');
let carry = Buffer.alloc(0);
let carryOverflow = false;
let lineNo = 0;
let total = 0;
let chars = 0;
let collecting = true;
let cut = false;
const matches = [];

function render(line) {
  if (line.length <= maxLineChars) return line;
  cut = true;
  let end = maxLineChars - cutMarker.length;
  const c = line.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end--; // never split a surrogate pair
  return line.slice(0, end) + cutMarker;
}

function handle(line) {
  lineNo++;
  if (!re.test(line)) return;
  total++;
  if (!collecting || total <= offset) return;
  const text = render(line);
  const need = (matches.length ? 1 : 0) + String(lineNo).length + 1 + text.length;
  if (chars + need > maxContentChars) { collecting = false; cut = true; return; }
  chars += need;
  matches.push({ line_number: lineNo, text });
  if (matches.length >= limit) collecting = false;
}

function addCarry(bytes) {
  if (carry.length >= maxLineBytes) { if (bytes.length) carryOverflow = true; return; }
  const take = Math.min(bytes.length, maxLineBytes - carry.length);
  if (take < bytes.length) carryOverflow = true;
  carry = Buffer.concat([carry, bytes.subarray(0, take)]);
}

function finishCarry() {
  let bytes = carry;
  if (carryOverflow) {
    // Cut back to a code-point boundary: the line was truncated for matching.
    let i = bytes.length;
    const stop = Math.max(0, i - 3);
    while (i > stop && (bytes[i - 1] & 0xc0) === 0x80) i--;
    if (i > 0 && bytes[i - 1] >= 0xc0) i--;
    bytes = bytes.subarray(0, i);
  }
  handle(decoder.decode(bytes));
  carry = Buffer.alloc(0);
  carryOverflow = false;
}

function piece(buf) {
  let start = 0;
  if (carry.length > 0 || carryOverflow) {
    const nl = buf.indexOf(10);
    if (nl === -1) { addCarry(buf); return; }
    addCarry(buf.subarray(0, nl));
    finishCarry();
    start = nl + 1;
  }
  const last = buf.lastIndexOf(10);
  if (last >= start) {
    const lines = decoder.decode(buf.subarray(start, last)).split('\n');
    for (let i = 0; i < lines.length; i++) handle(lines[i]);
    start = last + 1;
  }
  if (start < buf.length) addCarry(buf.subarray(start));
}

parentPort.postMessage({ type: 'ready' });
parentPort.on('message', (m) => {
  try {
    if (m.type === 'piece') { piece(Buffer.from(m.buf)); parentPort.postMessage({ type: 'ack' }); }
    else if (m.type === 'end') {
      if (carry.length > 0 || carryOverflow) finishCarry();
      parentPort.postMessage({ type: 'done', totalMatches: total, matches, cut });
    }
  } catch (e) {
    parentPort.postMessage({ type: 'error', message: String(e && e.message || e) });
  }
});
`;

type WorkerReply =
  | { type: 'ready' }
  | { type: 'ack' }
  | { type: 'done'; totalMatches: number; matches: { line_number: number; text: string }[]; cut: boolean }
  | { type: 'error'; message: string };

/**
 * Streams the verified content through a matching worker. The pattern must already be
 * known to compile (the caller reports syntax errors); UTF-8 content only.
 */
export async function searchPattern(source: RangeSource, manifest: Manifest, options: PatternSearchOptions): Promise<PatternSearchResult> {
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    // No tsx loader or inspector flags from the parent: a bare, fast-starting isolate.
    execArgv: [],
    workerData: {
      pattern: options.pattern, offset: options.offset, limit: options.limit, maxLineChars: options.maxLineChars,
      maxContentChars: options.maxContentChars, maxLineBytes: MAX_MATCH_LINE_BYTES, cutMarker: options.cutMarker,
    },
    resourceLimits: { maxOldGenerationSizeMb: 256 },
  });
  const replies: WorkerReply[] = [];
  let waiting: ((r: WorkerReply) => void) | undefined;
  let failure: Error | undefined;
  const deliver = (r: WorkerReply): void => {
    if (waiting) { const w = waiting; waiting = undefined; w(r); } else replies.push(r);
  };
  worker.on('message', (r: WorkerReply) => deliver(r));
  worker.on('error', (e) => { failure = e; deliver({ type: 'error', message: e.message }); });
  worker.on('exit', () => deliver({ type: 'error', message: 'pattern worker exited' }));

  const next = (budgetMs = options.budgetMs): Promise<WorkerReply> => {
    const ready = replies.shift();
    if (ready) return Promise.resolve(ready);
    return new Promise<WorkerReply>((resolve, reject) => {
      const timer = setTimeout(() => { waiting = undefined; reject(new EvidenceError('invalidArgument', PATTERN_TIMEOUT_MESSAGE)); }, budgetMs);
      waiting = (r) => { clearTimeout(timer); resolve(r); };
    });
  };
  const expectAck = async (): Promise<void> => {
    const r = await next();
    if (r.type === 'error') throw patternFailure(r.message, failure);
    if (r.type !== 'ack') throw new EvidenceError('backend', 'pattern search failed');
  };

  try {
    // Starting the isolate is not the pattern's time: the budget starts once it is ready.
    const ready = await next(Math.max(options.budgetMs, WORKER_START_MS));
    if (ready.type !== 'ready') throw patternFailure(ready.type === 'error' ? ready.message : 'worker did not start', failure);
    let pending = false;
    for await (const piece of streamVerified(source, manifest)) {
      if (pending) await expectAck();
      // A copy we can transfer: the verified piece may share a pooled buffer.
      const copy = new Uint8Array(piece.length);
      copy.set(piece);
      worker.postMessage({ type: 'piece', buf: copy.buffer }, [copy.buffer]);
      pending = true;
    }
    if (pending) await expectAck();
    worker.postMessage({ type: 'end' });
    const r = await next();
    if (r.type === 'error') throw patternFailure(r.message, failure);
    if (r.type !== 'done') throw new EvidenceError('backend', 'pattern search failed');
    return { totalMatches: r.totalMatches, matches: r.matches, cut: r.cut };
  } finally {
    worker.removeAllListeners('exit');
    await worker.terminate();
  }
}

function patternFailure(message: string, failure: Error | undefined): EvidenceError {
  // Out of memory in the isolate (resourceLimits) reads like a timeout to the model: the pattern is too costly.
  if (failure && /memory/i.test(failure.message)) return new EvidenceError('invalidArgument', PATTERN_TIMEOUT_MESSAGE);
  return new EvidenceError('backend', `pattern search failed: ${message}`);
}
