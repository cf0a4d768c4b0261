/**
 * Error-first observations (docs/contracts.md §2.13). The scan sees every kept byte once, as the capture passes it
 * on, and tests a rule only on lines holding one of its gate literals, each line alone as `read_tool_output`'s
 * pattern mode does, so its count equals the `total_matches` of the pattern call it names.
 */
import { floorCodePointBoundary } from '../../utf8.js';
import { ERROR_RULES, type ErrorRule, type ErrorRuleKind } from './errorRules.js';
import type { ErrorLines } from '../log/records.js';

/**
 * Past this the scan stops and its count says which bytes it covers; the tail preview and the pattern call still
 * reach the end.
 */
const SCAN_MAX_BYTES = 1024 * 1024 * 1024;
const SCAN_LINE_BYTES = 64 * 1024;
/** The first in output order. */
export const KEEP_LINES = 6;
export const KEEP_CHARS = 2000;
/** Must match the reader's marker (`reader.ts`). */
const CUT = '…[line cut]';

interface ScannedLine {
  readonly lineNumber: number;
  /** The leftmost of its matching rules. */
  readonly byteOffset: number;
  readonly text: string;
  readonly matchAt: number;
  readonly start: number;
  readonly end: number;
  readonly startsLine: boolean;
  readonly endsLine: boolean;
}

export interface KindScan {
  /** A line counts once. */
  readonly count: number;
  /** In table order. */
  readonly rules: readonly string[];
  readonly lines: readonly ScannedLine[];
}

/** `failure` lines include the clear ones. */
export interface ErrorScanResult {
  readonly clear: KindScan;
  readonly failure: KindScan;
  readonly fallback: KindScan;
  readonly scannedBytes?: number;
}

interface Compiled {
  readonly rule: ErrorRule;
  readonly re: RegExp;
}

/** Built once per process. */
interface Table {
  /** The union rules out most candidate lines in one test. */
  readonly specific: readonly Compiled[];
  readonly specificUnion: RegExp;
  readonly fallback: readonly Compiled[];
  readonly fallbackUnion: RegExp;
  /** The fallback's gates are dropped once it cannot be used. */
  readonly gateAll: Gate;
  readonly gateSpecific: Gate;
}

/**
 * Finds the gate literals in plain code, which outruns one regular expression over dozens of alternatives: each gate
 * is indexed by its rarest byte pair in a 64 Ki table.
 */
class Gate {
  private readonly flags = new Uint8Array(65536);
  private readonly byPair = new Map<number, { readonly bytes: Buffer; readonly k: number }[]>();

  constructor(rules: readonly ErrorRule[]) {
    const all = [...new Set(rules.flatMap((r) => r.gates))];
    // A gate that contains another gate adds nothing.
    const minimal = all.filter((g) => !all.some((h) => h !== g && g.includes(h)));
    for (const g of minimal) {
      const bytes = Buffer.from(g, 'utf8');
      let k = 0;
      for (let i = 1; i + 1 < bytes.length; i++)
        if (weight(bytes[i]!) + weight(bytes[i + 1]!) < weight(bytes[k]!) + weight(bytes[k + 1]!)) k = i;
      const pair = (bytes[k]! << 8) | bytes[k + 1]!;
      this.flags[pair] = 1;
      this.byPair.set(pair, [...(this.byPair.get(pair) ?? []), { bytes, k }]);
    }
  }

  scan(buf: Buffer, s: number, e: number, hit: (lineStart: number, newlinesBefore: number) => void): number {
    const flags = this.flags;
    let nl = 0;
    let lineStart = s;
    let prev = 10;
    for (let i = s; i < e; i++) {
      const b = buf[i]!;
      if (b === 10) {
        nl++;
        lineStart = i + 1;
        prev = 10;
        continue;
      }
      const pair = (prev << 8) | b;
      prev = b;
      if (flags[pair] === 0) continue;
      if (!this.matchAt(buf, i - 1, pair, lineStart, e)) continue;
      hit(lineStart, nl);
      // The rest of the line is not looked at: the rules test it whole.
      const le = buf.indexOf(10, i);
      if (le === -1 || le >= e) return nl;
      i = le - 1;
      prev = 10;
    }
    return nl;
  }

