/**
 * Factory Droid's approvals, applied to the ORIGINAL command (docs/contracts.md §6.1, "Approvals"). Droid checks the
 * command it runs: its risk check lets the routed form run only in autonomy High, and its deny and block lists no
 * longer match it. So the hook routes only where Droid would run the original unasked too: in autonomy High
 * (`permission_mode: "auto-high"`), and only a command no listed pattern may match. Pure: the hook reads the files.
 */
import { parse } from 'jsonc-parser';

/** Droid 0.225's own deny list (its default `commandDenylist`), kept even where a person's list replaces it. */
const DROID_DENYLIST = [
  'rm -rf /',
  'rm -r /',
  'mkfs',
  'dd if=/dev/zero of=/dev',
  'dd of=/dev',
  'shutdown',
  'reboot',
  'halt',
  'poweroff',
  'init 0',
  'init 6',
  ':(){ :|: & };:',
  'chmod -R 777 /',
  'chmod -R 000 /',
  'chown -R',
  'Format-Volume',
  'format.com',
  'powershell Remove-Item -Recurse -Force',
];

/** The deny and block patterns of one settings text (top level or `general`); undefined: rules we cannot read. */
export function droidListsOf(text: string | undefined): string[] | undefined {
  if (text === undefined) return [];
  const doc = parse(text) as unknown;
  if (typeof doc !== 'object' || doc === null) return [];
  const d = doc as Record<string, unknown>;
  const general = (typeof d.general === 'object' && d.general !== null ? d.general : {}) as Record<string, unknown>;
  if (d.permissionRules !== undefined || general.permissionRules !== undefined) return undefined;
  const out: string[] = [];
  for (const at of [d, general])
    for (const key of ['commandDenylist', 'commandBlocklist']) {
      const list = at[key];
      if (Array.isArray(list)) out.push(...list.filter((p): p is string => typeof p === 'string' && p.trim() !== ''));
    }
  return out;
}

const squash = (s: string): string => s.trim().replace(/\s+/g, ' ');

/**
 * True when a pattern may match `command`, meant wider than Droid's own test (a false match only leaves a command
 * unrouted): a word of the command is the pattern's program and it holds the pattern's other words, or the whole.
 */
export function droidListed(command: string, pattern: string): boolean {
  const [program, ...rest] = squash(pattern).split(' ');
  const words = command.split(/[\s;|&(){}<>`"'$\\=]+/).map((w) => w.slice(w.lastIndexOf('/') + 1));
  return (
    (words.includes(program!) && rest.every((w) => command.includes(w))) || squash(command).includes(squash(pattern))
  );
}

/** Route (no decision: Droid still checks the routed form) or leave as written, and why. */
export function droidVerdict(
  command: string,
  permissionMode: unknown,
  settingsTexts: readonly (string | undefined)[],
): { route: true } | { route: false; reason: string } {
  if (permissionMode !== 'auto-high')
    return {
      route: false,
      reason: `Droid would ask about the routed form in autonomy ${String(permissionMode)}: it runs as written`,
    };
  const patterns = [...DROID_DENYLIST];
  for (const t of settingsTexts) {
    const lists = droidListsOf(t);
    if (lists === undefined) return { route: false, reason: "Droid's permissionRules apply to the command as written" };
    patterns.push(...lists);
  }
  const hit = patterns.find((p) => droidListed(command, p));
  return hit === undefined
    ? { route: true }
    : { route: false, reason: `Droid's command list names "${hit}": it applies it to the command as written` };
}
