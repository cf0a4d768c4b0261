/**
 * Auggie, Augment Code's command line (docs/contracts.md §6.2): MCP only. Its `PreToolUse` hook may answer
 * `updatedInput` and 0.36 applies it, but Auggie then judges the rewritten `launch-process` command itself: its
 * auto-approval list goes by the command's first word, `toolPermissions` match `shellInputRegex` against the text,
 * and its tenant's policies come from Augment's server, which no hook can read. A routed command would be asked
 * about where the written one ran, or pass a deny pattern it should have met; it needs a sign-in, so this cannot be
 * checked here. Init registers the MCP server in `.augment/settings.json` (`~/.augment/settings.json`).
 */
import * as path from 'node:path';
import { isOurMcpEntry, MCP_NAME, NO_STORAGE_NOTE } from './common.js';
import type { AgentAdapter, ConfigEdit } from './types.js';

const AUGGIE_NOTE =
  'Auggie judges a rewritten command again (its auto-approval list, toolPermissions, its tenant policies): ' +
  'its commands are not routed; the model gets bounded observations by calling evidence_runCommand over MCP.';

export const auggie: AgentAdapter = {
  id: 'auggie',
  aliases: ['augment'],
  displayName: 'Auggie (Augment Code)',
  mcpOnly: true,
  scopes: ['project', 'global'],
  detect: (ctx) => {
    const bin = ctx.which('auggie');
    if (bin) return { installed: true, because: `auggie on PATH (${bin})` };
    return ctx.exists(path.join(ctx.home, '.augment'))
      ? { installed: true, because: '~/.augment exists' }
      : { installed: false, because: 'no auggie on PATH and no ~/.augment' };
  },
  plan: (ctx, scope) => {
    const settings = path.join(scope === 'project' ? ctx.project! : ctx.home, '.augment', 'settings.json');
    const edits: ConfigEdit[] = [];
    const notes = [AUGGIE_NOTE];
    const mcp = ctx.mcpServer(scope);
    if (mcp)
      edits.push({
        kind: 'json',
        file: settings,
        comments: false,
        path: ['mcpServers', MCP_NAME],
        value: { command: mcp.command, args: [...mcp.args] },
        ours: isOurMcpEntry,
      });
    else notes.unshift(`${NO_STORAGE_NOTE}.`);
    return { edits, notes };
  },
};
