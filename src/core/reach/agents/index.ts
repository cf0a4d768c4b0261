/**
 * The table of agents `init` and `doctor` know (docs/contracts.md §6.2), one adapter per file in this folder.
 * An adapter added here is offered by the command line and the editor's quick pick alike.
 */
import { claudeCode } from './claudeCode.js';
import { codex } from './codex.js';
import { copilot } from './copilot.js';
import { gemini } from './gemini.js';
import { opencode } from './opencode.js';
import { qwen } from './qwen.js';
import type { AgentAdapter } from './types.js';

export const AGENTS: readonly AgentAdapter[] = [claudeCode, copilot, codex, gemini, opencode, qwen];

/** The adapter named `name` (its id or an alias), or undefined. */
export function agentNamed(name: string, agents: readonly AgentAdapter[] = AGENTS): AgentAdapter | undefined {
  const n = name.toLowerCase();
  return agents.find((a) => a.id === n || (a.aliases ?? []).includes(n));
}
