/**
 * The shape of one evidence tool as the table declares it (docs/architecture.md §2.1):
 * name, input schema, validator, hints for clients, the surfaces that offer it, and the
 * call itself, front-end neutral. Front ends (the editor's language model tools, the MCP
 * server, the command line) derive everything from `EvidenceToolTable` (table.ts) and
 * run calls through `runToolCall` (callRunner.ts).
 */
import type { ArtifactStore } from '../artifacts/artifacts.js';
import type { CallOutcome, RunApi as Run, RunStoreApi } from '../runs/types.js';
import type { EvidenceFileWorkspace } from './fileReads.js';
import type { Checked } from './inputs.js';

/** A JSON Schema object as package.json's `inputSchema` declares it (a unit test compares them). */
export interface ToolInputSchema {
  readonly type: 'object';
  readonly properties: Readonly<Record<string, object>>;
  readonly required?: readonly string[];
  readonly additionalProperties: false;
}

/** Where a tool is offered. */
export interface ToolSurfaces {
  /** A language model tool of the editor (`contributes.languageModelTools`). */
  readonly lm: boolean;
  /** A tool of the MCP server (and of the command line). */
  readonly mcp: boolean;
  /** Offered to the model by the @evidence participant. */
  readonly participant: boolean;
}

/** Hints for clients that decide whether to ask before a call (MCP `ToolAnnotations`). */
interface ToolHints {
  readonly readOnlyHint: boolean;
  readonly destructiveHint?: boolean;
  readonly idempotentHint?: boolean;
  readonly openWorldHint: boolean;
}

/** The limits a call needs, named as the `boundedEvidence.*` settings. */
interface ToolCallSettings {
  readonly maxRangeBytes: number;
  readonly commandTimeoutMs: number;
}

/** What a call works on: one tenant's stores and the folder, as a front end opened them. */
export interface ToolCallContext {
  readonly runs: RunStoreApi;
  /**
   * Where `read_tool_output` resolves handles when not only in `runs`: this store, then the team stores the person
   * added (docs/contracts.md §7.2). Undefined: `runs` alone.
   */
  readonly handles?: Pick<RunStoreApi, 'readToolOutput'>;
  /** The run stores `evidence_search` also searches, after `runs`: the team stores' (docs/contracts.md §7.2). */
  readonly searchAlso?: () => Promise<
    readonly Pick<RunStoreApi, 'queryCalls' | 'readToolOutput' | 'searchTimeoutMs'>[]
  >;
  readonly artifacts: ArtifactStore;
  /** The bounded evidence workspace over the folder; undefined when no folder is open. */
  readonly files: EvidenceFileWorkspace | undefined;
  /** Absolute path of the folder commands run in; undefined when no folder is open. */
  readonly folder: string | undefined;
  readonly settings: ToolCallSettings;
  /** Aborts the call (a command's process group is killed). */
  readonly signal: AbortSignal;
  /** Where causes the model only hears about as a fixed sentence go. */
  readonly log: (message: string, error: unknown) => void;
}

/** Opens the call's run (or joins the run it was announced in) with a label `<kind>: <subject>`. */
export type OpenRun = (kind: string, subject: string) => Promise<Run>;

/** What a call answers. */
interface ToolAnswer {
  /** The model-facing text (bounded by the runner). */
  readonly text: string;
  /** How a run opened for this call finishes. */
  readonly status: 'completed' | 'failed' | 'cancelled';
  /** The recorded call, for front ends that show more than text (the palette command). */
  readonly outcome?: CallOutcome;
  /** The call this answer is about, when one was recorded (the runner notes what the model was handed of it). */
  readonly callId?: string;
}

/**
 * The call itself. It validates nothing (the runner did), opens its run only after its
 * own refusals (so a refused call records nothing), and returns the model's text; an
 * `EvidenceError` thrown becomes `error: <its sentence>`, anything else the storage
 * failure sentence (docs/contracts.md §5.1).
 */
export type PerformCall<I> = (ctx: ToolCallContext, input: I, openRun: OpenRun) => Promise<ToolAnswer>;

/** One evidence tool. */
export interface EvidenceToolDef<N extends string, I> {
  readonly name: N;
  readonly inputSchema: ToolInputSchema;
  /** Turns untrusted input into `I`, or says what is wrong in one sentence. */
  readonly check: (input: unknown) => Checked<I>;
  readonly hints: ToolHints;
  readonly surfaces: ToolSurfaces;
  /** One line shown while the call runs (input not yet validated). */
  readonly progress: (input: Partial<I> | undefined) => string;
  /** The call; absent when only a front end can perform it (`evidence_invokeTool` needs the editor's tool registry). */
  readonly perform?: PerformCall<I>;
}
