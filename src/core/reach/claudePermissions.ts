/**
 * Claude Code checks its rules against the command after a PreToolUse rewrite, so a person's `Bash(node build.js:*)`
 * would no longer match the routed form; the hook therefore decides for the ORIGINAL as the rules say
 * (docs/contracts.md §6.1, "Approvals"): deny or ask leaves it alone, allow of every simple command routes with
 * `allow`, else `none` (the adapter leaves it as written where Claude Code would ask). `--allowedTools` rules are
 * read from the client's command line by the hook (`commandLineRules`). Pure.
 */

export type ClaudeVerdict = 'allow' | 'leave' | 'none';

/** Malformed text: none. */
export function bashRulesOf(settingsText: string | undefined): { allow: string[]; deny: string[]; ask: string[] } {
  const out = { allow: [] as string[], deny: [] as string[], ask: [] as string[] };
  if (settingsText === undefined) return out;
  let doc: unknown;
  try {
    doc = JSON.parse(settingsText);
  } catch {
    return out;
  }
  const perms = (doc as { permissions?: Record<string, unknown> } | null)?.permissions;
  if (typeof perms !== 'object' || perms === null) return out;
  for (const kind of ['allow', 'deny', 'ask'] as const) {
    const list = perms[kind];
    if (!Array.isArray(list)) continue;
    for (const r of list) {
      if (typeof r !== 'string') continue;
      const m = /^Bash(?:\((.*)\))?$/s.exec(r.trim());
      if (m) out[kind].push(m[1] ?? '*');
    }
  }
  return out;
}

export function ruleMatches(pattern: string, command: string): boolean {
  const c = command.trim();
  const p = pattern.trim();
  if (p === '*' || p === '') return true;
  if (p.endsWith(':*')) {
    const prefix = p.slice(0, -2);
    return c === prefix || c.startsWith(`${prefix} `);
  }
  if (!p.includes('*')) return c === p;
  const re = new RegExp(
    `^${p
      .split('*')
      .map((x) => x.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
    's',
  );
  return re.test(c);
}

/** Undefined when the line holds anything a rule cannot speak for (substitutions, a newline, an unclosed quote). */
export function simpleCommands(line: string): string[] | undefined {
  if (/\$\(|`|<\(|>\(|\n/.test(line)) return undefined;
  const parts: string[] = [];
  let cur = '';
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (quote) {
      cur += ch;
      if (ch === quote) quote = undefined;
      else if (ch === '\\' && quote === '"' && i + 1 < line.length) cur += line[++i]!;
      continue;
    }
    if (ch === "'" || ch === '"') {
      quote = ch;
      cur += ch;
      continue;
    }
    if (ch === '\\' && i + 1 < line.length) {
      cur += ch + line[++i]!;
      continue;
    }
    if (ch === ';' || ch === '|' || ch === '&') {
      if (line[i + 1] === ch) i++;
      if (cur.trim() !== '') parts.push(cur.trim());
      cur = '';
      continue;
    }
    cur += ch;
  }
  if (quote) return undefined;
  if (cur.trim() !== '') parts.push(cur.trim());
  return parts;
}

/** Deny and ask win over allow. */
export function claudeVerdict(command: string, settingsTexts: readonly (string | undefined)[]): ClaudeVerdict {
  const rules = { allow: [] as string[], deny: [] as string[], ask: [] as string[] };
  for (const t of settingsTexts) {
    const r = bashRulesOf(t);
    rules.allow.push(...r.allow);
    rules.deny.push(...r.deny);
    rules.ask.push(...r.ask);
  }
  const parts = simpleCommands(command);
  const whole = command.trim();
  const any = (patterns: string[], c: string): boolean => patterns.some((p) => ruleMatches(p, c));
  if ([whole, ...(parts ?? [])].some((c) => any(rules.deny, c) || any(rules.ask, c))) return 'leave';
  // A bare `Bash` (or `Bash(*)`) allows every command, whatever its syntax.
  if (rules.allow.some((p) => p.trim() === '*' || p.trim() === '')) return 'allow';
  if (parts && parts.length > 0 && parts.every((c) => any(rules.allow, c))) return 'allow';
  return 'none';
}

/**
 * The rules given on Claude Code's command line (`--allowedTools` / `--allowed-tools`, `--disallowedTools` /
 * `--disallowed-tools`: comma or space separated, each flag taking the words up to the next flag), as a settings text
 * `claudeVerdict` reads; undefined when `args` are not Claude Code's.
 */
export function commandLineRules(args: readonly string[]): string | undefined {
  if (!args.slice(0, 2).some((a) => /(?:^|\/)claude(?:\.exe)?$|@anthropic-ai\/claude-code\//.test(a))) return undefined;
  const lists = { allow: [] as string[], deny: [] as string[] };
  let into: string[] | undefined;
  for (const a of args.slice(1)) {
    if (a.startsWith('-')) {
      const eq = a.indexOf('=');
      const flag = eq < 0 ? a : a.slice(0, eq);
      into = /^--allowed-?tools$/i.test(flag)
        ? lists.allow
        : /^--disallowed-?tools$/i.test(flag)
          ? lists.deny
          : undefined;
      if (into && eq >= 0) into.push(...splitRules(a.slice(eq + 1)));
    } else into?.push(...splitRules(a));
  }
  return JSON.stringify({ permissions: lists });
}

/** `Bash(git log:*),Edit Read` → the rules, split at commas and blanks outside parentheses. */
function splitRules(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of text) {
    if (ch === '(') depth++;
    if (ch === ')') depth = Math.max(0, depth - 1);
    if (depth === 0 && (ch === ',' || /\s/.test(ch))) {
      if (cur) out.push(cur);
      cur = '';
    } else cur += ch;
  }
  if (cur) out.push(cur);
  return out;
}