  private matchAt(buf: Buffer, p: number, pair: number, from: number, to: number): boolean {
    for (const { bytes, k } of this.byPair.get(pair)!) {
      const a = p - k;
      if (a < from || a + bytes.length > to) continue;
      if (buf.compare(bytes, 0, bytes.length, a, a + bytes.length) === 0) return true;
    }
    return false;
  }
}

const LETTERS = 'etaoinshrdlcumwfgypbvkjxqz';

/** The pair of a gate is chosen by it. */
function weight(b: number): number {
  if (b === 32) return 30;
  const i = LETTERS.indexOf(String.fromCharCode(b));
  if (i !== -1) return 28 - i;
  if (b >= 65 && b <= 90) return 3;
  return b >= 48 && b <= 57 ? 2 : 1;
}

function buildTable(): Table {
  const specific = ERROR_RULES.filter((r) => r.kind !== 'fallback');
  const fallback = ERROR_RULES.filter((r) => r.kind === 'fallback');
  const compile = (rs: readonly ErrorRule[]): Compiled[] => rs.map((rule) => ({ rule, re: new RegExp(rule.pattern) }));
  return {
    specific: compile(specific),
    specificUnion: new RegExp(specific.map((r) => r.pattern).join('|')),
    fallback: compile(fallback),
    fallbackUnion: new RegExp(fallback.map((r) => r.pattern).join('|')),
    gateAll: new Gate(ERROR_RULES),
    gateSpecific: new Gate(specific),
  };
}

const TABLE = buildTable();

class Kind {
  count = 0;
  readonly fired = new Set<string>();
  readonly lines: ScannedLine[] = [];
  result(): KindScan {
    return {
      count: this.count,
      rules: ERROR_RULES.filter((r) => this.fired.has(r.id)).map((r) => r.id),
      lines: this.lines,
    };
  }
}

export class ErrorScan {
  private readonly t = TABLE;
  private readonly kinds: Record<ErrorRuleKind, Kind> = {
    clear: new Kind(),
    failure: new Kind(),
    fallback: new Kind(),
  };
  private lineNo = 0;
  private seen = 0;
  private pend: Buffer | null = null;
  private pendStart = 0;
  private stopped = false;
  private scannedTo = 0;

  constructor(private readonly maxBytes = SCAN_MAX_BYTES) {}

  push(piece: Uint8Array): void {
    if (this.stopped) return;
    if (this.seen + piece.length > this.maxBytes) {
      // Whole lines only: the line running at the limit is not scanned.
      const cut = Buffer.from(piece.buffer, piece.byteOffset, Math.max(0, this.maxBytes - this.seen));
      const nl = cut.lastIndexOf(10);
      if (nl !== -1) this.push(cut.subarray(0, nl + 1));
      this.stopped = true;
      this.scannedTo = this.pend ? this.pendStart : this.seen;
      this.pend = null;
      return;
    }
    const buf = Buffer.from(piece.buffer, piece.byteOffset, piece.length);
    const base = this.seen;
    this.seen += buf.length;
    let s = 0;
    if (this.pend) {
      const nl = buf.indexOf(10);
      this.addPend(buf.subarray(0, nl === -1 ? buf.length : nl));
      if (nl === -1) return;
      this.endPend();
      s = nl + 1;
    }
    const e = buf.lastIndexOf(10);
    if (e >= s) {
      this.region(buf, s, e, base);
      s = e + 1;
    }
    if (s < buf.length) {
      this.pend = Buffer.alloc(0);
      this.pendStart = base + s;
      this.addPend(buf.subarray(s));
    }
  }

