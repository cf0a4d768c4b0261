/**
 * VS Code's built-in agent in its Local harness (docs/contracts.md §6.1): the hook half. Its `run_in_terminal` runs
 * the command in the person's integrated terminal, so the routed form must suit that terminal: a POSIX shell only,
 * `:; ` before the group (bash's shell integration marks the command's start at the line's first simple command), and
 * the one line the terminal is given names the spool's script, not the wrapped command. Its configuration is the
 * Copilot hook file (copilot.ts), which this route is part of.
 */
import { SPOOL_RUN } from '../rewrite.js';
import { updatedInputAnswer } from './common.js';
import type { HookContext, ToolRoute } from './types.js';

/** The variable the extension sets in every integrated terminal to its storage folder. */
const TERMINAL_STORAGE_VAR = 'BOUNDED_EVIDENCE_STORAGE';

/**
 * Shells whose quoting the rewritten command relies on: POSIX single quotes. fish reads
 * `\\` and `\'` inside single quotes and PowerShell has its own quoting, so in their
 * terminals (and for commands written in their syntax, which `/bin/sh -c` could not run
 * anyway) `run_in_terminal` stays unrouted.
 */
const POSIX_SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'busybox']);

const basename = (w: string): string => w.slice(w.lastIndexOf('/') + 1);

/**
 * The line VS Code's terminal is given (docs/contracts.md §6.1):
 * `. "$BOUNDED_EVIDENCE_STORAGE/evidence/spool/<id>/run"`, the wrapped command sourced from its spool. The terminal
 * echoes the typed line into what the model gets, and VS Code strips that echo only for a line it finds whole in the
 * output (a line of the terminal's width or so, with no second line): the wrapped command itself is ~600 bytes over
 * several lines. Sourcing runs it in the same shell, as the group does. Only when the hook's storage is the terminals'
 * (`BOUNDED_EVIDENCE_STORAGE`, which the extension sets in every integrated terminal) and the spool's path below it is
 * plain; else undefined.
 */
function terminalLine(spool: string, ctx: HookContext): string | undefined {
  if (!ctx.writeRun || ctx.terminalStorage === undefined || ctx.terminalStorage !== ctx.storage) return undefined;
  const rel = spool.startsWith(`${ctx.storage}/`) ? spool.slice(ctx.storage.length) : '';
  if (!/^\/[A-Za-z0-9/_.-]+$/.test(rel)) return undefined;
  return `. "$${TERMINAL_STORAGE_VAR}${rel}/${SPOOL_RUN}"`;
}

/** `PreToolUse` on `run_in_terminal`: the whole tool input in `updatedInput`, the command rewritten. */
export const vscodeTerminal: ToolRoute = {
  event: 'PreToolUse',
  tool: 'run_in_terminal',
  agent: 'copilot',
  prefilter: '"run_in_terminal"',
  refuse: (ctx) =>
    ctx.terminalShell && !POSIX_SHELLS.has(basename(ctx.terminalShell))
      ? `the terminal's shell (${basename(ctx.terminalShell)}) is not a POSIX shell`
      : undefined,
  // VS Code's bash terminal prints its command-start marker at the line's first simple command: outside the group.
  lead: ':; ',
  oneLine: terminalLine,
  render: updatedInputAnswer('PreToolUse'),
  // Any after-tool event no other route claims is VS Code's (its events carry nothing more particular).
  after: 'PostToolUse',
};
