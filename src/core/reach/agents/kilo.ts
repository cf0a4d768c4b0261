/**
 * Kilo Code (docs/contracts.md §6.2): its command line 7.x and its VS Code extension (`kilocode.kilo-code`) are
 * built on opencode and load the same `tool.execute.before` plugins, from `"plugin"` in `kilo.json` or
 * `~/.config/kilo/plugin/`; ours is opencode's, sharing its code. As for opencode, the project's plugin lives in
 * `.bounded-evidence/`, named from `kilo.json`, outside the `.kilo/` folder Kilo installs packages into.
 */
import * as path from 'node:path';
import { NO_STORAGE_NOTE } from './common.js';
import { localMcpEdit, pluginMark, toolPluginText } from './toolPlugin.js';
import type { AgentAdapter, AgentContext, ConfigEdit, Scope } from './types.js';

function kiloConfigDir(ctx: Pick<AgentContext, 'env' | 'home'>): string {
  return path.join(ctx.env.XDG_CONFIG_HOME || path.join(ctx.home, '.config'), 'kilo');
}

const KILO_PROJECT_PLUGIN = '.bounded-evidence/kilo-plugin.js';

/** Any version. */
export const KILO_PLUGIN_MARK = pluginMark('Kilo Code');

/** Kilo reads `kilo.jsonc` and `kilo.json` both: the one the person has, else `kilo.json`. */
function kiloConfigFile(ctx: AgentContext, scope: Scope): string {
  const dir = scope === 'project' ? ctx.project! : kiloConfigDir(ctx);
  const jsonc = path.join(dir, 'kilo.jsonc');
  return ctx.exists(jsonc) ? jsonc : path.join(dir, 'kilo.json');
}

export const kilo: AgentAdapter = {
  id: 'kilo',
  aliases: ['kilo-code', 'kilocode'],
  displayName: 'Kilo Code',
  vscodeExtension: 'kilocode.kilo-code',
  scopes: ['project', 'global'],
  detect: (ctx) => {
    const bin = ctx.which('kilo');
    if (bin) return { installed: true, because: `kilo on PATH (${bin})` };
    return ctx.exists(kiloConfigDir(ctx))
      ? { installed: true, because: `${kiloConfigDir(ctx)} exists` }
      : { installed: false, because: 'no kilo on PATH and no ~/.config/kilo' };
  },
  plan: (ctx, scope) => {
    const text = toolPluginText(ctx.hookCommand('kilo', scope), 'Kilo Code');
    const ours = (t: string): boolean => t.startsWith(KILO_PLUGIN_MARK);
    const configFile = kiloConfigFile(ctx, scope);
    const edits: ConfigEdit[] = [];
    if (scope === 'global') {
      edits.push({ kind: 'file', file: path.join(kiloConfigDir(ctx), 'plugin', 'bounded-evidence.js'), text, ours });
    } else {
      edits.push({ kind: 'file', file: path.join(ctx.project!, KILO_PROJECT_PLUGIN), text, ours });
      edits.push({
        kind: 'json',
        file: configFile,
        comments: true,
        path: ['plugin', -1],
        value: `./${KILO_PROJECT_PLUGIN}`,
        ours: (v) => v === `./${KILO_PROJECT_PLUGIN}`,
      });
    }
    const notes: string[] = [];
    const mcp = ctx.mcpServer(scope);
    if (mcp) {
      edits.push(localMcpEdit(configFile, mcp));
    } else notes.push(`${NO_STORAGE_NOTE}.`);
    return { edits, notes };
  },
};
