/**
 * The agent loop (docs/contracts.md §1.4). It knows nothing of evidence: bounding comes from
 * the workspace passed in. Each model turn answers one JSON action, either a tool call
 * with its arguments as flat keys beside `tool` (`{"tool":"read_file","path":"a.txt"}`)
 * or a final answer (`{"final":"…"}`); the tool's result goes back as the next user
 * message. Every model turn is one event, the final answer too.
 *
 * Leniency, on purpose and only this: a reply that is exactly one fenced code block
 * (```json … ``` or ``` … ```) is read as the JSON inside, since chat models wrap JSON
 * that way unasked. Anything else that is not one JSON object is an invalid action.
 */
import { canonicalJson } from '../json.js';
import type { ToolAction, ToolWorkspace } from '../workspace/toolWorkspace.js';

/** One chat message as the loop sends it to the model. */
export interface ChatMessage {
  /** Who speaks: the loop's instructions, the task and tool results (user), the model. */
  readonly role: 'system' | 'user' | 'assistant';
  /** The text. */
  readonly content: string;
}

/** The model: given the conversation so far, returns its next reply (sync or async). */
export type GenerateFn = (messages: readonly ChatMessage[]) => string | Promise<string>;

/** The model's final answer. */
interface FinalAction {
  /** The answer text. */
  readonly final: string;
}

/** What one model turn asked for. */
export type AgentAction = ToolAction | FinalAction;

/** Budgets of one run. */
export interface AgentLimits {
  /** Model turns, the final answer included (default 20). */
  readonly maxSteps?: number;
  /** Invalid replies before the run stops (default 3). */
  readonly maxInvalidActions?: number;
  /** Times the same tool action may run back to back; one more stops the run (default 3). */
  readonly maxIdenticalActions?: number;
}

/** One model turn: its reply, the action read from it (null if invalid), and the result. */
interface AgentEvent {
  /** 1-based turn number. */
  readonly step: number;
  /** The model's reply, verbatim. */
  readonly response: string;
  /** The action parsed from the reply; null when the reply was not a valid action. */
  readonly action: AgentAction | null;
  /** The text sent back to the model; null for the final answer. */
  readonly result: string | null;
}

/** Why a run stopped. */
type AgentStopReason = 'final' | 'max_steps' | 'max_invalid_actions' | 'max_identical_actions';

/** The outcome of `runAgent`. */
export interface AgentRun {
  /** True when the model gave a final answer. */
  readonly completed: boolean;
  /** Why the run stopped. */
  readonly reason: AgentStopReason;
  /** The final answer, or null. */
  readonly final: string | null;
  /** Every model turn, in order. */
  readonly events: AgentEvent[];
}

const DEFAULT_LIMITS = { maxSteps: 20, maxInvalidActions: 3, maxIdenticalActions: 3 } as const;

/** The one line that tells a model how to answer, also used in invalid-action errors. */
const ACTION_SHAPE =
  'reply with exactly one JSON object: {"tool":"<name>", ...arguments as flat keys} or {"final":"<answer>"}';

/** Reads one reply as an action, or says (as an `error:` line) why it is not one. */
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

/** The system message: the answer format and the workspace's tools. */
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

/**
 * Drives `generate` against `workspace` until a final answer or a budget runs out.
 * Exceptions from `generate` or from the workspace (broken configuration, never a tool
 * failure) propagate.
 */
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

/** The JSON inside a reply that is exactly one fenced block; otherwise the reply. */
function unfence(text: string): string {
  const m = /^```[A-Za-z]*[ \t]*\r?\n([\s\S]*?)\r?\n?```$/.exec(text);
  return m ? m[1]! : text;
}
