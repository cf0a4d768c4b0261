/**
 * VS Code's built-in agent in its Local harness (docs/contracts.md §6.1): `run_in_terminal` runs in the person's
 * terminal, so the routed form must suit it (POSIX only, `:; ` first), and the terminal is given one line naming the
 * spool's script. Its configuration is the Copilot hook file (copilot.ts).
 */
import { SPOOL_RUN } from '../rewrite.js';
import { updatedInputAnswer } from './common.js';
import type { HookContext, ToolRoute } from './types.js';

const TERMINAL_STORAGE_VAR = 'BOUNDED_EVIDENCE_STORAGE';

/** fish and PowerShell quote differently, so in their terminals `run_in_terminal` stays unrouted. */
const POSIX_SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'busybox']);

const basename = (w: string): string => w.slice(w.lastIndexOf('/') + 1);

/**
 * VS Code strips the typed line's echo from what the model gets only for a short single line, and the wrapped command
 * is several, so the terminal sources it from the spool. Only when the hook's storage is the terminals' and the spool
 * path is plain.
 */
function terminalLine(spool: string, ctx: HookContext): string | undefined {
  if (!ctx.writeRun || ctx.terminalStorage === undefined || ctx.terminalStorage !== ctx.storage) return undefined;
  const rel = spool.startsWith(`${ctx.storage}/`) ? spool.slice(ctx.storage.length) : '';
  if (!/^\/[A-Za-z0-9/_.-]+$/.test(rel)) return undefined;
  return `. "$${TERMINAL_STORAGE_VAR}${rel}/${SPOOL_RUN}"`;
}

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
  // Any after-tool event no other route claims is VS Code's.
  after: 'PostToolUse',
};
