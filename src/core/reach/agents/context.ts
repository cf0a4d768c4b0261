/**
 * The parts of an adapter context that come from the machine (docs/contracts.md §6.2), shared by the command line
 * and the editor so both find the same agents and keep one undo journal.
 */
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { portableCommand } from '../locate.js';
import type { AgentContext } from './types.js';

/**
 * The hook command every file `init` writes holds, project or user (docs/contracts.md §6.2): the portable finder
 * (src/core/reach/locate.ts) starting `hook` with fixed flags; no path, no storage, no Node. The hook finds the
 * storage when it runs.
 */
export function portableHookCommand(agent: string | undefined, flags: readonly string[] = []): string {
  return portableCommand(['hook', ...(agent ? ['--agent', agent] : []), ...flags]);
}

/** How every MCP client `init` configures starts the evidence server: sh and the portable finder (argv, unquoted). */
export const PORTABLE_MCP_SERVER: { readonly command: string; readonly args: readonly string[] } = {
  command: 'sh',
  args: ['-c', portableCommand(['mcp'])],
};

/**
 * The state folder the undo journal lives in (`$XDG_STATE_HOME/bounded-evidence`, else
 * `~/.local/state/bounded-evidence`).
 */
function stateDirOf(env: Readonly<Record<string, string | undefined>>, home: string): string {
  return path.join(env.XDG_STATE_HOME || path.join(home, '.local', 'state'), 'bounded-evidence');
}

/** The absolute path of `program` on `PATH`, or undefined. */
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

/** A context on this machine: files and PATH as they are; the hook and MCP commands are the caller's. */
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
