/**
 * The matching side of pattern search (docs/contracts.md §2.10). Its own
 * esbuild entry (`dist/patternWorker.js`, see esbuild.js), started by
 * `patternSearch.ts` in a worker thread: a JavaScript regular expression cannot be
 * interrupted on the thread that runs it, so it must not run on the extension host's.
 *
 * `PatternMatcher` is plain code over verified pieces (whole chunks, in order) and is
 * exported so tests can drive it in-process over thousands of cases; the bottom of the
 * file wires it to the port when this module is a worker's entry.
 *
 * Matching is per line (a line is the bytes between `\n`s, without them; no empty line
 * after a final `\n`); a line longer than `maxLineBytes` is matched on its longest prefix
 * of at most that many bytes that ends on a character boundary, so memory stays bounded on
 * a single gigantic line. Line numbers come from the manifest's per-chunk newline counts:
 * bytes are only scanned for newlines around candidate lines. Candidates are found,
 * fastest first:
 * - a literal every match must contain (`requiredLiteral`): raw-byte `indexOf`;
 * - for a pattern that cannot match a `\n` (`cannotMatchNewline`): one scan of a piece's
 *   lines joined by `\n` with the flags `gm`. Every per-line match at position p is also
 *   a match at p in the joined text (`^`/`$` with `m` match at line ends; `\b` sees `\n`
 *   as a non-word character, like the end of input; lookarounds are excluded), and no
 *   match can run into the next line, so the scan costs no more than the lines do
 *   (used when a piece is no longer than the line cap, so none of its lines is cut);
 * - otherwise every line.
 * Each candidate line is then tested alone with `new RegExp(pattern)`, so the prefilters
 * can add work but never change the answer.
 */
