/**
 * The one call runner every front end uses (docs/architecture.md §1): validate the
 * input with the table's validator, let the front end refuse what only it can (the
 * editor's Restricted Mode), open the call's run or join the run it was announced in,
 * perform the call, finish a run opened here with the call's status, and answer with
 * bounded text. Failures become one `error: …` sentence here, at this one boundary
 * (docs/contracts.md §5.1): an `EvidenceError`'s own sentence, else a fixed one with the
 * cause sent to the log. A cancelled call (its signal aborted) rethrows, so each front
 * end reports cancellation its own way; its run is finished as `cancelled` first.
 */
import { EvidenceError, isStorageFull, STORAGE_FULL_RESULT } from '../errors.js';
import type { CallOutcome, RunApi as Run, RunFinishStatus, RunSource } from '../runs/types.js';
import { boundModelText, runLabel } from './modelText.js';
import { EvidenceToolNames } from './inputs.js';
import { EvidenceToolTable, type EvidenceToolName } from './table.js';
import type { EvidenceToolDef, OpenRun, PerformCall, ToolCallContext } from './toolDef.js';

/** The answer to a call that failed for a reason the model cannot act on (the cause goes to the log). */
const STORAGE_FAILURE = 'error: the evidence storage failed; try again later';

/** What a front end adds to a call. */
export interface CallFrontEnd {
  /** The run this call was announced in (the participant's): joined, and finished by its owner, not here. */
  readonly join?: () => Run | undefined;
  /** Prefix of the label of a run opened for the call (`mcp ` in the MCP server). */
  readonly labelPrefix?: string;
  /** Who a run opened for the call is recorded as started by (docs/contracts.md §2.2.1); absent reads as `tool`. */
  readonly source?: RunSource;
  /** A refusal only this front end makes (a sentence, without `error: `), after validation. */
  readonly precheck?: () => string | undefined;
  /** Performs a tool the table leaves to the front end (`evidence_invokeTool` in the editor). */
  readonly perform?: PerformCall<never>;
  /** False when the answer goes to a person, not a model (the palette's command): nothing is noted as shown. */
  readonly toModel?: boolean;
  /** Told the run opened for the call, before the call starts: the palette's inspector follows it while it runs. */
  readonly opened?: (run: Run) => void;
}

/** What a call answered. */
export interface CallAnswer {
  /** The model-facing text, under 8 KiB. */
  readonly text: string;
  /** True when `text` is an `error: …` sentence. */
  readonly isError: boolean;
  /** The run the call was recorded in, if it opened or joined one. */
  readonly runId?: string;
  /** The recorded call, when the tool reports it (commands). */
  readonly outcome?: CallOutcome;
}

function answer(text: string, extra: Omit<CallAnswer, 'text' | 'isError'> = {}): CallAnswer {
  return { text: boundModelText(text), isError: text.startsWith('error:'), ...extra };
}

/**
 * Notes what the model is handed (docs/contracts.md §2.14): the answer of a call this runner
 * recorded (its first view), or a `read_tool_output` reply over a handle (a read back).
 * Refusals are not noted: they show the model nothing of any output.
 */
async function noteShown(
  ctx: ToolCallContext,
  name: EvidenceToolName,
  input: unknown,
  result: { callId?: string; outcome?: CallOutcome },
  given: CallAnswer,
  run: Run | undefined,
): Promise<void> {
  if (name === EvidenceToolNames.readToolOutput) {
    if (!given.isError)
      await ctx.runs.recordShown({ view: 'read', handle: (input as { handle: string }).handle, text: given.text });
    return;
  }
  const callId = result.callId ?? result.outcome?.callId;
  if (run && callId !== undefined)
    await ctx.runs.recordShown({ view: 'answer', runId: run.runId, callId, text: given.text });
}

/** Runs one call of the evidence tool `name` with untrusted `input`. */
export async function runToolCall(
  name: EvidenceToolName,
  input: unknown,
  ctx: ToolCallContext,
  frontEnd: CallFrontEnd = {},
): Promise<CallAnswer> {
  // The table is keyed by name, so the entry's input type is the one its validator returns.
  const tool = EvidenceToolTable[name] as EvidenceToolDef<EvidenceToolName, unknown>;
  const checked = tool.check(input);
  if (!checked.ok) return answer(`error: ${checked.error}`);
  const refused = frontEnd.precheck?.();
  if (refused !== undefined) return answer(`error: ${refused}`);
  const perform = (tool.perform ?? frontEnd.perform) as PerformCall<unknown> | undefined;
  if (!perform) return answer(`error: ${name} is not available here`);

  let run: Run | undefined;
  let owned = false;
  const openRun: OpenRun = async (kind, subject) => {
    if (run) return run;
    const joined = frontEnd.join?.();
    if (joined) {
      run = joined;
    } else {
      run = await ctx.runs.startRun({
        label: runLabel(`${frontEnd.labelPrefix ?? ''}${kind}`, subject),
        ...(frontEnd.source ? { source: frontEnd.source } : {}),
      });
      owned = true;
      frontEnd.opened?.(run);
    }
    return run;
  };
  let status: RunFinishStatus = 'failed';
  try {
    const result = await perform(ctx, checked.value, openRun);
    status = result.status;
    const given = answer(result.text, {
      ...(run ? { runId: run.runId } : {}),
      ...(result.outcome ? { outcome: result.outcome } : {}),
    });
    if (frontEnd.toModel !== false) await noteShown(ctx, name, checked.value, result, given, run);
    return given;
  } catch (e) {
    if (ctx.signal.aborted) {
      status = 'cancelled';
      throw e;
    }
    if (e instanceof EvidenceError) return answer(`error: ${e.message}`, run ? { runId: run.runId } : {});
    ctx.log(`${name} failed`, e);
    // A full disk is named: the person can act on it (docs/contracts.md §5.6).
    if (isStorageFull(e)) return answer(STORAGE_FULL_RESULT, run ? { runId: run.runId } : {});
    return answer(STORAGE_FAILURE, run ? { runId: run.runId } : {});
  } finally {
    if (owned && run) await run.finish(status).catch((e: unknown) => ctx.log('a run could not be finished', e));
  }
}
