/**
 * The matching side of pattern search (docs/contracts.md §2.10), its own bundle so a regular expression never runs on
 * the extension host's thread. Line numbers come from the manifest's newline counts. Candidate lines come from a
 * required literal, or one `gm` scan when the pattern cannot match `\n`, else every line; each is then tested alone,
 * so the prefilters never change the answer.
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

export function windowOverlap(maxLineBytes: number): number {
  return Math.floor(maxLineBytes / 4);
}

const isCont = (b: number | undefined): boolean => b !== undefined && (b & 0xc0) === 0x80;

export class PatternMatcher {
  private readonly lit: Buffer | null;
  private readonly re: RegExp;
  /** To start a window's search after its context character. */
  private readonly reFrom: RegExp;
  private readonly scan: RegExp | null;
  private readonly decoder = new TextDecoder('utf-8');
  private readonly step: number;
  private lineNo = 0;
  private total = 0;
  private chars = 0;
  private collecting = true;
  private budgetStop = false;
  private cut = false;
  private readonly matches: PatternMatch[] = [];
  // A copy (slots are reused) that never grows past one window plus one piece.
  private pend: Buffer | null = null;
  private pendStart = 0;
  private lineStart = 0;
  private nextWindow = 0;
  private lineMatched = false;

  constructor(private readonly s: MatcherSetup) {
    // Binary content is searched as bytes (grep -a); a literal is then ASCII only or not used, so the prefilters stay
    // sound.
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
   * The second lane of a split search (docs/contracts.md §2.10): a line running into the boundary belongs to the lane
   * before, so its bytes are passed over.
   */
  startAt(lineNo: number, insideLine: boolean): void {
    this.lineNo = lineNo;
    if (insideLine) {
      this.pend = Buffer.alloc(0);
      this.lineMatched = true;
    }
  }

  /** True when complete (or none was pending). */
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

  get stoppedByBudget(): boolean {
    return this.budgetStop;
  }

  end(): PatternSearchResult {
    if (this.pend) {
      this.addPend(Buffer.alloc(0), true);
      this.lineNo++;
    }
    return { totalMatches: this.total, matches: this.matches, cut: this.cut };
  }

  private addPend(bytes: Buffer, last: boolean): void {
    const L = this.s.maxLineBytes;
    if (!this.lineMatched)
      this.pend = this.pend!.length === 0 ? Buffer.from(bytes) : Buffer.concat([this.pend!, bytes]);
    const number = this.lineNo + 1;
    // A window can be tested once one more byte is known (to align its end to a character), or when the line ends.
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
   * A later window starts after one character of context, so `^` cannot match there and lookbehinds see the real byte
   * before (docs/contracts.md §2.10).
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

  private testLine(buf: Buffer, ls: number, le: number, base: number, number: number): void {
    const L = this.s.maxLineBytes;
    for (let w = ls; ; w += this.step) {
      const final = le - w <= L;
      if (this.window(buf, base, w, final ? le : w + L, final, base + w + this.step, number) || final) return;
    }
  }

  /** The shown text is the whole line when it is all here and fits `maxLineChars`, else a window around the match. */
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
      // A third of the room before the match; binary escapes take up to 4 characters a byte.
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

  /** Whole chunks come from the manifest's verified index; only the partial chunks at either end are scanned. */
  private countNl(buf: Buffer, a: number, b: number, base: number): number {
    const cs = this.s.chunkSize;
    const first = Math.ceil((base + a) / cs);
    const last = Math.floor((base + b) / cs);
    if (first >= last) return countBytes(buf, a, b);
    let n = countBytes(buf, a, first * cs - base) + countBytes(buf, last * cs - base, b);
    for (let c = first; c < last; c++) n += this.s.chunkNewlines[c]!;
    return n;
  }

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
 * Synchronous: the orchestration watches `progress` and terminates this worker when a piece overruns its budget or
 * the search is cancelled.
 */
function searchFile(m: Extract<ToWorker, { type: 'file' }>): FromWorker {
  const { setup, fd, byteCount, pieceBytes, from, to } = m;
  const cs = setup.chunkSize;
  const progress = new Int32Array(m.progress);
  const matcher = new PatternMatcher(setup);
  const buf = Buffer.allocUnsafe(Math.min(pieceBytes, Math.max(1, byteCount)));
  let hashed = 0;
  let done = 0;
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

/** One search at a time, pieces acknowledged in order. */
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
