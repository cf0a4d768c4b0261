/**
 * The one call runner every front end uses (docs/architecture.md §1). Failures become one `error: …` sentence at
 * this one boundary (docs/contracts.md §5.1); a cancelled call rethrows after finishing its run as `cancelled`, so
 * each front end reports cancellation its own way.
 */
import { EvidenceError, isStorageFull, STORAGE_FULL_RESULT } from '../errors.js';
import type { CallOutcome, RunApi as Run, RunFinishStatus, RunSource } from '../runs/types.js';
import { boundModelText, runLabel } from './modelText.js';
import { EvidenceToolNames } from './inputs.js';
import { EvidenceToolTable, type EvidenceToolName } from './table.js';
import type { EvidenceToolDef, OpenRun, PerformCall, ToolCallContext } from './toolDef.js';

/** The model cannot act on it; the cause goes to the log. */
const STORAGE_FAILURE = 'error: the evidence storage failed; try again later';

export interface CallFrontEnd {
  /** Joined, and finished by its owner, not here. */
  readonly join?: () => Run | undefined;
  readonly labelPrefix?: string;
  /** Instead of the command line. */
  readonly labelSubject?: string;
  /** docs/contracts.md §2.2.1; absent reads as `tool`. */
  readonly source?: RunSource;
  /** A sentence without `error: `, after validation. */
  readonly precheck?: () => string | undefined;
  /** `evidence_invokeTool` in the editor. */
  readonly perform?: PerformCall<never>;
  /** False when the answer goes to a person: nothing is noted as shown. */
  readonly toModel?: boolean;
  /** Told the run opened for the call, before the call starts: the palette's inspector follows it while it runs. */
  readonly opened?: (run: Run) => void;
}

export interface CallAnswer {
  /** Under 8 KiB. */
  readonly text: string;
  readonly isError: boolean;
  readonly runId?: string;
  readonly outcome?: CallOutcome;
}

function answer(text: string, extra: Omit<CallAnswer, 'text' | 'isError'> = {}): CallAnswer {
  return { text: boundModelText(text), isError: text.startsWith('error:'), ...extra };
}

/** docs/contracts.md §2.14. Refusals are not noted: they show the model nothing of any output. */
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
        label: runLabel(`${frontEnd.labelPrefix ?? ''}${kind}`, frontEnd.labelSubject ?? subject),
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
