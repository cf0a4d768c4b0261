/**
 * Apart from hook.ts so the hook's small bundle opens the stores only for such an event (docs/architecture.md §2.4).
 */
import { runLabel, withRun, type RunSource } from '../core/index.js';
import { openSession } from './session.js';

export async function recordResponse(
  storage: string,
  d: { agent: string; sessionId: string | undefined; tool: string; response: string },
): Promise<void> {
  const session = await openSession(storage);
  const source: RunSource = {
    kind: 'hook',
    agent: d.agent,
    ...(d.sessionId !== undefined ? { sessionId: d.sessionId } : {}),
  };
  await withRun(
    session.runs,
    { label: runLabel(`${d.agent} ${d.tool}`, d.sessionId ?? 'no session'), source },
    async (run, finishAs) => {
      await run.recordResult(d.tool, { session: d.sessionId ?? null }, d.response);
      finishAs('completed');
    },
  );
}
