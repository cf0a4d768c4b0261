/**
 * Pattern mode of `read_tool_output`, guarded against catastrophic backtracking.
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
 *
 * Matching is per line (a line is the bytes between `\n`s, without them; no empty line
 * after a final `\n`); a line longer than 1 MiB is matched on its longest prefix of at
 * most 1 MiB that ends on a character boundary, so memory stays bounded on a single
 * gigantic line. Line numbers come from the manifest's per-chunk newline counts (part of
 * the same verified manifest as the digests): bytes are only scanned for newlines around
 * candidate lines. Candidates are found, fastest first:
 * - a literal every match must contain (`requiredLiteral`): raw-byte `indexOf`;
 * - for a pattern that cannot match a `\n` (`cannotMatchNewline`): one scan of a piece's
 *   lines joined by `\n` with the flags `gm`. Every per-line match at position p is also
 *   a match at p in the joined text (`^`/`$` with `m` match at line ends; `\b` sees `\n`
 *   as a non-word character, like the end of input; lookarounds are excluded), and no
 *   match can run into the next line, so the scan costs no more than the lines do
 *   (used when a piece is no longer than the line cap, so none of its lines is cut);
 * - otherwise every line.
 * Each candidate line is then tested alone with `new RegExp(pattern)`, so the prefilters
 * can add work but never change the answer. The worker is plain JavaScript evaluated
 * from a string, so it runs the same under tsx, mocha and the esbuild bundle.
 */
import { Worker } from 'node:worker_threads';
import { EvidenceError } from '../errors.js';
import { streamVerifiedInto, type Manifest, type RangeSource } from '../integrity.js';

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
 * assertions and the one-atom escapes (`\d \D \w \W \s \S \b \B \t \n \r \f \v`) break a
 * run; any other escaped letter or digit (`\x41`, `\u0041`, `\cJ`, `\1`, `\k<n>`) may
 * span more characters, so extraction stops there; a character made
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
      if (n === undefined || (/[A-Za-z0-9]/.test(n) && !'dDwWsSbBtnrfv'.includes(n))) { commit(); break; }
      end = i + 1;
      // \d \D \w \W \s \S \b \B \t \n \r \f \v are one atom each (a class, an assertion,
      // one control character): they end the run, extraction goes on after them.
      if (!/[A-Za-z]/.test(n)) literal = n;
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

