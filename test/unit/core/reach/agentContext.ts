/** The context an adapter's plan is given in the unit tests: a home, a project, nothing installed. */
import type { AgentContext } from '../../../../src/core/reach/agents/types.js';

export const MCP = { command: 'sh', args: ['-c', 'exec bounded-evidence mcp'] };

export function agentContext(hook: string, over: Partial<AgentContext> = {}): AgentContext {
  return {
    home: '/home/dev',
    project: '/home/dev/project',
    stateDir: '/home/dev/.local/state/bounded-evidence',
    env: {},
    exists: () => false,
    which: () => undefined,
    readText: () => undefined,
    hookCommand: () => hook,
    mcpServer: () => MCP,
    ...over,
  };
}
