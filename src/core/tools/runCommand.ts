/**
 * `evidence_runCommand` (docs/contracts.md §3.2, §5.2): stdout, stderr and the exit value become attachments with
 * their own handles; the model gets the bounded summary.
 */
import { checkShape, EvidenceToolNames, isInt, type Checked } from './inputs.js';
import type { EvidenceToolDef, ToolInputSchema } from './toolDef.js';
import { resolveWorkingDirectory } from './workingDirectory.js';

export interface RunCommandInput {
  command: string;
  cwd?: string;
  timeoutMs?: number;
}

const schema = {
  type: 'object',
  properties: {
    command: {
      type: 'string',
      minLength: 1,
      maxLength: 8192,
      description: 'The shell command line, run with /bin/sh -c.',
    },
    cwd: {
      type: 'string',
      maxLength: 1024,
      description:
        'Working directory relative to the workspace folder (default: the folder itself). Must stay inside it.',
    },
    timeoutMs: {
      type: 'integer',
      minimum: 1,
      maximum: 3600000,
      description: 'Kill the command (and its children) after this many milliseconds.',
    },
  } satisfies Record<keyof RunCommandInput, object>,
  required: ['command'],
  additionalProperties: false,
} as const satisfies ToolInputSchema;

export function checkRunCommand(v: unknown): Checked<RunCommandInput> {
  const s = checkShape(v, EvidenceToolNames.runCommand, schema);
  if (!s.ok) return s;
  const { command, cwd, timeoutMs } = s.value;
  if (typeof command !== 'string' || command.trim() === '' || command.length > 8192)
    return { ok: false, error: 'command must be a non-empty string of at most 8192 characters' };
  if (cwd !== undefined && (typeof cwd !== 'string' || cwd.length > 1024))
    return { ok: false, error: 'cwd must be a relative folder path' };
  if (timeoutMs !== undefined && !isInt(timeoutMs, 1, 3_600_000))
    return { ok: false, error: 'timeoutMs must be an integer from 1 to 3600000' };
  return {
    ok: true,
    value: {
      command,
      ...(cwd !== undefined ? { cwd: cwd as string } : {}),
      ...(timeoutMs !== undefined ? { timeoutMs: timeoutMs as number } : {}),
    },
  };
}

/** For progress lines. */
function oneLine(s: string): string {
  const line = s.replace(/\s+/g, ' ').trim().replace(/`/g, "'");
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
}

export const runCommandTool: EvidenceToolDef<typeof EvidenceToolNames.runCommand, RunCommandInput> = {
  name: EvidenceToolNames.runCommand,
  inputSchema: schema,
  check: checkRunCommand,
  hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  surfaces: { lm: true, mcp: true, participant: true },
  progress: (input) => `Running \`${oneLine(String(input?.command ?? ''))}\``,
  async perform(ctx, input, openRun) {
    if (ctx.folder === undefined)
      return { text: 'error: no folder is open; open a folder to run commands in it', status: 'failed' };
    const cwd = await resolveWorkingDirectory(ctx.folder, input.cwd);
    if ('error' in cwd) return { text: cwd.error, status: 'failed' };
    const run = await openRun('run', input.command);
    const outcome = await run.runCommand(input.command, {
      cwd: cwd.dir,
      timeoutMs: input.timeoutMs ?? ctx.settings.commandTimeoutMs,
      signal: ctx.signal,
      tool: EvidenceToolNames.runCommand,
    });
    const status = ctx.signal.aborted ? 'cancelled' : outcome.status === 'failed' ? 'failed' : 'completed';
    return { text: outcome.modelText, status, outcome };
  },
};
