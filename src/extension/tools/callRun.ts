/**
 * The run a tool call is recorded in: the participant's run when it announced this call
 * (see runRouter.ts), else a run of its own, labelled with the call and finished when
 * the call ends, so that every call made by any agent appears in the inspector.
 */
import type { Run, RunFinishStatus } from '../../core/index.js';
import type { Log } from '../log.js';
import type { RunRouter } from '../runRouter.js';
import type { EvidenceServices, ServicesHost } from '../services.js';

/** What every tool needs. */
export interface ToolDeps {
  readonly host: ServicesHost;
  readonly router: RunRouter;
  readonly log: Log;
}

/** Runs `fn` in the call's run; a run started here is finished with the call's outcome. */
export async function inCallRun<T>(
  deps: ToolDeps,
  services: EvidenceServices,
  /** The announced call this may be (tool and exact input); undefined: never the participant's. */
  call: { readonly tool: string; readonly input: unknown } | undefined,
  label: string,
  fn: (run: Run) => Promise<T>,
  statusOf: (value: T) => RunFinishStatus = () => 'completed',
): Promise<T> {
  const claimed = call ? deps.router.claim(call.tool, call.input) : undefined;
  if (claimed) {
    deps.log.debug(`${label} (in run ${claimed.runId})`);
    return await fn(claimed);
  }
  const run = await services.runs.startRun({ label });
  deps.log.debug(`${label} (run ${run.runId})`);
  let status: RunFinishStatus = 'failed';
  try {
    const value = await fn(run);
    status = statusOf(value);
    return value;
  } finally {
    await run.finish(status).catch((e: unknown) => deps.log.error('a run could not be finished', e));
  }
}

/** A label for a run: the tool and a one-line excerpt of its subject (the core's, shared with the MCP server). */
export { runLabel } from '../../core/index.js';
