/**
 * Roo Code (docs/contracts.md §6.2), the VS Code extension `rooveterinaryinc.roo-cline`: no hook of any kind, so no
 * command is routed. Init registers the MCP server where Roo's McpHub reads it (`.roo/mcp.json`; for the user, the
 * extension's `settings/mcp_settings.json` in VS Code's global storage) and writes a rules file (`.roo/rules/`,
 * `~/.roo/rules/`, which Roo puts into its system prompt) asking the model to run long commands through
 * `evidence_runCommand`: whether it does is the model's choice, and doctor says so.
 */
import * as path from 'node:path';
import { isOurMcpEntry, MCP_NAME, NO_STORAGE_NOTE, vscodeUserDir } from './common.js';
import { evidenceRule, isOurRule } from './rules.js';
import type { AgentAdapter, AgentContext, ConfigEdit, Scope } from './types.js';

const ROO_EXTENSION = 'rooveterinaryinc.roo-cline';

/** Roo's own shell tool is `execute_command`. */
const ROO_RULES = evidenceRule('execute_command');

function rooMcpFile(ctx: AgentContext, scope: Scope): string {
  return scope === 'project'
    ? path.join(ctx.project!, '.roo', 'mcp.json')
    : path.join(vscodeUserDir(ctx), 'globalStorage', ROO_EXTENSION, 'settings', 'mcp_settings.json');
}

const ROO_NOTE =
  'Roo Code has no hooks: its commands are not routed. A rule asks its model to run long commands through ' +
  'evidence_runCommand; this depends on the model following the rule.';

export const roo: AgentAdapter = {
  id: 'roo',
  aliases: ['roo-code', 'roocode'],
  displayName: 'Roo Code',
  vscodeExtension: ROO_EXTENSION,
  mcpOnly: true,
  rules: true,
  scopes: ['project', 'global'],
  detect: (ctx) => {
    const storage = path.dirname(path.dirname(rooMcpFile(ctx, 'global')));
    if (ctx.exists(storage)) return { installed: true, because: `${ROO_EXTENSION}'s storage exists` };
    return ctx.exists(path.join(ctx.home, '.roo'))
      ? { installed: true, because: '~/.roo exists' }
      : { installed: false, because: `no ~/.roo and no storage of ${ROO_EXTENSION}` };
  },
  plan: (ctx, scope) => {
    const rules = path.join(scope === 'project' ? ctx.project! : ctx.home, '.roo', 'rules', 'bounded-evidence.md');
    const edits: ConfigEdit[] = [];
    const notes = [ROO_NOTE];
    const mcp = ctx.mcpServer(scope);
    if (mcp) {
      edits.push({
        kind: 'json',
        file: rooMcpFile(ctx, scope),
        comments: false,
        path: ['mcpServers', MCP_NAME],
        // Reads are approved once for all; running a command stays Roo's question to the person.
        value: { type: 'stdio', command: mcp.command, args: [...mcp.args], alwaysAllow: ['read_tool_output'] },
        ours: isOurMcpEntry,
      });
      edits.push({ kind: 'file', file: rules, text: ROO_RULES, ours: isOurRule });
    } else
      notes.unshift(
        `${NO_STORAGE_NOTE}; ` + 'without the server the rule would name tools Roo Code lacks, so none is written.',
      );
    return { edits, notes };
  },
};
