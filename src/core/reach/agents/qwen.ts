/**
 * Qwen Code (docs/contracts.md §6.2): MCP only. Its hooks documentation (QwenLM/qwen-code
 * docs/users/features/hooks.md) lists `hookSpecificOutput.updatedInput` for `PreToolUse`, but Qwen Code 0.24.4
 * does not apply it: its `firePreToolUseHook` returns only proceed / block / ask / added context (measured in
 * test/agents/qwen.test.ts: the hook answered a rewrite and the command ran as written). So init registers no hook
 * (it would cost a process per command for nothing) and the MCP server with the two tools an unrouted agent needs:
 * `evidence_runCommand` (the bounded observation) and `read_tool_output`. The hook's Qwen shape stays in
 * src/core/reach/hookEvent.ts, tested on Qwen Code's real payload, for the version that applies it.
 * Settings: `settings.json` in `~/.qwen/` (user) or `<project>/.qwen/` (project), Gemini CLI's `mcpServers` format.
 */
import * as path from 'node:path';
import { isOurMcpEntry, MCP_NAME } from './common.js';
import type { AgentAdapter, ConfigEdit } from './types.js';

const QWEN_NOTE =
  "Qwen Code 0.24.4 does not apply a hook's rewrite (documented, not implemented): " +
  'its commands are not routed; ' +
  'the model gets bounded observations by calling evidence_runCommand over MCP.';

export const qwen: AgentAdapter = {
  id: 'qwen',
  aliases: ['qwen-code'],
  displayName: 'Qwen Code',
  mcpOnly: true,
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
    else
      notes.unshift(
        'MCP not registered: no evidence storage is known (pass --storage or run init in a VS Code terminal).',
      );
    return { edits, notes };
  },
};
