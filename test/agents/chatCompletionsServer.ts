/**
 * A scripted OpenAI Chat Completions API on 127.0.0.1 (`POST /v1/chat/completions`, streamed as server-sent
 * chunks) for agents that speak it to an OpenAI-compatible `baseURL` (Qwen Code: `OPENAI_BASE_URL`). Requests
 * that offer no tools (an agent's side requests) get a short text; conversation requests are kept and answered
 * by the test's script. Other paths: 404.
 */
import { json, startLoopback } from './loopbackServer.js';

export interface ChatMessage {
  role: string;
  content?: string | { type: string; text?: string }[] | null;
  tool_call_id?: string;
}
export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  tools?: { type: string; function: { name: string } }[];
  stream?: boolean;
}
export type ChatReply = { text: string } | { call: { id: string; name: string; arguments: Record<string, unknown> } };

export interface ScriptedChat {
  readonly baseUrl: string;
  readonly requests: ChatRequest[];
  close(): Promise<void>;
}

/** The `tool` message's text for `callId`, as the agent sent it. */
export function toolMessage(req: ChatRequest, callId: string): string | undefined {
  const m = req.messages.find((x) => x.role === 'tool' && x.tool_call_id === callId);
  if (!m) return undefined;
  return typeof m.content === 'string' ? m.content : (m.content ?? []).map((p) => p.text ?? '').join('');
}

function chunks(reply: ChatReply, model: string, n: number): string {
  const base = { id: `chatcmpl-scripted-${n}`, object: 'chat.completion.chunk', created: 1_764_633_600, model };
  const out: object[] = [];
  if ('text' in reply) {
    out.push({
      ...base,
      choices: [{ index: 0, delta: { role: 'assistant', content: reply.text }, finish_reason: null }],
    });
    out.push({
      ...base,
      choices: [{ index: 0, delta: {}, finish_reason: 'stop' }],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    });
  } else {
    out.push({
      ...base,
      choices: [
        {
          index: 0,
          delta: {
            role: 'assistant',
            tool_calls: [
              {
                index: 0,
                id: reply.call.id,
                type: 'function',
                function: { name: reply.call.name, arguments: JSON.stringify(reply.call.arguments) },
              },
            ],
          },
          finish_reason: null,
        },
      ],
    });
    out.push({
      ...base,
      choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    });
  }
  return `${out.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('')}data: [DONE]\n\n`;
}

export async function startScriptedChat(script: (req: ChatRequest, index: number) => ChatReply): Promise<ScriptedChat> {
  const requests: ChatRequest[] = [];
  const server = await startLoopback((method, pathname, raw) => {
    if (method !== 'POST' || pathname !== '/v1/chat/completions')
      return json(404, { error: { message: `scripted server: no ${method} ${pathname}` } });
    const parsed = JSON.parse(raw.toString('utf8')) as ChatRequest;
    let reply: ChatReply = { text: 'ok' };
    if (parsed.tools?.length) {
      requests.push(parsed);
      reply = script(parsed, requests.length - 1);
    }
    if (parsed.stream === false) {
      const message =
        'text' in reply
          ? { role: 'assistant', content: reply.text }
          : {
              role: 'assistant',
              content: null,
              tool_calls: [
                {
                  id: reply.call.id,
                  type: 'function',
                  function: { name: reply.call.name, arguments: JSON.stringify(reply.call.arguments) },
                },
              ],
            };
      return json(200, {
        id: 'chatcmpl-scripted',
        object: 'chat.completion',
        created: 1_764_633_600,
        model: parsed.model,
        choices: [{ index: 0, message, finish_reason: 'text' in reply ? 'stop' : 'tool_calls' }],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      });
    }
    return { status: 200, type: 'text/event-stream', body: chunks(reply, parsed.model, requests.length) };
  });
  return { baseUrl: `${server.origin}/v1`, requests, close: () => server.close() };
}
