/**
 * Pattern mode of `read_tool_output`, guarded against catastrophic backtracking.
 *
 * A JavaScript regular expression cannot be interrupted on the thread that runs it,
 * so matching runs in a worker thread: the main thread streams verified pieces (at most
 * about 1 MiB each) to it and waits for an acknowledgement per piece. A piece that takes
 * longer than the budget terminates the worker and the search fails with
 * `pattern search timed out …` instead of hanging the extension host.
 *
 * Matching is per line (a line is the bytes between `\n`s, without them). For speed, a
 * piece's complete lines are first scanned as one text with the same pattern and flags
 * `gm`; only lines where such a match starts are tested with the per-line regex, and
 * after each candidate the scan resumes at the next line start. Without lookarounds,
 * a per-line match at position p is also a match at p in the joined text (`^`/`$` with
 * `m` match at line ends; `\b` sees `\n` as a non-word character, like the end of
 * input), so no matching line is missed and candidates are verified, so none is
 * invented. A pattern containing `(?=`, `(?!`, `(?<=` or `(?<!` is tested line by line.
 *
 * A line longer
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

/**
 * The longest run of literal characters that every match of `pattern` (no flags)
 * must contain, or null when none can be proven. Sound by construction: only
 * top-level atoms are considered; a top-level `|` gives up; groups, classes, `.`,
 * assertions and escaped letters/digits break a run (an escaped letter may be a class,
 * a backreference or a code-unit escape, so extraction stops there); a character made
 * optional by `?`, `*` or `{0,…}` is dropped from the run, one repeated by `+`/`{n,…}`
 * ends it. A run holding a newline or a lone surrogate is not used.
 */
export function requiredLiteral(pattern: string): string | null {
  // Pass 1: any top-level alternation makes every literal optional.
  let depth = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') { i++; continue; }
    if (c === '[') { i = skipClass(pattern, i); continue; }
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === '|' && depth === 0) return null;
  }
  let best = '';
  let run = '';
  const commit = (): void => { if (run.length > best.length) best = run; run = ''; };
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    let literal: string | undefined;
    let end = i;
    if (c === '\\') {
      const n = pattern[i + 1];
      if (n === undefined || /[A-Za-z0-9]/.test(n)) { commit(); break; }
      literal = n;
      end = i + 1;
    } else if (c === '[') { end = skipClass(pattern, i); }
    else if (c === '(') { end = skipGroup(pattern, i); }
    else if (!'.^$'.includes(c)) literal = c;
    // A quantifier after this atom?
    const q = quantifierAt(pattern, end + 1);
    if (literal === undefined) { commit(); i = q ? q.end : end; continue; }
    if (!q) { run += literal; i = end; continue; }
    if (q.min >= 1) run += literal;
    commit();
    i = q.end;
  }
  commit();
  if (best.length === 0 || best.includes('\n') || /[\ud800-\udfff]/.test(best.replace(/[\ud800-\udbff][\udc00-\udfff]/g, ''))) return null;
  return best;
}

/** Index of the `]` closing the class opened at `start` (JavaScript: `[]` is an empty class). */
function skipClass(p: string, start: number): number {
  let i = start + 1;
  if (p[i] === '^') i++;
  for (; i < p.length; i++) {
    if (p[i] === '\\') i++;
    else if (p[i] === ']') return i;
  }
  return p.length;
}

/** Index of the `)` closing the group opened at `start`. */
function skipGroup(p: string, start: number): number {
  let depth = 0;
  for (let i = start; i < p.length; i++) {
    const c = p[i];
    if (c === '\\') i++;
    else if (c === '[') i = skipClass(p, i);
    else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return i;
  }
  return p.length;
}

/** A quantifier starting at `i` (with its lazy `?`), or undefined. */
function quantifierAt(p: string, i: number): { min: number; end: number } | undefined {
  const c = p[i];
  let min: number;
  let end: number;
  if (c === '*' || c === '?') { min = 0; end = i; }
  else if (c === '+') { min = 1; end = i; }
  else if (c === '{') {
    const m = /^\{(\d+)(,\d*)?\}/.exec(p.slice(i));
    if (!m) return undefined; // a literal `{` outside unicode mode
    min = Number(m[1]);
    end = i + m[0].length - 1;
  } else return undefined;
  if (p[end + 1] === '?') end++;
  return { min, end };
}

/** Time allowed for the worker isolate to start (machine load, not the pattern). */
const WORKER_START_MS = 10_000;

