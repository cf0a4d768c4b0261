/**
 * The @evidence chat participant: each request is one run of an agent loop with the model the user picked. Tools go
 * through `vscode.lm.invokeTool` so the chat shows their confirmations, and each call is announced to the run router
 * so it lands in this run. Follow-ups can read the handles earlier answers used: same workspace.
 */
import * as vscode from 'vscode';
import { runLabel, toolNamesOffered, withRun, type Run } from '../../core/index.js';
import { handleDocumentUri } from '../documents/artifactDocument.js';
import { EVIDENCE_LINKS_PREFIX, evidenceLinksMarkdown } from '../links/evidenceLinks.js';
import { Ids } from '../ids.js';
import { errorMessage, type Log } from '../log.js';
import type { RunRouter } from '../runRouter.js';
import type { ServicesHost } from '../services.js';

export interface ParticipantDeps {
  readonly host: ServicesHost;
  readonly router: RunRouter;
  readonly log: Log;
}

/** Read back from the history by follow-ups. */
interface EvidenceChatMetadata {
  readonly runId?: string;
  readonly handles?: readonly string[];
}

const PARTICIPANT_TOOLS: readonly string[] = toolNamesOffered('participant');

/** A runaway model must not spin forever. */
const MAX_MODEL_TURNS = 12;

/** Never ending in `.`: a sentence's full stop is not part of it. */
const HANDLE_PATTERN = /\b(?:res|out)_[A-Za-z0-9._-]*[A-Za-z0-9_-]/g;

const SYSTEM_PROMPT = [
  'You investigate with exact evidence. Tools: evidence_runCommand runs a shell command and keeps its complete output;',
  'evidence_readFile reads a workspace file; read_tool_output reads a recorded output back by handle.',
  'Large outputs come back as a bounded observation: sizes, sha256, head and tail previews and a handle.',
  'Never guess what the omitted middle says: search it with read_tool_output (a "pattern" such as "error|FAIL"),',
  'or read a line window (offset, limit) or a byte window. When you state a ' +
    'finding, cite the handle and the line number or byte range.',
  'Keep answers short.',
].join(' ');

export function registerParticipant(context: vscode.ExtensionContext, deps: ParticipantDeps): void {
  const participant = vscode.chat.createChatParticipant(Ids.participant.id, (request, chatContext, stream, token) =>
    handleChatRequest(deps, request, chatContext, stream, token),
  );
  participant.iconPath = new vscode.ThemeIcon('law');
  context.subscriptions.push(participant);
}

async function handleChatRequest(
  deps: ParticipantDeps,
  request: vscode.ChatRequest,
  chatContext: vscode.ChatContext,
  stream: vscode.ChatResponseStream,
  token: vscode.CancellationToken,
): Promise<vscode.ChatResult> {
  const services = await deps.host.get();
  if (request.command === 'inspect') {
    // From the catalog: one row, not a stat of every run's log.
    const latest = (await services.runs.queryRuns({ limit: 1 }))[0];
    if (!latest) {
      stream.markdown('No runs recorded in this workspace yet. Try `@evidence /run <command>`.');
      return {};
    }
    await vscode.commands.executeCommand(Ids.commands.openInspector, { runId: latest.runId });
    stream.markdown(
      `Opened the Evidence Inspector on run \`${latest.runId}\`${latest.label ? ` (${latest.label})` : ''}.`,
    );
    return { metadata: { runId: latest.runId } satisfies EvidenceChatMetadata };
  }
  if (request.command === 'run' && request.prompt.trim() === '') {
    stream.markdown('Usage: `@evidence /run <command>`, for example `@evidence /run npm test`.');
    return {};
  }
  return withRun(
    services.runs,
    {
      label: runLabel('@evidence', request.command === 'run' ? `/run ${request.prompt}` : request.prompt),
      source: { kind: 'participant' },
    },
    async (run, finishAs) => {
      const loop = new AgentLoop(deps, run, request, stream, token);
      try {
        await loop.run(chatContext);
        finishAs(token.isCancellationRequested ? 'cancelled' : 'completed');
      } catch (e) {
        if (token.isCancellationRequested || e instanceof vscode.CancellationError) {
          finishAs('cancelled');
        } else {
          deps.log.error('@evidence request failed', e);
          stream.markdown(`\n\nThe request failed: ${errorMessage(e)}${modelMissing(e) ? `\n\n${noModelHint}` : ''}`);
        }
      }
      return { metadata: { runId: run.runId, handles: [...loop.handles] } satisfies EvidenceChatMetadata };
    },
    (e) => deps.log.error('a run could not be finished', e),
  );
}

/** The error alone named no way out. */
const noModelHint =
  "No language model answered in this window. Pick or add one in the chat's " +
  'model picker (or run **Chat: Manage Language Models…**), then ask again. ' +
  'Without a model, `@evidence /inspect` still opens the inspector, and ' +
  '**Bounded Evidence: Run Command and Capture** still records a command.';

function modelMissing(e: unknown): boolean {
  if (
    e instanceof vscode.LanguageModelError &&
    (e.code === vscode.LanguageModelError.NotFound().code || e.code === vscode.LanguageModelError.NoPermissions().code)
  )
    return true;
  return /language model (is )?(unavailable|not found)|no (language )?model/i.test(errorMessage(e));
}

