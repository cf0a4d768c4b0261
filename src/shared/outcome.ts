/** Shared by the webview and the host so both say the same thing. Pure: no DOM, no `vscode`. */
import type { CallDto } from './protocol.js';

export interface Outcome {
  readonly kind: 'ok' | 'failed' | 'running';
  readonly label: string;
  readonly detail: string;
}

/**
 * A command that exited non-zero is recorded `ok` (it ran and its output was kept), yet failed as a person means it:
 * the exit fields take precedence.
 */
export function outcomeOf(
  c: Pick<CallDto, 'status' | 'errorMessage' | 'exitCode' | 'signal' | 'timedOut' | 'cancelled'>,
): Outcome {
  if (c.status === 'running') return { kind: 'running', label: 'running', detail: 'still running' };
  if (c.status === 'interrupted')
    return { kind: 'failed', label: 'interrupted', detail: 'interrupted: the editor stopped before the call finished' };
  if (c.timedOut)
    return {
      kind: 'failed',
      label: 'timed out',
      detail: c.errorMessage ?? 'the command was stopped at its time limit',
    };
  if (c.cancelled) return { kind: 'failed', label: 'cancelled', detail: c.errorMessage ?? 'the command was cancelled' };
  if (c.signal) return { kind: 'failed', label: c.signal, detail: `the command was ended by ${c.signal}` };
  if (typeof c.exitCode === 'number' && c.exitCode !== 0) {
    const hint = c.exitCode === 127 ? ' (command not found)' : c.exitCode === 126 ? ' (not executable)' : '';
    return { kind: 'failed', label: `exit ${c.exitCode}`, detail: `the command exited with code ${c.exitCode}${hint}` };
  }
  if (c.status !== 'ok')
    return { kind: 'failed', label: c.status, detail: c.errorMessage ?? `the call ended with status ${c.status}` };
  if (c.exitCode === 0) return { kind: 'ok', label: 'exit 0', detail: 'the command exited with code 0' };
  return { kind: 'ok', label: 'ok', detail: 'the call succeeded' };
}

/** docs/contracts.md §3.4, "Outcome". */
export function runOutcomeOf(r: {
  readonly status: string;
  readonly failedCalls?: number;
  readonly callCount: number;
}): Outcome {
  const failed = r.failedCalls ?? 0;
  const calls = `${failed} of ${r.callCount} ${r.callCount === 1 ? 'call' : 'calls'} failed`;
  if (r.status === 'running')
    return { kind: 'running', label: 'running', detail: failed > 0 ? `still running; ${calls}` : 'still running' };
  if (r.status === 'interrupted')
    return {
      kind: 'failed',
      label: 'interrupted',
      detail: 'interrupted: the run never finished (the editor or process stopped)',
    };
  if (r.status === 'cancelled') return { kind: 'failed', label: 'cancelled', detail: 'the run was cancelled' };
  if (r.status === 'failed')
    return { kind: 'failed', label: 'failed', detail: failed > 0 ? `the run failed; ${calls}` : 'the run failed' };
  if (failed > 0)
    return { kind: 'failed', label: failed === 1 && r.callCount === 1 ? 'failed' : `${failed} failed`, detail: calls };
  return {
    kind: 'ok',
    label: 'completed',
    detail:
      r.status === 'completed'
        ? 'the run completed and none of its calls failed'
        : `the run ended with status ${r.status}`,
  };
}