import { isAscii } from 'node:buffer';
import { hash as hashOf } from 'node:crypto';
import { readSync } from 'node:fs';
import { isMainThread, parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { cannotMatchNewline, escapeBinary, matchChars, requiredLiteral, utf8BytePattern } from './patternAnalysis.js';
import {
  PATTERN_WORKER_MARK,
  type FromWorker,
  type MatcherSetup,
  type PatternMatch,
  type PatternSearchResult,
  type ToWorker,
} from './patternProtocol.js';

/** Overlap between consecutive windows of a line longer than `maxLineBytes`: a quarter of the window. */
export function windowOverlap(maxLineBytes: number): number {
  return Math.floor(maxLineBytes / 4);
}

/** True for a UTF-8 continuation byte (10xxxxxx). */
const isCont = (b: number | undefined): boolean => b !== undefined && (b & 0xc0) === 0x80;

/** One search: feed it verified pieces in content order, then `end()`. */
export class PatternMatcher {
  private readonly lit: Buffer | null;
  private readonly re: RegExp;
  /** The same pattern with `g`, to start a window's search after its context character. */
  private readonly reFrom: RegExp;
  private readonly scan: RegExp | null;
  private readonly decoder = new TextDecoder('utf-8');
  private readonly step: number;
  /** Lines completed so far. */
  private lineNo = 0;
  private total = 0;
  private chars = 0;
  private collecting = true;
  /** The content budget (not the limit) stopped the page: see `stoppedByBudget`. */
  private budgetStop = false;
  private cut = false;
  private readonly matches: PatternMatch[] = [];
  // The line that continues into the next piece: its start (content offset), whether it
  // already matched, and its bytes from `pendStart` on, a copy (slots are reused) that
  // never grows past one window plus one piece.
  private pend: Buffer | null = null;
  private pendStart = 0;
  private lineStart = 0;
  /** Line-relative start of the next window to test on the pending line. */
  private nextWindow = 0;
  private lineMatched = false;

  constructor(private readonly s: MatcherSetup) {
    // Binary content is searched as bytes (grep -a): one latin1 character per byte, and a
    // non-ASCII character of the pattern stands for its UTF-8 bytes (`utf8BytePattern`).
    // A literal is then ASCII only or not used, so the prefilters stay sound.
    const pattern = s.binary ? utf8BytePattern(s.pattern) : s.pattern;
    const literal = requiredLiteral(pattern);
    this.lit =
      literal === null || (s.binary && Buffer.byteLength(literal) !== literal.length)
        ? null
        : Buffer.from(literal, 'utf8');
    this.re = new RegExp(pattern);
    this.reFrom = new RegExp(pattern, 'g');
    this.scan = !s.binary && cannotMatchNewline(s.pattern) ? new RegExp(s.pattern, 'gm') : null;
    this.step = s.maxLineBytes - windowOverlap(s.maxLineBytes);
  }

  /** One verified piece (whole chunks) at content offset `base`. */
  piece(buf: Buffer, base: number): void {
    const cs = this.s.chunkSize;
    let newlines = 0;
    for (let c = base / cs, end = Math.ceil((base + buf.length) / cs); c < end; c++)
      newlines += this.s.chunkNewlines[c]!;
    let s = 0;
    if (this.pend) {
      const nl = buf.indexOf(10);
      if (nl === -1) {
        this.addPend(buf, false);
        return;
      }
      this.addPend(buf.subarray(0, nl), true);
      this.lineNo++;
      s = nl + 1;
      newlines--;
    }
    if (newlines > 0) {
      const e = buf.lastIndexOf(10);
      this.lines(buf, s, e, base);
      this.lineNo += newlines;
      s = e + 1;
    }
    if (s < buf.length) {
      this.pend = Buffer.alloc(0);
      this.pendStart = this.lineStart = base + s;
      this.nextWindow = 0;
      this.lineMatched = false;
      this.addPend(buf.subarray(s), false);
    }
  }

  /**
   * Starts this matcher at a chunk boundary inside the content instead of at 0 (the second
   * lane of a split search, docs/contracts.md §2.10): `lineNo` lines end before it, and when
   * the boundary falls inside a line (`insideLine`), that line belongs to the lane before:
   * its bytes are passed over (not kept, not tested) up to its newline.
   */
  startAt(lineNo: number, insideLine: boolean): void {
    this.lineNo = lineNo;
    if (insideLine) {
      this.pend = Buffer.alloc(0);
      this.lineMatched = true;
    }
  }

  /**
   * The first lane of a split search, past its range: only the line still pending is
   * completed, from `buf` (content offset `base`). True when it is complete (or none was pending).
   */
  finishPending(buf: Buffer): boolean {
    if (!this.pend) return true;
    const nl = buf.indexOf(10);
    if (nl === -1) {
      this.addPend(buf, false);
      return false;
    }
    this.addPend(buf.subarray(0, nl), true);
    this.lineNo++;
    return true;
  }

  /** True when the content budget stopped the page (more matches would have been collected otherwise). */
  get stoppedByBudget(): boolean {
    return this.budgetStop;
  }

  /** The answer, after the last piece. */
  end(): PatternSearchResult {
    if (this.pend) {
      this.addPend(Buffer.alloc(0), true);
      this.lineNo++;
    }
    return { totalMatches: this.total, matches: this.matches, cut: this.cut };
  }

  /** More bytes of the pending line; `last`: they end it. Tests every window that is complete. */
  private addPend(bytes: Buffer, last: boolean): void {
    const L = this.s.maxLineBytes;
    if (!this.lineMatched)
      this.pend = this.pend!.length === 0 ? Buffer.from(bytes) : Buffer.concat([this.pend!, bytes]);
    const number = this.lineNo + 1;
    // A window ends at line-relative nextWindow + L; it can be tested once one more byte
    // is known (to align its end to a character), or when the line ends.
    while (!this.lineMatched && this.pend) {
      const lineLen = this.pendStart - this.lineStart + this.pend.length;
      if (!last && lineLen <= this.nextWindow + L) break;
      const final = last && lineLen <= this.nextWindow + L;
      const ws = this.nextWindow + this.lineStart - this.pendStart;
      const found = this.window(
        this.pend,
        this.pendStart,
        ws,
        final ? this.pend.length : ws + L,
        final,
        this.pendStart + ws + this.step,
        number,
      );
      if (found || final) {
        this.lineMatched = true;
        break;
      }
      this.nextWindow += this.step;
      // Keep from a few bytes before the next window (its context character).
      const keep = Math.max(0, this.nextWindow - 4 + this.lineStart - this.pendStart);
      this.pend = Buffer.from(this.pend.subarray(keep));
      this.pendStart += keep;
    }
    if (this.lineMatched) this.pend = Buffer.alloc(0);
    if (last) this.pend = null;
  }

  /**
   * Tests the window buf[ws, we) of a line (buf[0] is content offset `bOff`): the whole
   * line when it fits `maxLineBytes`, else one of its overlapping windows (see
   * docs/contracts.md §2.10). A window after the first starts its search after
   * one character of context (so `^` cannot match there and lookbehinds see the real
   * byte before); a non-final window only accepts a match that starts before the next
   * window and ends before its own end. True when the line matched.
   */
  private window(
    buf: Buffer,
    bOff: number,
    ws: number,
    we: number,
    final: boolean,
    acceptBefore: number,
    number: number,
  ): boolean {
    const bin = this.s.binary;
    const first = bOff + ws === this.lineStart;
    if (!bin) {
      while (ws < we && isCont(buf[ws])) ws++;
      if (!final) while (we > ws && isCont(buf[we])) we--;
    }
    let ps = ws;
    if (!first) {
      ps--;
      if (!bin) while (ps > 0 && isCont(buf[ps])) ps--;
    }
    const text = bin ? buf.toString('latin1', ps, we) : this.decoder.decode(buf.subarray(ps, we));
    const from = ps === ws ? 0 : bin ? 1 : this.decoder.decode(buf.subarray(ps, ws)).length;
    let m: RegExpExecArray | null;
    if (from === 0) m = this.re.exec(text);
    else {
      this.reFrom.lastIndex = from;
      m = this.reFrom.exec(text);
    }
    if (m === null) return false;
    const byteAt = (i: number): number => bOff + ps + (bin ? i : Buffer.byteLength(text.slice(0, i)));
    if (!final && (byteAt(m.index) >= acceptBefore || m.index + m[0].length >= text.length)) return false;
    this.found(number, text, from, bOff + ps, m.index, byteAt, final ? bOff + we : -1);
    return true;
  }

  /** The complete line buf[ls, le) at content offset base + ls. */
  private testLine(buf: Buffer, ls: number, le: number, base: number, number: number): void {
    const L = this.s.maxLineBytes;
    for (let w = ls; ; w += this.step) {
      const final = le - w <= L;
      if (this.window(buf, base, w, final ? le : w + L, final, base + w + this.step, number) || final) return;
    }
  }

  /**
   * Records the matching line `number`: the match at text[index] (text[0] is content
   * offset textOff; text[from] the first byte of the window). The shown text is the whole
   * line when it is all here and fits `maxLineChars`, else a window around the match.
   * `lineEnd` is the line's end offset when `text` reaches it, else -1.
   */
  private found(
    number: number,
    text: string,
    from: number,
    textOff: number,
    index: number,
    byteAt: (i: number) => number,
    lineEnd: number,
  ): void {
    this.total++;
    if (!this.collecting || this.total <= this.s.offset) return;
    const bin = this.s.binary;
    const byteOffset = byteAt(index);
    const shownText = (a: number, b: number): string => (bin ? escapeBinary(text.slice(a, b)) : text.slice(a, b));
    let shown: string;
    let window: { start: number; end: number } | undefined;
    const whole = from === 0 && textOff === this.lineStart && lineEnd !== -1;
    if (whole && !bin && text.length <= this.s.maxLineChars) shown = text;
    else if (whole && bin && escapeBinary(text).length <= this.s.maxLineChars) shown = escapeBinary(text);
    else {
      // A third of the room before the match; room for the markers (`…` only when the
      // window starts after the line does); binary escapes take up to 4 characters a byte.
      let a = 0;
      let b = 0;
      const fit = (room: number): void => {
        const budget = Math.max(1, Math.floor(room / (bin ? 4 : 1)));
        a = Math.max(from, index - Math.floor(budget / 3));
        b = Math.min(text.length, a + budget);
        a = Math.max(from, b - budget);
        if (!bin) {
          if (a > 0 && a < text.length && isLow(text.charCodeAt(a))) a++;
          if (b < text.length && isLow(text.charCodeAt(b))) b--;
        }
      };
      fit(this.s.maxLineChars - this.s.cutMarker.length);
      if (byteAt(a) > this.lineStart) fit(this.s.maxLineChars - this.s.cutMarker.length - 1);
      const start = byteAt(a);
      const end = byteAt(b);
      const head = start > this.lineStart ? '…' : '';
      const tail = lineEnd === -1 || end < lineEnd ? this.s.cutMarker : '';
      shown = head + shownText(a, b) + tail;
      if (head || tail) {
        window = { start, end };
        this.cut = true;
      }
    }
    const need = matchChars(this.matches.length > 0, number, shown);
    if (this.chars + need > this.s.maxContentChars) {
      this.collecting = false;
      this.cut = true;
      this.budgetStop = true;
      return;
    }
    this.chars += need;
    this.matches.push({
      line_number: number,
      byte_offset: byteOffset,
      column: byteOffset - this.lineStart + 1,
      text: shown,
      ...(window && { window }),
    });
    if (this.matches.length >= this.s.limit) this.collecting = false;
  }

  /**
   * Newlines in buf[a, b), where buf[0] is content offset `base` (a chunk boundary): whole
   * chunks come from the manifest's index (their bytes were verified against the same
   * manifest), only the partial chunks at either end are scanned.
   */
  private countNl(buf: Buffer, a: number, b: number, base: number): number {
    const cs = this.s.chunkSize;
    const first = Math.ceil((base + a) / cs);
    const last = Math.floor((base + b) / cs);
    if (first >= last) return countBytes(buf, a, b);
    let n = countBytes(buf, a, first * cs - base) + countBytes(buf, last * cs - base, b);
    for (let c = first; c < last; c++) n += this.s.chunkNewlines[c]!;
    return n;
  }

  /** The complete lines of buf[s, e] (e is the last one's newline); the first is line lineNo + 1. */
  private lines(buf: Buffer, s: number, e: number, base: number): void {
    const lineNo = this.lineNo;
    if (this.lit) {
      let cursor = s;
      let before = 0;
      for (let p = buf.indexOf(this.lit, s); p !== -1 && p < e; p = buf.indexOf(this.lit, cursor)) {
        const ls = buf.lastIndexOf(10, p) + 1; // >= s: buf[s - 1] is a newline, or s is 0
        const le = buf.indexOf(10, p);
        before += this.countNl(buf, cursor, ls, base);
        this.lineStart = base + ls;
        this.testLine(buf, ls, le, base, lineNo + before + 1);
        before++;
        cursor = le + 1;
        if (cursor > e) break;
      }
      return;
    }
    const scan = this.scan;
    // For ASCII, latin1 decoding is a plain copy and string offsets are byte offsets.
    if (scan && e - s <= this.s.maxLineBytes && isAscii(buf.subarray(s, e))) {
      const text = buf.toString('latin1', s, e);
      let cursor = 0;
      let before = 0;
      scan.lastIndex = 0;
      for (let m = scan.exec(text); m !== null; m = scan.exec(text)) {
        // An empty match may sit on the newline that ends its line: look back from before it.
        const ls = m.index === 0 ? 0 : text.lastIndexOf('\n', m.index - 1) + 1;
        let le = text.indexOf('\n', m.index);
        if (le === -1) le = text.length;
        before += this.countNl(buf, s + cursor, s + ls, base);
        this.lineStart = base + s + ls;
        this.testLine(buf, s + ls, s + le, base, lineNo + before + 1);
        if (le === text.length) break;
        before++;
        cursor = le + 1;
        scan.lastIndex = cursor;
      }
      return;
    }
    let number = lineNo;
    for (let ls = s; ls <= e;) {
      let le = buf.indexOf(10, ls);
      if (le === -1 || le > e) le = e;
      this.lineStart = base + ls;
      this.testLine(buf, ls, le, base, ++number);
      ls = le + 1;
    }
  }
}

const isLow = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff;

function countBytes(buf: Buffer, a: number, b: number): number {
  let n = 0;
  for (let p = buf.indexOf(10, a); p !== -1 && p < b; p = buf.indexOf(10, p + 1)) n++;
  return n;
}

/**
 * One whole search over a local file, read here by descriptor in pieces of whole chunks
 * into one reused buffer: each piece is read, its assigned chunks hashed and compared,
 * then matched while it is still in the processor's cache (docs/contracts.md §2.10).
 * Synchronous: the orchestration watches `progress` and terminates this worker when a
 * piece overruns its budget or the search is cancelled.
 */
function searchFile(m: Extract<ToWorker, { type: 'file' }>): FromWorker {
  const { setup, fd, byteCount, pieceBytes, from, to } = m;
  const cs = setup.chunkSize;
  const progress = new Int32Array(m.progress);
  const matcher = new PatternMatcher(setup);
  const buf = Buffer.allocUnsafe(Math.min(pieceBytes, Math.max(1, byteCount)));
  let hashed = 0;
  let done = 0;
  /** The piece at `pos` read and its assigned chunks checked, or undefined (short file or a digest that differs). */
  const verifiedPiece = (pos: number, end: number): Buffer | undefined => {
    const len = end - pos;
    let got = 0;
    while (got < len) {
      const n = readSync(fd, buf, got, len - got, pos + got);
      if (n === 0) return undefined;
      got += n;
    }
    const piece = buf.subarray(0, len);
    for (let off = 0, c = pos / cs; off < len; off += cs, c++) {
      if ((m.hash[c >> 3]! & (1 << (c & 7))) === 0) continue;
      const digest = hashOf('sha256', piece.subarray(off, Math.min(off + cs, len)), 'buffer');
      if (!digest.equals(m.chunkDigests.subarray(c * 32, c * 32 + 32))) return undefined;
      hashed++;
    }
    return piece;
  };
  if (from > 0) {
    // The line running into `from` belongs to the lane before: is `from` a line start?
    const one = Buffer.alloc(1);
    if (readSync(fd, one, 0, 1, from - 1) !== 1) return { type: 'mismatch' };
    matcher.startAt(m.startLine, one[0] !== 10);
  }
  for (let pos = from; pos < to; pos += pieceBytes) {
    const piece = verifiedPiece(pos, Math.min(pos + pieceBytes, to));
    if (!piece) return { type: 'mismatch' };
    matcher.piece(piece, pos);
    Atomics.store(progress, 0, ++done);
  }
  if (m.finish) {
    for (let pos = to; pos < byteCount; pos += pieceBytes) {
      const piece = verifiedPiece(pos, Math.min(pos + pieceBytes, byteCount));
      if (!piece) return { type: 'mismatch' };
      Atomics.store(progress, 0, ++done);
      if (matcher.finishPending(piece)) break;
    }
  }
  const r = matcher.end();
  return { type: 'done', hashed, stoppedByBudget: matcher.stoppedByBudget, ...r };
}

/** Answers the orchestration's messages on `port`: one search at a time, pieces acknowledged in order. */
export function servePatternSearches(port: Pick<MessagePort, 'postMessage' | 'on'>): void {
  let views: Buffer[] = [];
  let matcher: PatternMatcher | undefined;
  const post = (m: FromWorker): void => port.postMessage(m);
  post({ type: 'ready' });
  port.on('message', (m: ToWorker) => {
    try {
      if (m.type === 'search') {
        views = m.slots.map((s) => Buffer.from(s));
        matcher = new PatternMatcher(m.setup);
      } else if (m.type === 'piece') {
        matcher!.piece(views[m.slot]!.subarray(m.offset, m.offset + m.length), m.start);
        post({ type: 'ack' });
      } else if (m.type === 'end') {
        const r = matcher!.end();
        matcher = undefined;
        post({ type: 'done', ...r });
      } else if (m.type === 'file') {
        post(searchFile(m));
      }
    } catch (e) {
      post({ type: 'error', message: String((e as Error)?.message ?? e) });
    }
  });
}

if (!isMainThread && parentPort && workerData === PATTERN_WORKER_MARK) servePatternSearches(parentPort);
