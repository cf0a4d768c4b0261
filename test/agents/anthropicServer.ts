/**
 * A scripted Anthropic Messages API on 127.0.0.1 for driving a real agent command line
 * (Claude Code) without a model: `POST /v1/messages` answers with a streamed (SSE)
 * assistant message that the test's script chooses from the request, and every request
 * body is kept so the test can assert on exactly what the agent gave its model. Any
 * other path answers 404 (nothing else is needed, and nothing leaves the machine).
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A content block of a Messages request (only the fields the tests read). */
export interface ContentBlock {
  type: string;
  text?: string;
  id?: string;
  name?: string;
  input?: unknown;
  tool_use_id?: string;
  content?: string | { type: string; text?: string }[];
  is_error?: boolean;
}

/** A Messages request body (only the fields the tests read). */
export interface MessagesRequest {
  model: string;
  stream?: boolean;
  messages: { role: 'user' | 'assistant'; content: string | ContentBlock[] }[];
  tools?: { name: string }[];
}

/** What the scripted model answers: text (ends the turn) or one tool call. */
export type ScriptedReply = { text: string } | { tool: { id: string; name: string; input: Record<string, unknown> } };

/** A running scripted server. */
export interface ScriptedAnthropic {
  /** `http://127.0.0.1:<port>`, for `ANTHROPIC_BASE_URL`. */
  readonly baseUrl: string;
  /** Every `/v1/messages` request body received, in order. */
  readonly requests: MessagesRequest[];
  close(): Promise<void>;
}

/** The text of the tool result for `toolUseId` in a request, if the agent sent one. */
export function toolResultText(
  req: MessagesRequest,
  toolUseId: string,
): { text: string; isError: boolean } | undefined {
  for (const m of req.messages) {
    if (typeof m.content === 'string') continue;
    for (const block of m.content) {
      if (block.type !== 'tool_result' || block.tool_use_id !== toolUseId) continue;
      const c = block.content;
      const text = typeof c === 'string' ? c : (c ?? []).map((p) => (p.type === 'text' ? (p.text ?? '') : '')).join('');
      return { text, isError: block.is_error === true };
    }
  }
  return undefined;
}

/** Server-sent events of one assistant message carrying `reply`, as the Messages API streams it. */
function sse(reply: ScriptedReply, model: string, n: number): string {
  const events: [string, object][] = [
    [
      'message_start',
      {
        message: {
          id: `msg_scripted_${n}`,
          type: 'message',
          role: 'assistant',
          model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 1, output_tokens: 1 },
        },
      },
    ],
  ];
  if ('text' in reply) {
    events.push(
      ['content_block_start', { index: 0, content_block: { type: 'text', text: '' } }],
      ['content_block_delta', { index: 0, delta: { type: 'text_delta', text: reply.text } }],
    );
  } else {
    // The input arrives as JSON fragments, the way a model streams it.
    const json = JSON.stringify(reply.tool.input);
    const half = Math.floor(json.length / 2);
    events.push(
      [
        'content_block_start',
        { index: 0, content_block: { type: 'tool_use', id: reply.tool.id, name: reply.tool.name, input: {} } },
      ],
      ['content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: json.slice(0, half) } }],
      ['content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: json.slice(half) } }],
    );
  }
  events.push(
    ['content_block_stop', { index: 0 }],
    [
      'message_delta',
      {
        delta: { stop_reason: 'text' in reply ? 'end_turn' : 'tool_use', stop_sequence: null },
        usage: { output_tokens: 1 },
      },
    ],
    ['message_stop', {}],
  );
  return events.map(([type, data]) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`).join('');
}

/** Starts the server; `script` picks the reply from the request and its 0-based index. */
export async function startScriptedAnthropic(
  script: (req: MessagesRequest, index: number) => ScriptedReply,
): Promise<ScriptedAnthropic> {
  const requests: MessagesRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (req.method !== 'POST' || url.pathname !== '/v1/messages') {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            type: 'error',
            error: { type: 'not_found_error', message: `scripted server: no ${req.method} ${url.pathname}` },
          }),
        );
        return;
      }
      let body: MessagesRequest;
      let reply: ScriptedReply;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as MessagesRequest;
        requests.push(body);
        reply = script(body, requests.length - 1);
      } catch (e) {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: String(e) } }));
        return;
      }
      if (body.stream === false) {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            type: 'error',
            error: { type: 'invalid_request_error', message: 'scripted server streams only' },
          }),
        );
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.end(sse(reply, body.model, requests.length));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A model that makes one `bash` call with `input`, then says "done"; requests outside the agent's turns (they offer
 * no `bash`: titles, summaries) get `aside`. `result()` is the call's result as the agent's next request gave it.
 */
export async function startOneBashCall(
  input: Record<string, unknown>,
  aside: string,
): Promise<{ server: ScriptedAnthropic; result: () => string }> {
  const turns: MessagesRequest[] = [];
  const server = await startScriptedAnthropic((req): ScriptedReply => {
    if (!(req.tools ?? []).some((t) => t.name === 'bash')) return { text: aside };
    turns.push(req);
    return turns.length === 1 ? { tool: { id: 'toolu_one', name: 'bash', input } } : { text: 'done' };
  });
  return { server, result: () => (turns[1] ? (toolResultText(turns[1], 'toolu_one')?.text ?? '') : '') };
}
