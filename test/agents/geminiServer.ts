/**
 * A scripted Gemini API on 127.0.0.1 for driving Gemini CLI without a model (it is pointed here by
 * `GOOGLE_GEMINI_BASE_URL`, packages/core/src/core/contentGenerator.ts): `POST /v1beta/models/<model>:streamGenerateContent`
 * answers with one server-sent event carrying the reply the test's script chooses; `:generateContent` (Gemini CLI's
 * own side requests: routing, loop and next-speaker checks) gets a plain text reply and is not a model turn of the
 * conversation; `:countTokens` a count. Every conversation request body is kept. Other paths: 404.
 */
import { json, startLoopback } from './loopbackServer.js';

export interface GeminiPart {
  text?: string;
  functionCall?: { name: string; args?: unknown; id?: string };
  functionResponse?: { name: string; id?: string; response?: Record<string, unknown> };
}
export interface GeminiRequest {
  contents: { role: string; parts: GeminiPart[] }[];
  tools?: { functionDeclarations?: { name: string }[] }[];
}

export type GeminiReply = { text: string } | { call: { name: string; args: Record<string, unknown> } };

export interface ScriptedGemini {
  readonly baseUrl: string;
  /** The conversation's requests (`streamGenerateContent`), in order. */
  readonly requests: GeminiRequest[];
  /** Paths of every request received (side requests included), for diagnosis. */
  readonly paths: string[];
  close(): Promise<void>;
}

/** The function response Gemini CLI sent for the last call of `name`, as the text the model reads. */
export function functionResponseText(req: GeminiRequest, name: string): string | undefined {
  let found: string | undefined;
  for (const c of req.contents) {
    for (const p of c.parts) {
      if (p.functionResponse?.name !== name) continue;
      const r = p.functionResponse.response ?? {};
      found = typeof r.output === 'string' ? r.output : typeof r.error === 'string' ? r.error : JSON.stringify(r);
    }
  }
  return found;
}

export async function startScriptedGemini(
  script: (req: GeminiRequest, index: number) => GeminiReply,
): Promise<ScriptedGemini> {
  const requests: GeminiRequest[] = [];
  const paths: string[] = [];
  const usage = { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 };
  const server = await startLoopback((method, pathname, raw) => {
    paths.push(`${method} ${pathname}`);
    const m = /^\/v1beta\/models\/([^:]+):(streamGenerateContent|generateContent|countTokens)$/.exec(pathname);
    if (method !== 'POST' || !m)
      return json(404, {
        error: { code: 404, message: `scripted server: no ${method} ${pathname}`, status: 'NOT_FOUND' },
      });
    if (m[2] === 'countTokens') return json(200, { totalTokens: 1 });
    // A side request: a JSON answer for the checks that ask for one (next speaker: the user).
    if (m[2] === 'generateContent')
      return json(200, {
        candidates: [
          {
            content: {
              role: 'model',
              parts: [{ text: '{"next_speaker":"user","reasoning":"done","model_choice":"flash"}' }],
            },
            finishReason: 'STOP',
            index: 0,
          },
        ],
        usageMetadata: usage,
      });
    const body = JSON.parse(raw.toString('utf8')) as GeminiRequest;
    requests.push(body);
    const reply = script(body, requests.length - 1);
    const part =
      'text' in reply ? { text: reply.text } : { functionCall: { name: reply.call.name, args: reply.call.args } };
    const chunk = {
      candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }],
      usageMetadata: usage,
      modelVersion: m[1],
    };
    return { status: 200, type: 'text/event-stream', body: `data: ${JSON.stringify(chunk)}\r\n\r\n` };
  });
  return { baseUrl: server.origin, requests, paths, close: () => server.close() };
}
