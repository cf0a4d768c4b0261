/**
 * Qwen Code (docs/contracts.md §6.2): MCP only. Its docs list `updatedInput` for `PreToolUse`, but 0.24.4 does not
 * apply it (test/agents/qwen.test.ts), so a hook would cost a process per command for nothing; `qwenShell` stays,
 * tested on its real payload, for the version that does.
 */
import * as path from 'node:path';
import { isOurMcpEntry, MCP_NAME, NO_STORAGE_NOTE, updatedInputAnswer } from './common.js';
import type { AgentAdapter, ConfigEdit, ToolRoute } from './types.js';

const QWEN_NOTE =
  "Qwen Code 0.24.4 does not apply a hook's rewrite (documented, not implemented): " +
  'its commands are not routed; ' +
  'the model gets bounded observations by calling evidence_runCommand over MCP.';

/** Shown in its debug log, not to the model. */
const QWEN_REASON = 'bounded-evidence: output kept as evidence (permission mode yolo)';

/**
 * `allow` there also skips Qwen Code's approval prompt, so it is answered only in `yolo` mode, which asks nothing
 * anyway.
 */
const qwenShell: ToolRoute = {
  event: 'PreToolUse',
  tool: 'run_shell_command',
  agent: 'qwen',
  prefilter: '"run_shell_command"',
  permit: (_command, event) =>
    event.permission_mode === 'yolo'
      ? { route: true, allow: true, reason: QWEN_REASON }
      : {
          route: false,
          reason:
            `Qwen Code would ask before this command (permission mode ${String(event.permission_mode)}); ` +
            `an allowed rewrite would skip that: it runs as written`,
        },
  render: updatedInputAnswer('PreToolUse'),
};

export const qwen: AgentAdapter = {
  id: 'qwen',
  aliases: ['qwen-code'],
  displayName: 'Qwen Code',
  mcpOnly: true,
  routes: [qwenShell],
  scopes: ['project', 'global'],
  detect: (ctx) => {
    const bin = ctx.which('qwen');
    if (bin) return { installed: true, because: `qwen on PATH (${bin})` };
    return ctx.exists(path.join(ctx.home, '.qwen'))
      ? { installed: true, because: '~/.qwen exists' }
      : { installed: false, because: 'no qwen on PATH and no ~/.qwen' };
  },
  plan: (ctx, scope) => {
    const settings = path.join(scope === 'project' ? ctx.project! : ctx.home, '.qwen', 'settings.json');
    const edits: ConfigEdit[] = [];
    const notes = [QWEN_NOTE];
    const mcp = ctx.mcpServer(scope);
    if (mcp)
      edits.push({
        kind: 'json',
        file: settings,
        comments: true,
        path: ['mcpServers', MCP_NAME],
        value: { command: mcp.command, args: [...mcp.args], includeTools: ['evidence_runCommand', 'read_tool_output'] },
        ours: isOurMcpEntry,
      });
    else notes.unshift(`${NO_STORAGE_NOTE}.`);
    return { edits, notes };
  },
};
