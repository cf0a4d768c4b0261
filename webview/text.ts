/**
 * Tool output as inert, visible text: controls become visible symbols, bidi and zero-width characters visible markers
 * (so they cannot reorder what is shown), ANSI colours classes from a fixed vocabulary, and every other escape
 * sequence is dropped. Pure, unit-tested in Node.
 */

/** Only class names this module makes. */
export interface Segment {
  readonly text: string;
  readonly cls: string;
}

const formatNames: ReadonlyMap<number, string> = new Map([
  [0x061c, 'ALM'],
  [0x200b, 'ZWSP'],
  [0x200c, 'ZWNJ'],
  [0x200d, 'ZWJ'],
  [0x200e, 'LRM'],
  [0x200f, 'RLM'],
  [0x202a, 'LRE'],
  [0x202b, 'RLE'],
  [0x202c, 'PDF'],
  [0x202d, 'LRO'],
  [0x202e, 'RLO'],
  [0x2028, 'LS'],
  [0x2029, 'PS'],
  [0x2060, 'WJ'],
  [0x2061, 'FA'],
  [0x2062, 'IT'],
  [0x2063, 'IS'],
  [0x2064, 'IP'],
  [0x2066, 'LRI'],
  [0x2067, 'RLI'],
  [0x2068, 'FSI'],
  [0x2069, 'PDI'],
  [0xfeff, 'BOM'],
]);

/** Anything longer shows its ESC visibly instead. */
const maxEscapeChars = 4096;

const hex4 = (c: number): string => c.toString(16).toUpperCase().padStart(4, '0');

export function visibleControl(c: number): string | undefined {
  if (c === 0x09 || c === 0x0a) return undefined;
  if (c < 0x20) return String.fromCharCode(0x2400 + c); // ␀ ␁ … ␟ (Control Pictures)
  if (c === 0x7f) return '␡';
  if (c >= 0x80 && c <= 0x9f) return `⟨U+${hex4(c)}⟩`;
  const name = formatNames.get(c);
  return name ? `⟨U+${hex4(c)} ${name}⟩` : undefined;
}

/** As the terminal that printed them would. */
interface Sgr {
  fg: number | undefined;
  bg: number | undefined;
  bold: boolean;
  italic: boolean;
  underline: boolean;
}

function sgrClass(s: Sgr): string {
  const parts: string[] = [];
  if (s.fg !== undefined) parts.push(`a-fg${s.fg}`);
  if (s.bg !== undefined) parts.push(`a-bg${s.bg}`);
  if (s.bold) parts.push('a-b');
  if (s.italic) parts.push('a-i');
  if (s.underline) parts.push('a-u');
  return parts.join(' ');
}

function applySgr(s: Sgr, params: string): void {
  const codes = params === '' ? [0] : params.split(/[;:]/).map((p) => (p === '' ? 0 : Number(p)));
  for (let i = 0; i < codes.length; i++) {
    const c = codes[i]!;
    if (c === 0) {
      s.fg = undefined;
      s.bg = undefined;
      s.bold = false;
      s.italic = false;
      s.underline = false;
    } else if (c === 1) s.bold = true;
    else if (c === 3) s.italic = true;
    else if (c === 4) s.underline = true;
    else if (c === 22) s.bold = false;
    else if (c === 23) s.italic = false;
    else if (c === 24) s.underline = false;
    else if (c >= 30 && c <= 37) s.fg = c - 30;
    else if (c >= 90 && c <= 97) s.fg = c - 90 + 8;
    else if (c === 39) s.fg = undefined;
    else if (c >= 40 && c <= 47) s.bg = c - 40;
    else if (c >= 100 && c <= 107) s.bg = c - 100 + 8;
    else if (c === 49) s.bg = undefined;
    else if (c === 38 || c === 48) {
      // 256-colour and true-colour forms: skip their arguments.
      const mode = codes[i + 1];
      i += mode === 5 ? 2 : mode === 2 ? 4 : 1;
    }
  }
}

function scanEscape(t: string, i: number): { end: number; sgr?: string } | undefined {
  const next = t.charCodeAt(i + 1);
  if (Number.isNaN(next)) return undefined;
  const limit = Math.min(t.length, i + maxEscapeChars);
  if (next === 0x5b) {
    // CSI: parameters 0x30–0x3F, intermediates 0x20–0x2F, final 0x40–0x7E
    let j = i + 2;
    while (j < limit && t.charCodeAt(j) >= 0x30 && t.charCodeAt(j) <= 0x3f) j++;
    const params = t.slice(i + 2, j);
    while (j < limit && t.charCodeAt(j) >= 0x20 && t.charCodeAt(j) <= 0x2f) j++;
    const f = t.charCodeAt(j);
    if (!(f >= 0x40 && f <= 0x7e)) return undefined;
    return f === 0x6d && /^[0-9;:]*$/.test(params) ? { end: j + 1, sgr: params } : { end: j + 1 };
  }
  if (next === 0x5d || next === 0x50 || next === 0x58 || next === 0x5e || next === 0x5f) {
    // OSC, DCS, SOS, PM, APC: to BEL or ST
    for (let j = i + 2; j < limit; j++) {
      const c = t.charCodeAt(j);
      if (c === 0x07 && next === 0x5d) return { end: j + 1 };
      if (c === 0x1b && t.charCodeAt(j + 1) === 0x5c) return { end: j + 2 };
    }
    return undefined;
  }
  if (next >= 0x20 && next <= 0x7e) return { end: i + 2 }; // two-character escapes (charset, keypad, …)
  return undefined;
}

/** Keeps ANSI colour state from one call to the next. */
export class TextSegmenter {
  private readonly sgr: Sgr = { fg: undefined, bg: undefined, bold: false, italic: false, underline: false };

  segments(t: string): Segment[] {
    const out: Segment[] = [];
    let buf = '';
    let cls = sgrClass(this.sgr);
    const push = (text: string, c: string): void => {
      const last = out[out.length - 1];
      if (last && last.cls === c) out[out.length - 1] = { text: last.text + text, cls: c };
      else out.push({ text, cls: c });
    };
    const flush = (): void => {
      if (buf) {
        push(buf, cls);
        buf = '';
      }
    };
    for (let i = 0; i < t.length; i++) {
      const c = t.charCodeAt(i);
      if (c === 0x1b) {
        const esc = scanEscape(t, i);
        if (esc) {
          flush();
          if (esc.sgr !== undefined) {
            applySgr(this.sgr, esc.sgr);
            cls = sgrClass(this.sgr);
          }
          i = esc.end - 1;
          continue;
        }
      }
      const shown = visibleControl(c);
      if (shown === undefined) {
        buf += t[i];
        continue;
      }
      flush();
      push(shown, 'ctl');
    }
    flush();
    return out;
  }
}
