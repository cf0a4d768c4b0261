/**
 * Qwen Code (docs/contracts.md §6.2): MCP only. Its hooks documentation (QwenLM/qwen-code
 * docs/users/features/hooks.md) lists `hookSpecificOutput.updatedInput` for `PreToolUse`, but Qwen Code 0.24.4
 * does not apply it: its `firePreToolUseHook` returns only proceed / block / ask / added context (measured in
 * test/agents/qwen.test.ts: the hook answered a rewrite and the command ran as written). So init registers no hook
 * (it would cost a process per command for nothing) and the MCP server with the two tools an unrouted agent needs:
 * `evidence_runCommand` (the bounded observation) and `read_tool_output`. The hook's Qwen shape (`qwenShell`) stays,
 * tested on Qwen Code's real payload, for the version that applies it.
 * Settings: `settings.json` in `~/.qwen/` (user) or `<project>/.qwen/` (project), Gemini CLI's `mcpServers` format.
 */
import * as path from 'node:path';
import { isOurMcpEntry, MCP_NAME, updatedInputAnswer } from './common.js';
import type { AgentAdapter, ConfigEdit, ToolRoute } from './types.js';

const QWEN_NOTE =
  "Qwen Code 0.24.4 does not apply a hook's rewrite (documented, not implemented): " +
  'its commands are not routed; ' +
  'the model gets bounded observations by calling evidence_runCommand over MCP.';

/** The reason Qwen Code requires beside the decision (shown in its debug log, not to the model). */
const QWEN_REASON = 'bounded-evidence: output kept as evidence (permission mode yolo)';

/**
 * `PreToolUse` on its `run_shell_command` (a Gemini CLI descendant with Claude Code style hooks): `updatedInput` with
 * the `permissionDecision` and reason its docs require. `allow` there also skips Qwen Code's approval prompt, so it is
 * answered only in `yolo` mode, where Qwen Code runs every command without asking anyway.
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
    else
      notes.unshift(
        'MCP not registered: no evidence storage is known (pass --storage or run init in a VS Code terminal).',
      );
    return { edits, notes };
  },
};
