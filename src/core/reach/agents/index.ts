/**
 * The table of agents (docs/contracts.md §6.2): an adapter added here is offered by the command line and the editor
 * alike, and its routes are the hook's.
 */
import { auggie } from './auggie.js';
import { claudeCode } from './claudeCode.js';
import { cline } from './cline.js';
import { clineVscode } from './clineVscode.js';
import { codex } from './codex.js';
import { copilot } from './copilot.js';
import { cursor } from './cursor.js';
import { droid } from './droid.js';
import { gemini } from './gemini.js';
import { kilo } from './kilo.js';
import { opencode } from './opencode.js';
import { qwen } from './qwen.js';
import { roo } from './roo.js';
import type { AgentAdapter, ToolRoute } from './types.js';

export const AGENTS: readonly AgentAdapter[] = [
  claudeCode,
  copilot,
  codex,
  gemini,
  opencode,
  qwen,
  droid,
  cline,
  clineVscode,
  kilo,
  roo,
  auggie,
  cursor,
];

/** Routes with a narrower test (`claims`) first. */
export const ROUTES: readonly ToolRoute[] = [
  ...AGENTS.flatMap((a) => a.routes ?? []).filter((r) => r.claims),
  ...AGENTS.flatMap((a) => a.routes ?? []).filter((r) => !r.claims),
];

/** Its id or an alias. */
export function agentNamed(name: string, agents: readonly AgentAdapter[] = AGENTS): AgentAdapter | undefined {
  const n = name.toLowerCase();
  return agents.find((a) => a.id === n || (a.aliases ?? []).includes(n));
}
