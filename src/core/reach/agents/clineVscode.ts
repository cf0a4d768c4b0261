/**
 * Cline's VS Code extension, `saoudrizwan.claude-dev` (docs/contracts.md §6.2): MCP + rules. Its hooks
 * (`.clinerules/hooks/`, `~/Documents/Cline/Hooks/`) answer only `cancel`, `contextModification` and `errorMessage`,
 * and it never runs the command line's `.cline/hooks/`, so no command is routed. It ships two bundles: the legacy one
 * reads MCP servers from its global storage, the SDK one from the command line's `~/.cline/data/settings/`; both read
 * rules from `.clinerules/` and `~/Documents/Cline/Rules/`, as the command line does.
 */
import * as path from 'node:path';
import { clineMcpEdit, clineMcpSettingsFile } from './cline.js';
import { NO_STORAGE_NOTE, vscodeUserDir } from './common.js';
import { isApplied, ourJsonEntry } from './engine.js';
import { evidenceRule, isOurRule } from './rules.js';
import type { AgentAdapter, AgentContext, ConfigEdit, Scope } from './types.js';

const CLINE_EXTENSION = 'saoudrizwan.claude-dev';

/** The SDK bundle's shell tool is `run_commands`, the legacy one's `execute_command`; the command line reads it too. */
export const CLINE_RULE = evidenceRule(
  ['run_commands', 'execute_command'],
  [
    'If the `bounded-evidence` server is not among your tools, run commands as usual.',
    'A `run_commands` result that already is such a bounded view was routed: read more of it as it says.',
  ],
);

/** Both bundles' files, legacy first. */
function mcpFiles(ctx: AgentContext): string[] {
  const legacy = path.join(vscodeUserDir(ctx), 'globalStorage', CLINE_EXTENSION, 'settings', 'cline_mcp_settings.json');
  return [legacy, clineMcpSettingsFile(ctx.env, ctx.home)!];
}

function ruleFile(ctx: AgentContext, scope: Scope): string {
  return scope === 'project'
    ? path.join(ctx.project!, '.clinerules', 'bounded-evidence.md')
    : path.join(ctx.home, 'Documents', 'Cline', 'Rules', 'bounded-evidence.md');
}

/** Ours in any version; the current entry where the storage is known. */
function registered(ctx: AgentContext, file: string): boolean {
  const text = ctx.readText?.(file);
  const mcp = ctx.mcpServer('global');
  const edit = clineMcpEdit(file, mcp ?? { command: '', args: [] });
  return (mcp !== undefined && isApplied(text, edit)) || ourJsonEntry(text, edit) !== undefined;
}

const NOTE =
  "Cline's VS Code extension cannot change a command (its hooks only block or add context): its commands are not " +
  'routed. A rule asks its model to run long commands through evidence_runCommand; this depends on the model ' +
  "following the rule. Its MCP servers are the user's (--global): the SDK bundle reads the command line's file.";

export const clineVscode: AgentAdapter = {
  id: 'cline-vscode',
  aliases: ['cline-extension', 'claude-dev'],
  displayName: 'Cline (VS Code extension)',
  vscodeExtension: CLINE_EXTENSION,
  mcpOnly: true,
  rules: true,
  scopes: ['project', 'global'],
  detect: (ctx) => {
    const storage = path.join(vscodeUserDir(ctx), 'globalStorage', CLINE_EXTENSION);
    if (ctx.exists(storage)) return { installed: true, because: `${CLINE_EXTENSION}'s storage exists` };
    return ctx.exists(path.join(ctx.home, 'Documents', 'Cline'))
      ? { installed: true, because: '~/Documents/Cline exists' }
      : { installed: false, because: `no ~/Documents/Cline and no storage of ${CLINE_EXTENSION}` };
  },
  plan: (ctx, scope) => {
    const mcp = ctx.mcpServer(scope);
    if (!mcp && scope === 'global')
      return {
        edits: [],
        notes: [`${NO_STORAGE_NOTE}; without the server the rule would name tools Cline lacks, so none is written.`],
      };
    const edits: ConfigEdit[] = scope === 'global' ? mcpFiles(ctx).map((f) => clineMcpEdit(f, mcp!)) : [];
    edits.push({ kind: 'file', file: ruleFile(ctx, scope), text: CLINE_RULE, ours: isOurRule });
    return { edits, notes: [NOTE] };
  },
  // The project's rule names tools the extension has only once --global registered them, in both bundles' files.
  blockers: (ctx, scope) =>
    scope === 'project' && !mcpFiles(ctx).every((f) => registered(ctx, f))
      ? [`run bounded-evidence init --agent cline-vscode --global: the extension's MCP servers are the user's`]
      : [],
};
