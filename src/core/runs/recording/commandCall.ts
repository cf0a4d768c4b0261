/**
 * Command calls: stdout, stderr and declared files stream into the store as attachments; the summary is the call's
 * result (docs/contracts.md §2).
 */
import { createReadStream, promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { EvidenceError } from '../../errors.js';
import { canonicalJson } from '../../json.js';
import { encodeUtf8 } from '../../utf8.js';
import { captureOutput, once, type Captured } from './capture.js';
import { startCommand, type CommandExit, type RunningCommand } from '../processes/command.js';
import { ContentTypes, decideAttachmentShownWhole, decideAttachmentStorage } from './decisions.js';
import { mintAttachmentHandle } from '../log/handles.js';
import { commandSummary, type AttachmentView } from './observation.js';
import { backendMessage, captureCap, storedFields } from './recordFields.js';
import type { CallRecorder, RunHost } from './runHost.js';
import type { AttachmentRecord, CallError, CallOutcome, CallStatus, RunCommandOptions } from '../types.js';

const RUN_COMMAND_TOOL = 'run_command';

/** With `started`: the streams of a command that ran elsewhere, read back from its spool files. */
export async function runCommandCall(
  run: CallRecorder,
  command: string,
  options: RunCommandOptions,
  started?: RunningCommand,
): Promise<CallOutcome> {
  if (typeof command !== 'string' || command.length === 0)
    throw new EvidenceError('invalidArgument', 'command must be a non-empty string');
  const s = run.store;
  const cap = captureCap(options.captureCapBytes ?? s.captureCapBytes);
  const tool = options.tool ?? RUN_COMMAND_TOOL;
  const args: Record<string, unknown> = {
    command,
    cwd: options.cwd,
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
  };
  const call = await run.startCall(tool, args);
  const proc = started ?? startCommand(command, options);
  let needStore: string | undefined;
  let backend: string | undefined;
  const captureStream = async (
    name: 'stdout' | 'stderr',
    source: AsyncIterable<Uint8Array>,
  ): Promise<Captured | undefined> => {
    try {
      const tap = options.onOutput ? tapped(name, source, options.onOutput) : source;
      return await captureOutput(progressOf(s, run.runId, call.callId, name, tap), {
        store: s.blobs,
        key: { tenant: run.tenant, runId: run.runId, callId: `${call.callId}.${name}` },
        inlineMaxBytes: s.inlineAttachmentBytes,
        capBytes: cap,
        previewBytes: s.limits.previewBytes,
        scanErrors: s.errorLines,
        onNeedStore: () => {
          if (s.preservation !== 'required') return true;
          needStore ??= name;
          proc.kill();
          return false;
        },
      });
    } catch (e) {
      backend ??= backendMessage(e);
      proc.kill();
      return undefined;
    }
  };
  const [out, err, exit] = await Promise.all([
    captureStream('stdout', proc.stdout),
    captureStream('stderr', proc.stderr),
    proc.exit,
  ]);
  const value = canonicalJson({ aborted: exit.aborted, code: exit.code, signal: exit.signal, timedOut: exit.timedOut });
  const valueCapture = await captureOutput(once(encodeUtf8(value)), {
    key: { tenant: run.tenant, runId: run.runId, callId: `${call.callId}.value` },
    inlineMaxBytes: Number.MAX_SAFE_INTEGER,
    capBytes: Number.POSITIVE_INFINITY,
    previewBytes: s.limits.previewBytes,
  });
  const captures: { name: string; slot: string; c: Captured; contentType: string }[] = [];
  if (out) captures.push({ name: 'stdout', slot: 'stdout', c: out, contentType: ContentTypes.text });
  if (err) captures.push({ name: 'stderr', slot: 'stderr', c: err, contentType: ContentTypes.text });
  captures.push({ name: 'value', slot: 'value', c: valueCapture, contentType: ContentTypes.json });
  const missingFiles: string[] = [];
  if (!needStore && !backend && !exit.spawnFailed) {
    let n = 0;
    for (const rel of options.files ?? []) {
      const file = await captureFile(run, options.cwd, rel, `${call.callId}.f${n + 1}`, cap).catch((e: unknown) => {
        backend ??= backendMessage(e);
        return undefined;
      });
      if (file === undefined) {
        missingFiles.push(rel);
        continue;
      }
      n++;
      captures.push({ name: `file:${rel}`, slot: `f${n}`, c: file, contentType: ContentTypes.text });
    }
  }
  // docs/contracts.md §2.13.
  const failed = exit.spawnFailed || exit.timedOut || exit.aborted || exit.signal !== null || exit.code !== 0;
  const views = attachmentViews(s, captures, failed);
  const attachments = views.map((v) => v.attachment);
  let failure: { status: CallStatus; error: CallError } | undefined;
  let failureText: string | undefined;
  if (needStore) {
    failureText =
      `${needStore} needs a blob store and none is configured ` + `(preservation is required): the command was stopped`;
    failure = { status: 'failed', error: { code: 'blob_store_required', message: failureText } };
  } else if (backend) {
    failureText = `${backend}: the command was stopped; ${keptText(out, err)}`;
    failure = { status: 'failed', error: { code: 'backend', message: failureText } };
  } else if (exit.spawnFailed) {
    failureText = 'the command could not be started (is the working directory accessible?)';
    failure = { status: 'error', error: { code: 'spawn_failed', message: failureText } };
  } else if (exit.timedOut)
    failure = {
      status: 'error',
      error: { code: 'timeout', message: `the command timed out after ${options.timeoutMs} ms` },
    };
  else if (exit.aborted)
    failure = { status: 'error', error: { code: 'aborted', message: 'the command was cancelled' } };
  const summary = commandSummary(
    command,
    { ...exitFields(exit), timeoutMs: options.timeoutMs, failure: failureText },
    views,
    missingFiles,
  );
  return run.finishResult(call, tool, args, once(encodeUtf8(summary)), ContentTypes.text, {}, attachments, failure);
}

/** A stream whose store write failed kept nothing. */
function keptText(out: Captured | undefined, err: Captured | undefined): string {
  const one = (name: string, c: Captured | undefined): string =>
    c ? `${name} ${c.sizeBytes} bytes` : `${name} nothing`;
  return `kept: ${one('stdout', out)}, ${one('stderr', err)}`;
}

function attachmentViews(
  s: RunHost,
  captures: readonly { name: string; slot: string; c: Captured; contentType: string }[],
  failed: boolean,
): AttachmentView[] {
  const textTotal = captures.filter((x) => x.name !== 'value').reduce((n, x) => n + x.c.sizeBytes, 0);
  const allWhole = textTotal <= s.limits.largeResultBytes;
  return captures.map(({ name, slot, c, contentType }) => {
    const d = decideAttachmentStorage({
      sizeBytes: c.sizeBytes,
      inlineAttachmentBytes: s.inlineAttachmentBytes,
      hasBlobStore: s.blobs !== undefined,
      preservation: s.preservation,
    });
    const whole = decideAttachmentShownWhole({
      name,
      sizeBytes: c.sizeBytes,
      stored: c.stored,
      binary: c.binary,
      allFit: allWhole,
      previewBytes: s.limits.previewBytes,
    });
    const readable = c.stored !== 'preview_only' && d.readable !== false;
    const attachment: AttachmentRecord = {
      name,
      slot,
      handle: mintAttachmentHandle(),
      sizeBytes: c.sizeBytes,
      observedBytes: c.observedBytes,
      truncated: c.truncated,
      ...storedFields(c, contentType, whole, s.limits.previewBytes, readable, failed),
    };
    return { attachment, whole };
  });
}

/** Relative to cwd, inside it. */
async function captureFile(
  run: CallRecorder,
  cwd: string,
  rel: string,
  segment: string,
  cap: number,
): Promise<Captured | undefined> {
  if (typeof rel !== 'string' || rel.length === 0 || path.isAbsolute(rel) || rel.split(/[\\/]/).includes('..'))
    return undefined;
  const file = path.join(cwd, rel);
  const st = await fsp.lstat(file).catch(() => undefined);
  if (!st?.isFile()) return undefined;
  const s = run.store;
  return captureOutput(createReadStream(file), {
    store: s.blobs,
    key: { tenant: run.tenant, runId: run.runId, callId: segment },
    inlineMaxBytes: s.inlineAttachmentBytes,
    capBytes: cap,
    previewBytes: s.limits.previewBytes,
    scanErrors: s.errorLines,
  });
}

function exitFields(
  exit: CommandExit,
): Pick<CommandExit, 'code' | 'signal' | 'timedOut' | 'aborted' | 'strays' | 'pipesAbandoned'> {
  return {
    code: exit.code,
    signal: exit.signal,
    timedOut: exit.timedOut,
    aborted: exit.aborted,
    strays: exit.strays,
    pipesAbandoned: exit.pipesAbandoned,
  };
}

/** The inspector shows at most a few a second. */
export const captureProgressMs = 250;
export const captureTailBytes = 2048;

/**
 * docs/contracts.md §3.4, "Live". A counter and a clock per piece; the tail is copied only when a report is due and
 * someone listens.
 */
async function* progressOf(
  s: RunHost,
  runId: string,
  callId: string,
  stream: 'stdout' | 'stderr',
  source: AsyncIterable<Uint8Array>,
): AsyncGenerator<Uint8Array> {
  let bytes = 0;
  let last = 0;
  const recent: Uint8Array[] = [];
  let recentBytes = 0;
  for await (const chunk of source) {
    bytes += chunk.length;
    recent.push(chunk);
    recentBytes += chunk.length;
    while (recent.length > 1 && recentBytes - recent[0]!.length >= captureTailBytes)
      recentBytes -= recent.shift()!.length;
    const now = Date.now();
    if (now - last >= captureProgressMs && s.hasCaptureProgressListeners) {
      last = now;
      s.emitCaptureProgress({ runId, callId, stream, bytes, tail: tailOf(recent, recentBytes) });
    }
    yield chunk;
  }
}

function tailOf(pieces: readonly Uint8Array[], total: number): Uint8Array {
  const n = Math.min(total, captureTailBytes);
  const out = new Uint8Array(n);
  let at = n;
  for (let i = pieces.length - 1; i >= 0 && at > 0; i--) {
    const p = pieces[i]!;
    const take = Math.min(at, p.length);
    out.set(p.subarray(p.length - take), at - take);
    at -= take;
  }
  return out;
}

/** Awaited: a slow reader slows the command and memory stays bounded. */
async function* tapped(
  name: 'stdout' | 'stderr',
  source: AsyncIterable<Uint8Array>,
  onOutput: NonNullable<RunCommandOptions['onOutput']>,
): AsyncGenerator<Uint8Array> {
  for await (const chunk of source) {
    await onOutput(name, chunk);
    yield chunk;
  }
}
