/**
 * opencode (docs/contracts.md §6.2): no command hooks, but a plugin's `tool.execute.before` may change a tool's
 * arguments; ours imports only `child_process` and asks the same hook. opencode installs a 64 MB package into every
 * config folder it reads a plugin from, so the project's plugin lives in `.bounded-evidence/`, outside those folders,
 * named from `opencode.json`.
 */
import * as path from 'node:path';
import { NO_STORAGE_NOTE } from './common.js';
import { localMcpEdit, pluginMark, toolPluginText } from './toolPlugin.js';
import type { AgentAdapter, AgentContext, ConfigEdit } from './types.js';

export function opencodeConfigDir(ctx: Pick<AgentContext, 'env' | 'home'>): string {
  return path.join(ctx.env.XDG_CONFIG_HOME || path.join(ctx.home, '.config'), 'opencode');
}

const OPENCODE_PROJECT_PLUGIN = '.bounded-evidence/opencode-plugin.js';

/** Any version. */
export const PLUGIN_MARK = pluginMark('opencode');

export function opencodePluginText(hookCommand: string): string {
  return toolPluginText(hookCommand, 'opencode');
}

export const opencode: AgentAdapter = {
  id: 'opencode',
  displayName: 'opencode',
  scopes: ['project', 'global'],
  detect: (ctx) => {
    const bin = ctx.which('opencode');
    if (bin) return { installed: true, because: `opencode on PATH (${bin})` };
    return ctx.exists(opencodeConfigDir(ctx))
      ? { installed: true, because: `${opencodeConfigDir(ctx)} exists` }
      : { installed: false, because: 'no opencode on PATH and no ~/.config/opencode' };
  },
  plan: (ctx, scope) => {
    const dir = opencodeConfigDir(ctx);
    const text = opencodePluginText(ctx.hookCommand('opencode', scope));
    const ours = (t: string): boolean => t.startsWith(PLUGIN_MARK);
    const edits: ConfigEdit[] = [];
    const configFile = scope === 'project' ? path.join(ctx.project!, 'opencode.json') : path.join(dir, 'opencode.json');
    if (scope === 'global') {
      edits.push({ kind: 'file', file: path.join(dir, 'plugin', 'bounded-evidence.js'), text, ours });
    } else {
      // Outside every folder opencode scans: committed with opencode.json, the same on every machine.
      edits.push({ kind: 'file', file: path.join(ctx.project!, OPENCODE_PROJECT_PLUGIN), text, ours });
      edits.push({
        kind: 'json',
        file: configFile,
        comments: true,
        path: ['plugin', -1],
        value: `./${OPENCODE_PROJECT_PLUGIN}`,
        // Also an older install's per-user entry: replaced, not doubled.
        ours: (v) =>
          typeof v === 'string' &&
          (v === `./${OPENCODE_PROJECT_PLUGIN}` || /\/plugin-files\/bounded-evidence-[A-Za-z0-9_-]+\.js$/.test(v)),
      });
    }
    const notes = [
      'opencode installs @opencode-ai/plugin (64 MB) into its own ~/.config/opencode ' +
        'once per version before the first session with a plugin; ' +
        'nothing is installed into the project.',
    ];
    const mcp = ctx.mcpServer(scope);
    if (mcp) {
      edits.push(localMcpEdit(configFile, mcp));
    } else notes.unshift(`${NO_STORAGE_NOTE}.`);
    return { edits, notes };
  },
};
