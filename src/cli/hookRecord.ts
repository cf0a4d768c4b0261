/**
 * Apart from hook.ts so the hook's small bundle opens the stores only for such an event (docs/architecture.md §2.4).
 */
import { createReadStream, lstatSync } from 'node:fs';
import { Readable } from 'node:stream';
import { runLabel, withRun, type RunSource } from '../core/index.js';
import type { HookDecision } from '../core/reach/hookEvent.js';
import type { RecordResponse } from './hook.js';
import { recordAsRouted } from './recordSpool.js';
import { openSession } from './session.js';

export const recordResponse: RecordResponse = async (storage, d) => {
  if (d.action === 'keep') return keepFinished(storage, d);
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
  return undefined;
};

/** A command the client ran as written, recorded as `keep` records a routed one; over `wholeBytes`, the observation. */
async function keepFinished(
  storage: string,
  d: Extract<HookDecision, { action: 'keep' }>,
): Promise<Record<string, unknown> | undefined> {
  let bytes: number;
  let stdout: AsyncIterable<Uint8Array>;
  if ('file' in d.output) {
    // A plain file only: a link there would make the record of another file.
    const st = lstatSync(d.output.file);
    if (!st.isFile()) throw new Error('the saved output is not a plain file');
    bytes = st.size;
    stdout = createReadStream(d.output.file);
  } else {
    bytes = Buffer.byteLength(d.output.text, 'utf8');
    stdout = Readable.from([Buffer.from(d.output.text, 'utf8')]);
  }
  const session = await openSession(storage);
  const { text } = await recordAsRouted(session.runs, {
    agent: d.agent,
    sessionId: d.sessionId,
    command: d.command,
    cwd: d.cwd ?? process.cwd(),
    read: d.read,
    stdout,
    stderr: Readable.from([]),
    exit: { code: d.exitCode, aborted: false },
  });
  // Small: the client's own text stands, as unrouted.
  return bytes <= d.wholeBytes ? undefined : d.answer(text);
}
