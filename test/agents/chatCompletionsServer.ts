/**
 * A scripted OpenAI Chat Completions API on 127.0.0.1 (`POST /v1/chat/completions`, streamed as server-sent
 * chunks) for agents that speak it to an OpenAI-compatible `baseURL` (Qwen Code: `OPENAI_BASE_URL`). Requests
 * that offer no tools (an agent's side requests) get a short text; conversation requests are kept and answered
 * by the test's script. Other paths: 404.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ChatMessage { role: string; content?: string | { type: string; text?: string }[] | null; tool_call_id?: string }
export interface ChatRequest { model: string; messages: ChatMessage[]; tools?: { type: string; function: { name: string } }[]; stream?: boolean }
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
    out.push({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: reply.text }, finish_reason: null }] });
    out.push({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } });
  } else {
    out.push({ ...base, choices: [{ index: 0, delta: { role: 'assistant', tool_calls: [{ index: 0, id: reply.call.id, type: 'function', function: { name: reply.call.name, arguments: JSON.stringify(reply.call.arguments) } }] }, finish_reason: null }] });
    out.push({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } });
  }
  return `${out.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('')}data: [DONE]\n\n`;
}

export async function startScriptedChat(script: (req: ChatRequest, index: number) => ChatReply): Promise<ScriptedChat> {
  const requests: ChatRequest[] = [];
  const server = http.createServer((req, res) => {
    const body: Buffer[] = [];
    req.on('data', (d: Buffer) => body.push(d));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (req.method !== 'POST' || url.pathname !== '/v1/chat/completions') {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `scripted server: no ${req.method} ${url.pathname}` } }));
        return;
      }
      let parsed: ChatRequest;
      let reply: ChatReply;
      try {
        parsed = JSON.parse(Buffer.concat(body).toString('utf8')) as ChatRequest;
        if (!parsed.tools?.length) reply = { text: 'ok' };
        else {
          requests.push(parsed);
          reply = script(parsed, requests.length - 1);
        }
      } catch (e) {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: String(e) } }));
        return;
      }
      if (parsed.stream === false) {
        const message = 'text' in reply ? { role: 'assistant', content: reply.text } : { role: 'assistant', content: null, tool_calls: [{ id: reply.call.id, type: 'function', function: { name: reply.call.name, arguments: JSON.stringify(reply.call.arguments) } }] };
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ id: 'chatcmpl-scripted', object: 'chat.completion', created: 1_764_633_600, model: parsed.model, choices: [{ index: 0, message, finish_reason: 'text' in reply ? 'stop' : 'tool_calls' }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.end(chunks(reply, parsed.model, requests.length));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
