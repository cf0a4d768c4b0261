/** One evidence tool as the table declares it, front-end neutral (docs/architecture.md §2.1). */
import type { ArtifactStore } from '../artifacts/artifacts.js';
import type { CallOutcome, RunApi as Run, RunStoreApi } from '../runs/types.js';
import type { EvidenceFileWorkspace } from './fileReads.js';
import type { Checked } from './inputs.js';

/** A unit test compares them with package.json. */
export interface ToolInputSchema {
  readonly type: 'object';
  readonly properties: Readonly<Record<string, object>>;
  readonly required?: readonly string[];
  readonly additionalProperties: false;
}

export interface ToolSurfaces {
  readonly lm: boolean;
  /** The command line offers these too. */
  readonly mcp: boolean;
  readonly participant: boolean;
}

/** MCP `ToolAnnotations`. */
interface ToolHints {
  readonly readOnlyHint: boolean;
  readonly destructiveHint?: boolean;
  readonly idempotentHint?: boolean;
  readonly openWorldHint: boolean;
}

/** Named as the `boundedEvidence.*` settings. */
interface ToolCallSettings {
  readonly maxRangeBytes: number;
  readonly commandTimeoutMs: number;
}

export interface ToolCallContext {
  readonly runs: RunStoreApi;
  /** This store, then the team stores (docs/contracts.md §7.2). Undefined: `runs` alone. */
  readonly handles?: Pick<RunStoreApi, 'readToolOutput'>;
  /** docs/contracts.md §7.2. */
  readonly searchAlso?: () => Promise<
    readonly Pick<RunStoreApi, 'queryCalls' | 'readToolOutput' | 'searchTimeoutMs'>[]
  >;
  readonly artifacts: ArtifactStore;
  readonly files: EvidenceFileWorkspace | undefined;
  readonly folder: string | undefined;
  readonly settings: ToolCallSettings;
  readonly signal: AbortSignal;
  readonly log: (message: string, error: unknown) => void;
}

export type OpenRun = (kind: string, subject: string) => Promise<Run>;

interface ToolAnswer {
  readonly text: string;
  readonly status: 'completed' | 'failed' | 'cancelled';
  readonly outcome?: CallOutcome;
  /** The runner notes what the model was handed of it. */
  readonly callId?: string;
}

/**
 * Validates nothing (the runner did) and opens its run only after its own refusals, so a refused call records nothing
 * (docs/contracts.md §5.1).
 */
export type PerformCall<I> = (ctx: ToolCallContext, input: I, openRun: OpenRun) => Promise<ToolAnswer>;

export interface EvidenceToolDef<N extends string, I> {
  readonly name: N;
  readonly inputSchema: ToolInputSchema;
  readonly check: (input: unknown) => Checked<I>;
  readonly hints: ToolHints;
  readonly surfaces: ToolSurfaces;
  /** Input not yet validated. */
  readonly progress: (input: Partial<I> | undefined) => string;
  /** Absent when only a front end can perform it. */
  readonly perform?: PerformCall<I>;
}