  end(): ErrorScanResult {
    if (this.pend) this.endPend();
    return {
      clear: this.kinds.clear.result(),
      failure: this.kinds.failure.result(),
      fallback: this.kinds.fallback.result(),
      ...(this.stopped ? { scannedBytes: this.scannedTo } : {}),
    };
  }

  private addPend(bytes: Buffer): void {
    const room = SCAN_LINE_BYTES - this.pend!.length;
    if (room <= 0 || bytes.length === 0) return;
    this.pend = Buffer.concat([this.pend!, bytes.subarray(0, room)]);
  }

  private endPend(): void {
    const line = this.pend!;
    this.pend = null;
    let held = false;
    this.gate().scan(line, 0, line.length, () => {
      held = true;
    });
    if (held) this.testLine(line, 0, line.length, this.pendStart, this.lineNo + 1, line.length < SCAN_LINE_BYTES);
    this.lineNo++;
  }

  private region(buf: Buffer, s: number, e: number, base: number): void {
    const first = this.lineNo;
    const nl = this.gate().scan(buf, s, e + 1, (ls, before) => {
      let le = buf.indexOf(10, ls);
      if (le === -1 || le > e) le = e;
      const cut = le - ls > SCAN_LINE_BYTES;
      this.testLine(buf, ls, cut ? ls + SCAN_LINE_BYTES : le, base + ls, first + before + 1, !cut);
    });
    this.lineNo += nl;
  }

  /**
   * The fallback's words hit many lines (`detail`, `email`): looked for only while no specific failure line was
   * found.
   */
  private gate(): Gate {
    return this.kinds.failure.count ? this.t.gateSpecific : this.t.gateAll;
  }

  private testLine(buf: Buffer, a: number, b: number, at: number, number: number, whole: boolean): void {
    const end = whole ? b : a + floorCodePointBoundary(buf.subarray(a, b), b - a);
    const text = buf.toString('utf8', a, end);
    if (this.t.specificUnion.test(text)) {
      const first: Record<'clear' | 'failure', number> = { clear: -1, failure: -1 };
      const hits: Record<'clear' | 'failure', string[]> = { clear: [], failure: [] };
      for (const { rule, re } of this.t.specific) {
        const m = re.exec(text);
        if (m === null) continue;
        // `failure` lines include the clear ones: a failed command shows both kinds.
        for (const k of rule.kind === 'clear' ? (['clear', 'failure'] as const) : (['failure'] as const)) {
          hits[k].push(rule.id);
          if (first[k] === -1 || m.index < first[k]) first[k] = m.index;
        }
      }
      for (const k of ['clear', 'failure'] as const)
        if (first[k] !== -1) this.count(k, hits[k], text, first[k], at, number, whole);
    }
    // Afterwards the fallback is never used.
    if (this.kinds.failure.count === 0 && this.t.fallbackUnion.test(text)) {
      let first = -1;
      const hits: string[] = [];
      for (const { rule, re } of this.t.fallback) {
        const m = re.exec(text);
        if (m === null) continue;
        hits.push(rule.id);
        if (first === -1 || m.index < first) first = m.index;
      }
      this.count('fallback', hits, text, first, at, number, whole);
    }
  }

  private count(
    k: ErrorRuleKind,
    ids: readonly string[],
    text: string,
    matchAt: number,
    at: number,
    number: number,
    whole: boolean,
  ): void {
    const kind = this.kinds[k];
    kind.count++;
    for (const id of ids) kind.fired.add(id);
    if (kind.lines.length < KEEP_LINES) kind.lines.push(keptLine(text, matchAt, at, number, whole));
  }
}

