/**
 * A scripted OpenAI Responses API on 127.0.0.1 for driving Codex without a model (Codex speaks
 * `POST /v1/responses`, streamed as server-sent events, to a custom `model_providers` entry with
 * `wire_api = "responses"`). Each reply is chosen by the test's script from the request; every
 * request body is kept so the test asserts on exactly what Codex gave its model. Other paths: 404.
 */
import { json, startLoopback } from './loopbackServer.js';

/** One item of a Responses request's `input` (only the fields the tests read). */
export interface InputItem {
  type?: string;
  role?: string;
  call_id?: string;
  name?: string;
  output?: string | { type: string; text?: string }[];
  content?: unknown;
}

export interface ResponsesRequest {
  model: string;
  input: InputItem[];
  tools?: { type: string; name?: string }[];
  stream?: boolean;
}

/** What the scripted model answers: text (ends the turn) or one function call. */
export type ScriptedResponse =
  { text: string } | { call: { id: string; name: string; namespace?: string; arguments: Record<string, unknown> } };

export interface ScriptedResponses {
  /** `http://127.0.0.1:<port>/v1`, for the provider's `base_url`. */
  readonly baseUrl: string;
  readonly requests: ResponsesRequest[];
  /** The raw bytes of each request body (what the model was sent, byte for byte). */
  readonly rawBodies: Buffer[];
  close(): Promise<void>;
}

/** The output Codex sent back for `callId` (a `function_call_output` item), as text. */
export function functionOutput(req: ResponsesRequest, callId: string): string | undefined {
  for (const item of req.input) {
    if (item.type !== 'function_call_output' || item.call_id !== callId) continue;
    const o = item.output;
    return typeof o === 'string' ? o : (o ?? []).map((p) => p.text ?? '').join('');
  }
  return undefined;
}

function sse(reply: ScriptedResponse, model: string, n: number): string {
  const id = `resp_scripted_${n}`;
  const item =
    'text' in reply
      ? {
          type: 'message',
          id: `msg_${n}`,
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: reply.text, annotations: [] }],
        }
      : {
          type: 'function_call',
          id: `fc_${n}`,
          status: 'completed',
          call_id: reply.call.id,
          name: reply.call.name,
          ...(reply.call.namespace ? { namespace: reply.call.namespace } : {}),
          arguments: JSON.stringify(reply.call.arguments),
        };
  const events: object[] = [
    { type: 'response.created', response: { id, object: 'response', model, status: 'in_progress', output: [] } },
    { type: 'response.output_item.added', output_index: 0, item: { ...item, status: 'in_progress' } },
    { type: 'response.output_item.done', output_index: 0, item },
    {
      type: 'response.completed',
      response: {
        id,
        object: 'response',
        model,
        status: 'completed',
        output: [item],
        usage: {
          input_tokens: 1,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: 1,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: 2,
        },
      },
    },
  ];
  return events.map((e) => `event: ${(e as { type: string }).type}\ndata: ${JSON.stringify(e)}\n\n`).join('');
}

export async function startScriptedResponses(
  script: (req: ResponsesRequest, index: number) => ScriptedResponse,
): Promise<ScriptedResponses> {
  const requests: ResponsesRequest[] = [];
  const rawBodies: Buffer[] = [];
  const server = await startLoopback((method, pathname, raw) => {
    if (method !== 'POST' || pathname !== '/v1/responses')
      return json(404, { error: { message: `scripted server: no ${method} ${pathname}` } });
    const body = JSON.parse(raw.toString('utf8')) as ResponsesRequest;
    requests.push(body);
    rawBodies.push(raw);
    return {
      status: 200,
      type: 'text/event-stream',
      body: sse(script(body, requests.length - 1), body.model, requests.length),
    };
  });
  return { baseUrl: `${server.origin}/v1`, requests, rawBodies, close: () => server.close() };
}
