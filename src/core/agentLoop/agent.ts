/**
 * The agent loop (docs/contracts.md §1.4); bounding comes from the workspace passed in. A reply that is exactly one
 * fenced code block is read as the JSON inside, since chat models wrap JSON that way unasked.
 */
import { canonicalJson } from '../json.js';
import type { ToolAction, ToolWorkspace } from '../workspace/toolWorkspace.js';

export interface ChatMessage {
  readonly role: 'system' | 'user' | 'assistant';
  readonly content: string;
}

export type GenerateFn = (messages: readonly ChatMessage[]) => string | Promise<string>;

interface FinalAction {
  readonly final: string;
}

export type AgentAction = ToolAction | FinalAction;

export interface AgentLimits {
  /** Default 20, the final answer included. */
  readonly maxSteps?: number;
  /** Default 3. */
  readonly maxInvalidActions?: number;
  /** One more stops the run (default 3). */
  readonly maxIdenticalActions?: number;
}

interface AgentEvent {
  /** 1-based. */
  readonly step: number;
  readonly response: string;
  /** null when the reply was not a valid action. */
  readonly action: AgentAction | null;
  /** null for the final answer. */
  readonly result: string | null;
}

type AgentStopReason = 'final' | 'max_steps' | 'max_invalid_actions' | 'max_identical_actions';

export interface AgentRun {
  readonly completed: boolean;
  readonly reason: AgentStopReason;
  readonly final: string | null;
  readonly events: AgentEvent[];
}

const DEFAULT_LIMITS = { maxSteps: 20, maxInvalidActions: 3, maxIdenticalActions: 3 } as const;

/** Also used in invalid-action errors. */
const ACTION_SHAPE =
  'reply with exactly one JSON object: {"tool":"<name>", ...arguments as flat keys} or {"final":"<answer>"}';

export function parseAgentAction(response: string): AgentAction | { readonly error: string } {
  const text = unfence(response.trim());
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { error: `error: invalid action: ${ACTION_SHAPE}` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return { error: `error: invalid action: ${ACTION_SHAPE}` };
  const obj = value as Record<string, unknown>;
  if ('final' in obj) {
    if ('tool' in obj) return { error: 'error: invalid action: give either "tool" or "final", not both' };
    if (typeof obj.final !== 'string') return { error: 'error: invalid action: "final" must be a string' };
    return { final: obj.final };
  }
  if (typeof obj.tool !== 'string' || obj.tool === '')
    return { error: `error: invalid action: "tool" must be a tool name; ${ACTION_SHAPE}` };
  // fromEntries defines own properties, so a "__proto__" key stays an ordinary argument.
  const args = Object.fromEntries(Object.entries(obj).filter(([k]) => k !== 'tool'));
  return { tool: obj.tool, arguments: args };
}

export function agentSystemPrompt(workspace: Pick<ToolWorkspace, 'availableTools'>): string {
  const tools = workspace.availableTools.map((t) => {
    const params = Object.entries(t.parameters)
      .map(([k, v]) => `"${k}" (${v})`)
      .join(', ');
    return `- ${t.name}: ${t.description}${params ? ` Arguments: ${params}.` : ''}`;
  });
  return [
    `You work in a tool workspace. Every turn, ${ACTION_SHAPE}. Nothing else in the reply.`,
    'Each tool result comes back as the next message. Results that start with "error:" explain what to fix.',
    'Tools:',
    ...tools,
  ].join('\n');
}

/** Exceptions from `generate` or the workspace (broken configuration, never a tool failure) propagate. */
export async function runAgent(
  task: string,
  generate: GenerateFn,
  workspace: ToolWorkspace,
  limits: AgentLimits = {},
): Promise<AgentRun> {
  const maxSteps = limits.maxSteps ?? DEFAULT_LIMITS.maxSteps;
  const maxInvalid = limits.maxInvalidActions ?? DEFAULT_LIMITS.maxInvalidActions;
  const maxIdentical = limits.maxIdenticalActions ?? DEFAULT_LIMITS.maxIdenticalActions;
  if (![maxSteps, maxInvalid, maxIdentical].every((v) => Number.isSafeInteger(v) && v > 0)) {
    throw new RangeError('agent limits must be positive integers');
  }
  const messages: ChatMessage[] = [
    { role: 'system', content: agentSystemPrompt(workspace) },
    { role: 'user', content: task },
  ];
  const events: AgentEvent[] = [];
  const stop = (reason: AgentStopReason, final: string | null = null): AgentRun => ({
    completed: reason === 'final',
    reason,
    final,
    events,
  });
  let invalid = 0;
  let lastKey: string | undefined;
  let streak = 0;
  for (let step = 1; step <= maxSteps; step++) {
    const response = await generate([...messages]);
    messages.push({ role: 'assistant', content: response });
    const parsed = parseAgentAction(response);
    if ('error' in parsed) {
      events.push({ step, response, action: null, result: parsed.error });
      messages.push({ role: 'user', content: parsed.error });
      lastKey = undefined;
      streak = 0;
      if (++invalid >= maxInvalid) return stop('max_invalid_actions');
      continue;
    }
    if ('final' in parsed) {
      events.push({ step, response, action: parsed, result: null });
      return stop('final', parsed.final);
    }
    const key = canonicalJson(parsed);
    streak = key === lastKey ? streak + 1 : 1;
    lastKey = key;
    if (streak > maxIdentical) {
      // A model repeating itself is stuck: refuse the repeat rather than run it again.
      events.push({
        step,
        response,
        action: parsed,
        result: `error: the same action ran ${maxIdentical} times in a row; stopping`,
      });
      return stop('max_identical_actions');
    }
    const result = await workspace.execute(parsed, `call-${step}`);
    events.push({ step, response, action: parsed, result });
    messages.push({ role: 'user', content: result });
  }
  return stop('max_steps');
}

function unfence(text: string): string {
  const m = /^```[A-Za-z]*[ \t]*\r?\n([\s\S]*?)\r?\n?```$/.exec(text);
  return m ? m[1]! : text;
}