function keptLine(text: string, matchAt: number, lineStart: number, lineNumber: number, whole: boolean): ScannedLine {
  const byteAt = (i: number): number => lineStart + Buffer.byteLength(text.slice(0, i));
  if (whole && text.length <= KEEP_CHARS) {
    return {
      lineNumber,
      byteOffset: byteAt(matchAt),
      text,
      matchAt,
      start: lineStart,
      end: byteAt(text.length),
      startsLine: true,
      endsLine: true,
    };
  }
  const [a, b] = windowAround(text, matchAt, KEEP_CHARS);
  return {
    lineNumber,
    byteOffset: byteAt(matchAt),
    text: text.slice(a, b),
    matchAt: matchAt - a,
    start: byteAt(a),
    end: byteAt(b),
    startsLine: a === 0,
    endsLine: whole && b === text.length,
  };
}

const isLow = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff;

/** A third before; never splits a surrogate pair. */
function windowAround(text: string, at: number, room: number): [number, number] {
  let a = Math.max(0, at - Math.floor(room / 3));
  let b = Math.min(text.length, a + room);
  a = Math.max(0, b - room);
  if (a > 0 && isLow(text.charCodeAt(a))) a++;
  if (b < text.length && isLow(text.charCodeAt(b))) b--;
  return [a, b];
}

export function kindFor(scan: ErrorScanResult, failed: boolean): KindScan | undefined {
  if (!failed) return scan.clear.count ? scan.clear : undefined;
  if (scan.failure.count) return scan.failure;
  return scan.fallback.count ? scan.fallback : undefined;
}

/** The `read_tool_output` pattern that pages through every counted line. */
function unionPattern(ruleIds: readonly string[]): string {
  return ERROR_RULES.filter((r) => ruleIds.includes(r.id))
    .map((r) => r.pattern)
    .join('|');
}

/** The first line is always shown, as a window around its match when longer than `budget`. */
export function selectErrorLines(
  scan: ErrorScanResult,
  failed: boolean,
  budget: number,
): { lines: ErrorLines; bytes: number } | undefined {
  const kind = kindFor(scan, failed);
  if (!kind) return undefined;
  const shown: ErrorLines['lines'][number][] = [];
  let used = 0;
  for (const l of kind.lines) {
    const text = shownText(l);
    const n = Buffer.byteLength(text);
    if (used + n <= budget) {
      shown.push(entry(l, text));
      used += n;
      continue;
    }
    if (shown.length === 0) {
      const w = narrowed(l, budget);
      shown.push(w.entry);
      used += Buffer.byteLength(w.entry.text);
    }
    break;
  }
  const scanned = scan.scannedBytes !== undefined ? { scannedBytes: scan.scannedBytes } : {};
  return { lines: { total: kind.count, pattern: unionPattern(kind.rules), lines: shown, ...scanned }, bytes: used };
}

function shownText(l: ScannedLine): string {
  return (l.startsLine ? '' : '…') + l.text + (l.endsLine ? '' : CUT);
}

function entry(l: ScannedLine, text: string): ErrorLines['lines'][number] {
  const window = l.startsLine && l.endsLine ? undefined : { start: l.start, end: l.end };
  return { lineNumber: l.lineNumber, byteOffset: l.byteOffset, text, ...(window ? { window } : {}) };
}

function narrowed(l: ScannedLine, budget: number): { entry: ErrorLines['lines'][number] } {
  let room = Math.max(1, budget - Buffer.byteLength('…' + CUT));
  for (;;) {
    const [a, b] = windowAround(l.text, l.matchAt, room);
    const start = l.start + Buffer.byteLength(l.text.slice(0, a));
    const end = start + Buffer.byteLength(l.text.slice(a, b));
    const startsLine = l.startsLine && a === 0;
    const endsLine = l.endsLine && b === l.text.length;
    const text = (startsLine ? '' : '…') + l.text.slice(a, b) + (endsLine ? '' : CUT);
    if (Buffer.byteLength(text) <= budget || room <= 1) {
      return { entry: { lineNumber: l.lineNumber, byteOffset: l.byteOffset, text, window: { start, end } } };
    }
    room = Math.max(1, room - (Buffer.byteLength(text) - budget));
  }
}