/** Longest line prefix the worker keeps for matching. */
const MAX_MATCH_LINE_BYTES = 1024 * 1024;

/** Message of the time guard. */
export const PATTERN_TIMEOUT_MESSAGE = 'pattern search timed out: the pattern backtracks too much on this output; use a simpler pattern';

const WORKER_SOURCE = String.raw`
const { parentPort, workerData } = require('node:worker_threads');
const { pattern, literal, offset, limit, maxLineChars, maxContentChars, maxLineBytes, cutMarker } = workerData;
const lit = literal === null ? null : Buffer.from(literal, 'utf8');
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

// Fast path (see the module comment): candidates from one multiline scan of the text.
const scan = !/\(\?<?[=!]/.test(pattern) ? new RegExp(pattern, 'gm') : null;

function scanLines(text) {
  // text: complete lines joined by \n (no trailing \n). Lines between candidates are
  // counted, not tested; each candidate line is verified with the per-line regex.
  let lineStart = 0;
  scan.lastIndex = 0;
  for (;;) {
    const m = scan.exec(text);
    if (m === null) break;
    // Count the lines skipped before the candidate's line.
    let nl = text.indexOf('\n', lineStart);
    while (nl !== -1 && nl < m.index) { lineNo++; lineStart = nl + 1; nl = text.indexOf('\n', lineStart); }
    const end = nl === -1 ? text.length : nl;
    matchLine(text.slice(lineStart, end));
    if (nl === -1) return;
    lineStart = nl + 1;
    scan.lastIndex = lineStart;
  }
  let nl = text.indexOf('\n', lineStart);
  while (nl !== -1) { lineNo++; nl = text.indexOf('\n', nl + 1); }
  lineNo++; // the last line of text (after its last \n, or the only one)
}

function countNl(buf, from, to) {
  let n = 0;
  let p = buf.indexOf(10, from);
  while (p !== -1 && p < to) { n++; p = buf.indexOf(10, p + 1); }
  return n;
}

// Literal path: complete lines buf[start..last] (last is a \n). Only lines holding the
// required literal are decoded and tested; the others are only counted.
function literalLines(buf, start, last) {
  let cursor = start;
  let p = buf.indexOf(lit, start);
  while (p !== -1 && p < last) {
    const lineStart = buf.lastIndexOf(10, p) + 1;
    const lineEnd = buf.indexOf(10, p);
    lineNo += countNl(buf, cursor, lineStart);
    matchLine(buf.toString('utf8', Math.max(lineStart, start), lineEnd));
    cursor = lineEnd + 1;
    p = cursor > last ? -1 : buf.indexOf(lit, cursor);
  }
  lineNo += countNl(buf, cursor, last + 1);
}

function handle(line) {
  matchLine(line);
}

function matchLine(line) {
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
    if (lit) literalLines(buf, start, last);
    else {
      const text = decoder.decode(buf.subarray(start, last));
      if (scan) scanLines(text); else { const lines = text.split('\n'); for (let i = 0; i < lines.length; i++) handle(lines[i]); }
    }
    start = last + 1;
  }
  if (start < buf.length) addCarry(buf.subarray(start));
}

parentPort.postMessage({ type: 'ready' });
parentPort.on('message', (m) => {
  try {
    if (m.type === 'piece') { piece(Buffer.from(m.buf, 0, m.length)); parentPort.postMessage({ type: 'ack' }); }
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
      pattern: options.pattern, literal: requiredLiteral(options.pattern), offset: options.offset, limit: options.limit, maxLineChars: options.maxLineChars,
      maxContentChars: options.maxContentChars, maxLineBytes: MAX_MATCH_LINE_BYTES, cutMarker: options.cutMarker,
    },
    resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 8 },
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
    // One shared slot, reused: a piece is copied in only after the worker acknowledged
    // the previous one (the next read overlaps the worker's matching), so memory stays
    // at one slot however large the output. Pieces are copied, never transferred: a
    // source may hand out views of bytes it keeps.
    let slot: SharedArrayBuffer | undefined;
    let pending = false;
    for await (const piece of streamVerified(source, manifest)) {
      if (pending) await expectAck();
      if (!slot || slot.byteLength < piece.length) slot = new SharedArrayBuffer(piece.length);
      new Uint8Array(slot, 0, piece.length).set(piece);
      worker.postMessage({ type: 'piece', buf: slot, length: piece.length });
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