class AgentLoop {
  readonly handles = new Set<string>();
  private readonly messages: vscode.LanguageModelChatMessage[] = [];
  private readonly referenced = new Set<string>();

  constructor(
    private readonly deps: ParticipantDeps,
    private readonly evidenceRun: Run,
    private readonly request: vscode.ChatRequest,
    private readonly stream: vscode.ChatResponseStream,
    private readonly token: vscode.CancellationToken,
  ) {}

  async run(chatContext: vscode.ChatContext): Promise<void> {
    this.messages.push(vscode.LanguageModelChatMessage.User(SYSTEM_PROMPT));
    this.addHistory(chatContext);
    if (this.request.command === 'run') {
      const command = this.request.prompt.trim();
      const callId = 'evidence-run-0';
      const input = { command };
      this.messages.push(
        vscode.LanguageModelChatMessage.User(`Run this command and summarise the outcome, citing evidence: ${command}`),
      );
      this.messages.push(
        vscode.LanguageModelChatMessage.Assistant([
          new vscode.LanguageModelToolCallPart(callId, Ids.tools.runCommand, input),
        ]),
      );
      const content = await this.invoke(Ids.tools.runCommand, input);
      this.messages.push(
        vscode.LanguageModelChatMessage.User([new vscode.LanguageModelToolResultPart(callId, content)]),
      );
    } else {
      this.messages.push(vscode.LanguageModelChatMessage.User(this.request.prompt));
    }
    const tools: vscode.LanguageModelChatTool[] = vscode.lm.tools
      .filter((t) => PARTICIPANT_TOOLS.includes(t.name))
      .map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }));
    for (let turn = 0; turn < MAX_MODEL_TURNS; turn++) {
      if (this.token.isCancellationRequested) throw new vscode.CancellationError();
      const response = await this.request.model.sendRequest(
        this.messages,
        { tools, justification: 'Investigate tool outputs with bounded, verifiable evidence.' },
        this.token,
      );
      const calls: vscode.LanguageModelToolCallPart[] = [];
      let text = '';
      for await (const part of response.stream) {
        if (part instanceof vscode.LanguageModelTextPart) {
          text += part.value;
          this.stream.markdown(part.value);
        } else if (part instanceof vscode.LanguageModelToolCallPart) {
          calls.push(part);
        }
      }
      // The handles and ranges the answer cites become links to the inspector.
      const links = evidenceLinksMarkdown(text);
      if (links) this.stream.markdown(links);
      if (calls.length === 0) return;
      this.messages.push(
        vscode.LanguageModelChatMessage.Assistant([
          ...(text ? [new vscode.LanguageModelTextPart(text)] : []),
          ...calls,
        ]),
      );
      const results: vscode.LanguageModelToolResultPart[] = [];
      for (const call of calls)
        results.push(new vscode.LanguageModelToolResultPart(call.callId, await this.invoke(call.name, call.input)));
      this.messages.push(vscode.LanguageModelChatMessage.User(results));
    }
    this.stream.markdown(`\n\n_Stopped after ${MAX_MODEL_TURNS} model turns; ask a follow-up to continue._`);
  }

  private addHistory(chatContext: vscode.ChatContext): void {
    const earlier = new Set<string>();
    for (const turn of chatContext.history) {
      if (turn instanceof vscode.ChatRequestTurn) {
        this.messages.push(vscode.LanguageModelChatMessage.User(turn.prompt));
      } else if (turn instanceof vscode.ChatResponseTurn) {
        // Our links to the inspector are for people: the model gets the answer's own words.
        const text = turn.response
          .map((p) =>
            p instanceof vscode.ChatResponseMarkdownPart && !p.value.value.startsWith(EVIDENCE_LINKS_PREFIX)
              ? p.value.value
              : '',
          )
          .join('');
        if (text) this.messages.push(vscode.LanguageModelChatMessage.Assistant(text));
        const meta = turn.result.metadata as EvidenceChatMetadata | undefined;
        for (const h of meta?.handles ?? []) if (typeof h === 'string') earlier.add(h);
      }
    }
    if (earlier.size > 0) {
      this.messages.push(
        vscode.LanguageModelChatMessage.User(
          `Handles from earlier in this conversation (still readable with ` +
            `read_tool_output): ${[...earlier].slice(0, 50).join(', ')}`,
        ),
      );
    }
  }

  private async invoke(name: string, input: object): Promise<unknown[]> {
    this.stream.progress(`${name}…`);
    const announcement = this.deps.router.expect(name, input, this.evidenceRun);
    let content: unknown[];
    try {
      content = (
        await vscode.lm.invokeTool(name, { input, toolInvocationToken: this.request.toolInvocationToken }, this.token)
      ).content;
    } catch (e) {
      if (this.token.isCancellationRequested) throw new vscode.CancellationError();
      content = [new vscode.LanguageModelTextPart(`error: ${errorMessage(e).slice(0, 300)}`)];
    } finally {
      announcement.dispose();
    }
    const text = content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
    for (const h of text.match(HANDLE_PATTERN) ?? []) this.handles.add(h);
    const read = name === Ids.tools.readToolOutput ? (input as { handle?: unknown }).handle : undefined;
    if (typeof read === 'string' && !text.startsWith('error:') && !this.referenced.has(read)) {
      this.referenced.add(read);
      this.stream.reference(handleDocumentUri(read));
    }
    return content;
  }
}
