/**
 * The matching side of pattern search (docs/contracts.md, reader section). Its own
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
import { isMainThread, parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { cannotMatchNewline, requiredLiteral } from './patternAnalysis.js';
import { PATTERN_WORKER_MARK, type FromWorker, type MatcherSetup, type PatternMatch, type PatternSearchResult, type ToWorker } from './patternProtocol.js';

const EMPTY = Buffer.alloc(0);

/** One search: feed it verified pieces in content order, then `end()`. */
export class PatternMatcher {
  private readonly lit: Buffer | null;
  private readonly re: RegExp;
  private readonly scan: RegExp | null;
  private readonly decoder = new TextDecoder('utf-8');
  /**
   * Start of the line that continues into the next piece: a copy (slots are reused), and
   * at most one byte more than the cap, which is enough to tell a line at the cap from a
   * longer one.
   */
  private carry: Buffer = EMPTY;
  /** Lines completed so far. */
  private lineNo = 0;
  private total = 0;
  private chars = 0;
  private collecting = true;
  private cut = false;
  private readonly matches: PatternMatch[] = [];

  constructor(private readonly s: MatcherSetup) {
    const literal = requiredLiteral(s.pattern);
    this.lit = literal === null ? null : Buffer.from(literal, 'utf8');
    this.re = new RegExp(s.pattern);
    this.scan = cannotMatchNewline(s.pattern) ? new RegExp(s.pattern, 'gm') : null;
  }

  /** One verified piece (whole chunks) at content offset `base`. */
  piece(buf: Buffer, base: number): void {
    const cs = this.s.chunkSize;
    let newlines = 0;
    for (let c = base / cs, end = Math.ceil((base + buf.length) / cs); c < end; c++) newlines += this.s.chunkNewlines[c]!;
    let s = 0;
    if (this.carry.length > 0) {
      const nl = buf.indexOf(10);
      if (nl === -1) { this.addCarry(buf); return; }
      this.addCarry(buf.subarray(0, nl));
      this.finishCarry();
      s = nl + 1;
      newlines--;
    }
    if (newlines > 0) {
      const e = buf.lastIndexOf(10);
      this.lines(buf, s, e, base);
      this.lineNo += newlines;
      s = e + 1;
    }
    if (s < buf.length) this.addCarry(buf.subarray(s));
  }

  /** The answer, after the last piece. */
  end(): PatternSearchResult {
    if (this.carry.length > 0) this.finishCarry();
    return { totalMatches: this.total, matches: this.matches, cut: this.cut };
  }

  private render(line: string): string {
    const { maxLineChars, cutMarker } = this.s;
    if (line.length <= maxLineChars) return line;
    this.cut = true;
    let end = maxLineChars - cutMarker.length;
    const c = line.charCodeAt(end - 1);
    if (c >= 0xd800 && c <= 0xdbff) end--; // never split a surrogate pair
    return line.slice(0, end) + cutMarker;
  }

  private matchLine(line: string, number: number): void {
    if (!this.re.test(line)) return;
    this.total++;
    if (!this.collecting || this.total <= this.s.offset) return;
    const text = this.render(line);
    const need = (this.matches.length ? 1 : 0) + String(number).length + 1 + text.length;
    if (this.chars + need > this.s.maxContentChars) { this.collecting = false; this.cut = true; return; }
    this.chars += need;
    this.matches.push({ line_number: number, text });
    if (this.matches.length >= this.s.limit) this.collecting = false;
  }

  /** The longest prefix of at most maxLineBytes bytes that ends on a character boundary: a streaming decoder holds back a cut character. */
  private decodeCapped(bytes: Uint8Array): string {
    const max = this.s.maxLineBytes;
    return bytes.length <= max ? this.decoder.decode(bytes) : new TextDecoder('utf-8').decode(bytes.subarray(0, max), { stream: true });
  }

  private capText(line: string): string {
    // A UTF-16 unit is at most 3 UTF-8 bytes: most lines need no byte count.
    const max = this.s.maxLineBytes;
    return line.length * 3 <= max || Buffer.byteLength(line) <= max ? line : this.decodeCapped(Buffer.from(line));
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
        this.matchLine(this.decodeCapped(buf.subarray(ls, le)), lineNo + before + 1);
        before++;
        cursor = le + 1;
        if (cursor > e) break;
      }
      return;
    }
    // For ASCII, latin1 decoding is a plain copy and string offsets are byte offsets.
    const ascii = isAscii(buf.subarray(s, e));
    const text = ascii ? buf.toString('latin1', s, e) : this.decoder.decode(buf.subarray(s, e));
    const scan = this.scan;
    if (scan && e - s <= this.s.maxLineBytes) {
      const count = ascii ? (a: number, b: number): number => this.countNl(buf, s + a, s + b, base) : (a: number, b: number): number => countText(text, a, b);
      let cursor = 0;
      let before = 0;
      scan.lastIndex = 0;
      for (let m = scan.exec(text); m !== null; m = scan.exec(text)) {
        // An empty match may sit on the newline that ends its line: look back from before it.
        const ls = m.index === 0 ? 0 : text.lastIndexOf('\n', m.index - 1) + 1;
        let le = text.indexOf('\n', m.index);
        if (le === -1) le = text.length;
        before += count(cursor, ls);
        this.matchLine(text.slice(ls, le), lineNo + before + 1);
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
      this.matchLine(this.capText(text.slice(ls, le)), ++number);
      ls = le + 1;
    }
  }

  private addCarry(bytes: Uint8Array): void {
    const take = Math.min(bytes.length, this.s.maxLineBytes + 1 - this.carry.length);
    if (take > 0) this.carry = Buffer.concat([this.carry, bytes.subarray(0, take)]);
  }

  private finishCarry(): void {
    const line = this.decodeCapped(this.carry);
    this.carry = EMPTY;
    this.matchLine(line, ++this.lineNo);
  }
}

function countBytes(buf: Buffer, a: number, b: number): number {
  let n = 0;
  for (let p = buf.indexOf(10, a); p !== -1 && p < b; p = buf.indexOf(10, p + 1)) n++;
  return n;
}

function countText(text: string, a: number, b: number): number {
  let n = 0;
  for (let p = text.indexOf('\n', a); p !== -1 && p < b; p = text.indexOf('\n', p + 1)) n++;
  return n;
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
      }
    } catch (e) {
      post({ type: 'error', message: String((e as Error)?.message ?? e) });
    }
  });
}

if (!isMainThread && parentPort && workerData === PATTERN_WORKER_MARK) servePatternSearches(parentPort);