/** Escapes proven not to match `\n`: `\d \w \b \B \t \r \f \v` and escaped ASCII punctuation or space. */
const SAFE_ESCAPE = /^[dwbBtrfv -/:-@[-`{-~]$/;

/**
 * True when no match of `pattern` (no flags) can contain a `\n`, so a multiline scan
 * cannot run from one line into the next. Conservative: only literal characters, `.`
 * (no `s` flag), `SAFE_ESCAPE`s, positive classes of those (a range only between two
 * plain characters, not spanning U+000A), groups `(…)`, `(?:…)`, `(?<name>…)`,
 * quantifiers, `|`, `^` and `$` are proven. Anything else answers false: `\s`, `\S`,
 * `\W`, `\D`, `\n`, `[^…]`, `\x`/`\u`/`\c` escapes, backreferences, lookarounds, other
 * `(?` groups (e.g. `(?s:…)`), a raw newline.
 */
export function cannotMatchNewline(pattern: string): boolean {
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\n') return false;
    if (c === '\\') {
      if (!SAFE_ESCAPE.test(pattern[++i] ?? '')) return false;
    } else if (c === '(' && pattern[i + 1] === '?') {
      const named = pattern[i + 2] === '<' && pattern[i + 3] !== '=' && pattern[i + 3] !== '!';
      if (pattern[i + 2] !== ':' && !named) return false;
    } else if (c === '[') {
      if (pattern[i + 1] === '^') return false;
      let j = i + 1;
      for (; j < pattern.length && pattern[j] !== ']'; j++) {
        const first = j;
        if (pattern[j] === '\\' && !SAFE_ESCAPE.test(pattern[++j] ?? '')) return false;
        if (pattern[j] === '\n') return false;
        if (pattern[j + 1] === '-' && j + 2 < pattern.length && pattern[j + 2] !== ']') {
          const lo = pattern[first]!;
          const hi = pattern[j + 2]!;
          if (lo === '\\' || hi === '\\' || (lo.charCodeAt(0) <= 10 && hi.charCodeAt(0) >= 10)) return false;
          j += 2;
        }
      }
      i = j;
    }
  }
  return true;
}

/** Time allowed for the worker isolate to start (machine load, not the pattern). */
const WORKER_START_MS = 10_000;

/** Longest line prefix the worker keeps for matching. */
const MAX_MATCH_LINE_BYTES = 1024 * 1024;

/** Target size of a piece: the unit the worker acknowledges and the time budget covers. */
const PIECE_BYTES = 1024 * 1024;

/** Pieces per window: one physical read and one digest pass cover this many. */
const PIECES_PER_WINDOW = 4;

/** Message of the time guard. */
export const PATTERN_TIMEOUT_MESSAGE = 'pattern search timed out: the pattern backtracks too much on this output; use a simpler pattern';

/**
 * @internal The worker, as plain JavaScript: `require('node:worker_threads')` gives it
 * `workerData` (see `patternWorkerData`) and the port it answers on. Exported so the
 * tests can also run it in-process over thousands of cases.
 */
export const PATTERN_WORKER_SOURCE = String.raw`
const { parentPort, workerData } = require('node:worker_threads');
const { isAscii } = require('node:buffer');
const { pattern, literal, noNewline, offset, limit, maxLineChars, maxContentChars, maxLineBytes, cutMarker, chunkSize, chunkNewlines, slots } = workerData;
const views = slots.map((s) => Buffer.from(s));
const lit = literal === null ? null : Buffer.from(literal, 'utf8');
const re = new RegExp(pattern);
const scan = noNewline ? new RegExp(pattern, 'gm') : null;
const decoder = new TextDecoder('utf-8');
const EMPTY = Buffer.alloc(0);
// Start of the line that continues into the next piece: a copy (slots are reused), and
// at most one byte more than the cap, which is enough to tell a line at the cap from a
// longer one.
let carry = EMPTY;
let lineNo = 0; // lines completed so far
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

function matchLine(line, number) {
  if (!re.test(line)) return;
  total++;
  if (!collecting || total <= offset) return;
  const text = render(line);
  const need = (matches.length ? 1 : 0) + String(number).length + 1 + text.length;
  if (chars + need > maxContentChars) { collecting = false; cut = true; return; }
  chars += need;
  matches.push({ line_number: number, text });
  if (matches.length >= limit) collecting = false;
}

// The longest prefix of at most maxLineBytes bytes that ends on a character boundary:
// a streaming decoder holds back a cut character.
function decodeCapped(bytes) {
  return bytes.length <= maxLineBytes ? decoder.decode(bytes) : new TextDecoder('utf-8').decode(bytes.subarray(0, maxLineBytes), { stream: true });
}

function capText(line) {
  // A UTF-16 unit is at most 3 UTF-8 bytes: most lines need no byte count.
  return line.length * 3 <= maxLineBytes || Buffer.byteLength(line) <= maxLineBytes ? line : decodeCapped(Buffer.from(line));
}

function countBytes(buf, a, b) {
  let n = 0;
  for (let p = buf.indexOf(10, a); p !== -1 && p < b; p = buf.indexOf(10, p + 1)) n++;
  return n;
}

// Newlines in buf[a, b), where buf[0] is content offset base (a chunk boundary): whole
// chunks come from the manifest's index (their bytes were verified against the same
// manifest), only the partial chunks at either end are scanned.
function countNl(buf, a, b, base) {
  const first = Math.ceil((base + a) / chunkSize);
  const last = Math.floor((base + b) / chunkSize);
  if (first >= last) return countBytes(buf, a, b);
  let n = countBytes(buf, a, first * chunkSize - base) + countBytes(buf, last * chunkSize - base, b);
  for (let c = first; c < last; c++) n += chunkNewlines[c];
  return n;
}

function countText(text, a, b) {
  let n = 0;
  for (let p = text.indexOf('\n', a); p !== -1 && p < b; p = text.indexOf('\n', p + 1)) n++;
  return n;
}

// The complete lines of buf[s, e] (e is the last one's newline); the first is line lineNo + 1.
function lines(buf, s, e, base) {
  if (lit) {
    let cursor = s;
    let before = 0;
    for (let p = buf.indexOf(lit, s); p !== -1 && p < e; p = buf.indexOf(lit, cursor)) {
      const ls = buf.lastIndexOf(10, p) + 1; // >= s: buf[s - 1] is a newline, or s is 0
      const le = buf.indexOf(10, p);
      before += countNl(buf, cursor, ls, base);
      matchLine(decodeCapped(buf.subarray(ls, le)), lineNo + before + 1);
      before++;
      cursor = le + 1;
      if (cursor > e) break;
    }
    return;
  }
  // For ASCII, latin1 decoding is a plain copy and string offsets are byte offsets.
  const ascii = isAscii(buf.subarray(s, e));
  const text = ascii ? buf.toString('latin1', s, e) : decoder.decode(buf.subarray(s, e));
  if (scan && e - s <= maxLineBytes) {
    const count = ascii ? (a, b) => countNl(buf, s + a, s + b, base) : (a, b) => countText(text, a, b);
    let cursor = 0;
    let before = 0;
    scan.lastIndex = 0;
    for (let m = scan.exec(text); m !== null; m = scan.exec(text)) {
      // An empty match may sit on the newline that ends its line: look back from before it.
      const ls = m.index === 0 ? 0 : text.lastIndexOf('\n', m.index - 1) + 1;
      let le = text.indexOf('\n', m.index);
      if (le === -1) le = text.length;
      before += count(cursor, ls);
      matchLine(text.slice(ls, le), lineNo + before + 1);
      if (le === text.length) break;
      before++;
      cursor = le + 1;
      scan.lastIndex = cursor;
    }
    return;
  }
  let number = lineNo;
  for (let ls = 0; ls <= text.length; ) {
    let le = text.indexOf('\n', ls);
    if (le === -1) le = text.length;
    matchLine(capText(text.slice(ls, le)), ++number);
    ls = le + 1;
  }
}

function addCarry(bytes) {
  const take = Math.min(bytes.length, maxLineBytes + 1 - carry.length);
  if (take > 0) carry = Buffer.concat([carry, bytes.subarray(0, take)]);
}

function finishCarry() {
  const line = decodeCapped(carry);
  carry = EMPTY;
  matchLine(line, ++lineNo);
}

// One verified piece (whole chunks) at content offset base.
function piece(buf, base) {
  let newlines = 0;
  for (let c = base / chunkSize, end = Math.ceil((base + buf.length) / chunkSize); c < end; c++) newlines += chunkNewlines[c];
  let s = 0;
  if (carry.length > 0) {
    const nl = buf.indexOf(10);
    if (nl === -1) { addCarry(buf); return; }
    addCarry(buf.subarray(0, nl));
    finishCarry();
    s = nl + 1;
    newlines--;
  }
  if (newlines > 0) {
    const e = buf.lastIndexOf(10);
    lines(buf, s, e, base);
    lineNo += newlines;
    s = e + 1;
  }
  if (s < buf.length) addCarry(buf.subarray(s));
}

parentPort.postMessage({ type: 'ready' });
parentPort.on('message', (m) => {
  try {
    if (m.type === 'piece') { piece(views[m.slot].subarray(m.offset, m.offset + m.length), m.start); parentPort.postMessage({ type: 'ack' }); }
    else if (m.type === 'end') {
      if (carry.length > 0) finishCarry();
      parentPort.postMessage({ type: 'done', totalMatches: total, matches, cut });
    }
  } catch (e) {
    parentPort.postMessage({ type: 'error', message: String(e && e.message || e) });
  }
});
`;

/** @internal What the worker is started with: the search, the newline index and the slots it reads. */
export function patternWorkerData(options: PatternSearchOptions, manifest: Manifest, slots: readonly SharedArrayBuffer[]): Record<string, unknown> {
  return {
    pattern: options.pattern, literal: requiredLiteral(options.pattern), noNewline: cannotMatchNewline(options.pattern), offset: options.offset, limit: options.limit,
    maxLineChars: options.maxLineChars, maxContentChars: options.maxContentChars, maxLineBytes: MAX_MATCH_LINE_BYTES, cutMarker: options.cutMarker,
    chunkSize: manifest.chunkSize, chunkNewlines: manifest.chunkNewlines, slots,
  };
}

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
  const cs = manifest.chunkSize;
  // Pieces are whole chunks (verification is per chunk): PIECE_BYTES at the default chunk
  // size, and never more than 16 chunks, so small chunks (tests) make many pieces. A slot
  // holds a window of a few pieces, never more than the content.
  const pieceBytes = Math.max(1, Math.min(16, Math.floor(PIECE_BYTES / cs))) * cs;
  const slotBytes = Math.min(PIECES_PER_WINDOW * pieceBytes, manifest.byteCount);
  const slots = [new SharedArrayBuffer(slotBytes), new SharedArrayBuffer(slotBytes)];
  const worker = new Worker(PATTERN_WORKER_SOURCE, {
    eval: true,
    // No tsx loader or inspector flags from the parent: a bare, fast-starting isolate.
    execArgv: [],
    workerData: patternWorkerData(options, manifest, slots),
    resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 8 },
  });
  const replies: WorkerReply[] = [];
  let waiting: ((r: WorkerReply) => void) | undefined;
  let failure: Error | undefined;
  let lastReply = 0;
  const deliver = (r: WorkerReply): void => {
    lastReply = Date.now();
    if (waiting) { const w = waiting; waiting = undefined; w(r); } else replies.push(r);
  };
  worker.on('message', (r: WorkerReply) => deliver(r));
  worker.on('error', (e) => { failure = e; deliver({ type: 'error', message: e.message }); });
  worker.on('exit', () => deliver({ type: 'error', message: 'pattern worker exited' }));

  const next = (deadline: number): Promise<WorkerReply> => {
    const ready = replies.shift();
    if (ready) return Promise.resolve(ready);
    return new Promise<WorkerReply>((resolve, reject) => {
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
        worker.postMessage({ type: 'piece', slot: w.slot, offset: off, length: Math.min(pieceBytes, w.bytes.length - off), start: w.start + off });
        pending.push(Date.now());
      }
      // The generator refills the other slot next: the worker must be done with it.
      while (pending.length > pieces) await expectAck();
    }
    while (pending.length > 0) await expectAck();
    await awaitStart();
    worker.postMessage({ type: 'end' });
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
