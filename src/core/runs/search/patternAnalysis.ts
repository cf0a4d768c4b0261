/**
 * Pure analysis of a pattern (docs/contracts.md §2.10). Sound by construction: a prefilter built on it can add work
 * but never change the answer, because every candidate line is still tested with the pattern itself.
 */

/**
 * Null when none can be proven: a top-level `|` gives up; groups, classes and one-atom escapes break a run;
 * multi-character escapes stop extraction; optional atoms drop out. A run holding a newline or a lone surrogate is
 * not used.
 */
export function requiredLiteral(pattern: string): string | null {
  // Any top-level alternation makes every literal optional.
  let depth = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '[') {
      i = skipClass(pattern, i);
      continue;
    }
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === '|' && depth === 0) return null;
  }
  let best = '';
  let run = '';
  const commit = (): void => {
    if (run.length > best.length) best = run;
    run = '';
  };
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    let literal: string | undefined;
    let end = i;
    if (c === '\\') {
      const n = pattern[i + 1];
      if (n === undefined || (/[A-Za-z0-9]/.test(n) && !'dDwWsSbBtnrfv'.includes(n))) {
        commit();
        break;
      }
      end = i + 1;
      // One atom each (a class, an assertion, a control character): they end the run.
      if (!/[A-Za-z]/.test(n)) literal = n;
    } else if (c === '[') {
      end = skipClass(pattern, i);
    } else if (c === '(') {
      end = skipGroup(pattern, i);
    } else if (!'.^$'.includes(c)) literal = c;
    const q = quantifierAt(pattern, end + 1);
    if (literal === undefined) {
      commit();
      i = q ? q.end : end;
      continue;
    }
    if (!q) {
      run += literal;
      i = end;
      continue;
    }
    if (q.min >= 1) run += literal;
    commit();
    i = q.end;
  }
  commit();
  if (
    best.length === 0 ||
    best.includes('\n') ||
    /[\ud800-\udfff]/.test(best.replace(/[\ud800-\udbff][\udc00-\udfff]/g, ''))
  )
    return null;
  return best;
}

/** In JavaScript `[]` is an empty class. */
function skipClass(p: string, start: number): number {
  let i = start + 1;
  if (p[i] === '^') i++;
  for (; i < p.length; i++) {
    if (p[i] === '\\') i++;
    else if (p[i] === ']') return i;
  }
  return p.length;
}

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

function quantifierAt(p: string, i: number): { min: number; end: number } | undefined {
  const c = p[i];
  let min: number;
  let end: number;
  if (c === '*' || c === '?') {
    min = 0;
    end = i;
  } else if (c === '+') {
    min = 1;
    end = i;
  } else if (c === '{') {
    const m = /^\{(\d+)(,\d*)?\}/.exec(p.slice(i));
    if (!m) return undefined; // a literal `{` outside unicode mode
    min = Number(m[1]);
    end = i + m[0].length - 1;
  } else return undefined;
  if (p[end + 1] === '?') end++;
  return { min, end };
}

const SAFE_ESCAPE = /^[dwbBtrfv -/:-@[-`{-~]$/;

/**
 * Conservative: anything not proven (`\s`, `[^…]`, escapes, backreferences, lookarounds, a raw newline) answers
 * false.
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

/**
 * Over binary content a character is one byte (latin1), so a literal non-ASCII character becomes its UTF-8 bytes;
 * escapes and classes stay as written, since they name one byte.
 */
export function utf8BytePattern(pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') {
      out += c + (pattern[i + 1] ?? '');
      i++;
      continue;
    }
    if (c === '[') {
      const end = skipClass(pattern, i);
      out += pattern.slice(i, end + 1);
      i = end;
      continue;
    }
    const cp = pattern.codePointAt(i)!;
    if (cp < 0x80) {
      out += c;
      continue;
    }
    const ch = String.fromCodePoint(cp);
    // A lone surrogate has no UTF-8 form: kept as written (it matches nothing in latin1 text).
    if (cp >= 0xd800 && cp <= 0xdfff) {
      out += c;
      continue;
    }
    out += `(?:${[...Buffer.from(ch, 'utf8')].map((b) => `\\x${b.toString(16).padStart(2, '0')}`).join('')})`;
    i += ch.length - 1;
  }
  return out;
}

/**
 * docs/contracts.md §2.10. The matcher and the lane join both count with this one formula: the join is exact only
 * while they count alike.
 */
export function matchChars(followsAnother: boolean, lineNumber: number, text: string): number {
  return (followsAnother ? 1 : 0) + String(lineNumber).length + 1 + text.length;
}

/** grep -a shows raw bytes; the model needs text it can read and quote. */
export function escapeBinary(latin1: string): string {
  let out = '';
  for (let i = 0; i < latin1.length; i++) {
    const c = latin1.charCodeAt(i);
    if (c === 0x5c) out += '\\\\';
    else if (c >= 0x20 && c < 0x7f) out += latin1[i];
    else out += `\\x${c.toString(16).padStart(2, '0')}`;
  }
  return out;
}
