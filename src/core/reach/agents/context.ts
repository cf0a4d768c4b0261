/**
 * Shared by the command line and the editor so both find the same agents and keep one undo journal (docs/contracts.md
 * §6.2).
 */
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { portableCommand } from '../locate.js';
import type { AgentContext } from './types.js';

/** No path, no storage, no Node: the hook finds the storage when it runs (docs/contracts.md §6.2). */
export function portableHookCommand(agent: string | undefined, flags: readonly string[] = []): string {
  return portableCommand(['hook', ...(agent ? ['--agent', agent] : []), ...flags]);
}

export const PORTABLE_MCP_SERVER: { readonly command: string; readonly args: readonly string[] } = {
  command: 'sh',
  args: ['-c', portableCommand(['mcp'])],
};

function stateDirOf(env: Readonly<Record<string, string | undefined>>, home: string): string {
  return path.join(env.XDG_STATE_HOME || path.join(home, '.local', 'state'), 'bounded-evidence');
}

export function whichIn(pathVar: string | undefined, program: string): string | undefined {
  for (const dir of (pathVar ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const p = path.join(dir, program);
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      /* not here */
    }
  }
  return undefined;
}

/** The hook and MCP commands are the caller's. */
export function machineContext(
  c: Pick<
    AgentContext,
    'home' | 'project' | 'env' | 'hookCommand' | 'mcpServer' | 'recordOtherToolResults' | 'storage'
  >,
): AgentContext {
  return {
    ...c,
    stateDir: stateDirOf(c.env, c.home),
    exists: (f) => existsSync(f),
    which: (p) => whichIn(c.env.PATH, p),
    readText: (f) => {
      try {
        return readFileSync(f, 'utf8');
      } catch {
        return undefined;
      }
    },
  };
}
