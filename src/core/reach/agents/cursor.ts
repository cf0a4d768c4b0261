/**
 * Cursor (docs/contracts.md §6.2): MCP + rules. Its documented hooks (`.cursor/hooks.json`,
 * cursor.com/docs/agent/hooks) let `beforeShellExecution` answer only `permission`, `user_message` and
 * `agent_message`: none rewrites a command. So init registers the MCP server in `.cursor/mcp.json` and writes an
 * always-applied rule in `.cursor/rules/`; the project only, since Cursor's user rules live in its settings.
 */
import * as path from 'node:path';
import { isOurMcpEntry, MCP_NAME, NO_STORAGE_NOTE } from './common.js';
import { evidenceRule, isOurRule } from './rules.js';
import type { AgentAdapter, ConfigEdit } from './types.js';

/** `.mdc` front matter: applied to every request; Cursor's terminal tool is `run_terminal_cmd`. */
const CURSOR_RULE = `---
description: Run commands that may print much through the bounded-evidence MCP tools
alwaysApply: true
---
${evidenceRule('run_terminal_cmd')}`;

const CURSOR_NOTE =
  "Cursor's hooks cannot rewrite a command: its commands are not routed. A rule asks its model to run long " +
  'commands through evidence_runCommand; this depends on the model following the rule.';

export const cursor: AgentAdapter = {
  id: 'cursor',
  displayName: 'Cursor',
  mcpOnly: true,
  rules: true,
  scopes: ['project'],
  detect: (ctx) => {
    const bin = ctx.which('cursor');
    if (bin) return { installed: true, because: `cursor on PATH (${bin})` };
    return ctx.exists(path.join(ctx.home, '.cursor'))
      ? { installed: true, because: '~/.cursor exists' }
      : { installed: false, because: 'no cursor on PATH and no ~/.cursor' };
  },
  plan: (ctx) => {
    const dir = path.join(ctx.project!, '.cursor');
    const edits: ConfigEdit[] = [];
    const notes = [CURSOR_NOTE];
    const mcp = ctx.mcpServer('project');
    if (mcp) {
      edits.push({
        kind: 'json',
        file: path.join(dir, 'mcp.json'),
        comments: false,
        path: ['mcpServers', MCP_NAME],
        value: { command: mcp.command, args: [...mcp.args] },
        ours: isOurMcpEntry,
      });
      edits.push({
        kind: 'file',
        file: path.join(dir, 'rules', 'bounded-evidence.mdc'),
        text: CURSOR_RULE,
        ours: isOurRule,
      });
    } else
      notes.unshift(
        `${NO_STORAGE_NOTE}; ` + 'without the server the rule would name tools Cursor lacks, so none is written.',
      );
    return { edits, notes };
  },
};
