/**
 * Compare (docs/contracts.md §3.4): the diff editor on two windows holding exactly their bytes, so an output of any
 * size is diffed by window. The provider resolves the handle through the current store, refusing a forged one.
 */
import * as vscode from 'vscode';
import { EvidenceError, hexDump, type HandleSource, type RunStoreApi } from '../../core/index.js';
import { pickHandle } from '../commands/artifactCommands.js';
import type { CommandDeps } from '../commands/deps.js';
import { Ids } from '../ids.js';
import { formatBytes } from '../../shared/bytes.js';
import { windowProblem, type ExcerptWindow } from './outputWindow.js';
import { lineRange, parseWindowText } from './saveExcerpt.js';

/** The diff editor holds both in memory. */
const COMPARE_MAX_BYTES = 1024 * 1024;
const DEFAULT_WINDOW_BYTES = 256 * 1024;

interface ComparedSide {
  readonly handle: string;
  readonly start: number;
  readonly end: number;
  readonly label: string;
  readonly uri: string;
}

function windowUri(handle: string, start: number, end: number): vscode.Uri {
  return vscode.Uri.from({ scheme: Ids.windowScheme, path: `/${handle}/bytes-${start}-${end}.txt` });
}

function parseWindowUri(uri: vscode.Uri): { handle: string; start: number; end: number } | undefined {
  const m =
    uri.scheme === Ids.windowScheme
      ? /^\/([A-Za-z0-9._-]{1,256})\/bytes-(\d{1,15})-(\d{1,15})\.txt$/.exec(uri.path)
      : null;
  return m ? { handle: m[1]!, start: Number(m[2]), end: Number(m[3]) } : undefined;
}

/** Decoded like an editor page, nothing added. */
async function renderWindow(src: HandleSource, start: number, end: number): Promise<string> {
  // Size first (docs/contracts.md §1.3's order), then the window against the output.
  if (end - start > COMPARE_MAX_BYTES)
    throw new EvidenceError(
      'invalidArgument',
      `a compared window may hold at most ${formatBytes(COMPARE_MAX_BYTES)}; choose a smaller range`,
    );
  const problem = windowProblem(src, { bytes: { start, end } }, true);
  if (problem) throw new EvidenceError('invalidArgument', problem);
  const bytes = end > start ? await src.readRange(start, end) : new Uint8Array(0);
  return src.binary ? hexDump(bytes, start) : new TextDecoder('utf-8', { fatal: false, ignoreBOM: true }).decode(bytes);
}

class WindowDocumentProvider implements vscode.TextDocumentContentProvider {
  constructor(private readonly runs: () => Promise<RunStoreApi>) {}

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const w = parseWindowUri(uri);
    if (!w)
      return (
        'bounded-evidence: not a window address (expected ' +
        'bounded-evidence-window:/<handle>/bytes-<start>-<end>.txt)'
      );
    try {
      return await renderWindow(await (await this.runs()).openHandle(w.handle), w.start, w.end);
    } catch (e) {
      return (
        `bounded-evidence: ${w.handle}: ` + `${e instanceof EvidenceError ? e.message : 'the output could not be read'}`
      );
    }
  }
}

type SideArg = string | { readonly handle?: unknown; readonly bytes?: unknown; readonly lines?: unknown };

/** Throws a sentence when malformed. */
function windowOfArg(a: SideArg): ExcerptWindow | undefined {
  if (typeof a === 'string') return undefined;
  const b = a.bytes as { start?: unknown; end?: unknown } | undefined;
  const l = a.lines as { first?: unknown; last?: unknown } | undefined;
  if (a.bytes !== undefined && a.lines !== undefined)
    throw new EvidenceError('invalidArgument', 'give bytes or lines for a side, not both');
  if (a.bytes !== undefined) {
    if (typeof b?.start !== 'number' || typeof b.end !== 'number')
      throw new EvidenceError('invalidArgument', 'bytes must be {start, end}');
    return { bytes: { start: b.start, end: b.end } };
  }
  if (a.lines !== undefined) {
    if (typeof l?.first !== 'number' || typeof l.last !== 'number')
      throw new EvidenceError('invalidArgument', 'lines must be {first, last} (1-based)');
    return { lines: { first: l.first, last: l.last } };
  }
  return undefined;
}

async function resolveSide(src: HandleSource, w: ExcerptWindow | undefined): Promise<ComparedSide> {
  const handle = src.handle;
  const window = w ?? { bytes: { start: 0, end: Math.min(src.byteCount, DEFAULT_WINDOW_BYTES) } };
  const problem = windowProblem(src, window, true);
  if (problem) throw new EvidenceError('invalidArgument', problem);
  const { start, end } = 'bytes' in window ? window.bytes : await lineRange(src, window.lines.first, window.lines.last);
  if (end - start > COMPARE_MAX_BYTES)
    throw new EvidenceError(
      'invalidArgument',
      `${handle}: a compared window may hold at ` +
        `most ${formatBytes(COMPARE_MAX_BYTES)} (this one ` +
        `is ${formatBytes(end - start)}); choose a smaller range`,
    );
  const label =
    'lines' in window
      ? window.lines.first === window.lines.last
        ? `line ${window.lines.first}`
        : `lines ${window.lines.first}–${window.lines.last}`
      : `bytes ${start}–${end}`;
  return { handle: src.handle, start, end, label, uri: windowUri(src.handle, start, end).toString() };
}

async function askWindow(src: HandleSource, which: string, suggested?: string): Promise<ExcerptWindow | undefined> {
  const handle = src.handle;
  const first =
    src.binary || src.lineCount === 0
      ? `bytes 0-${Math.min(src.byteCount, DEFAULT_WINDOW_BYTES)}`
      : `lines 1-${Math.min(src.lineCount, 1000)}`;
  const typed = await vscode.window.showInputBox({
    title: `Compare: the ${which} window, of ${handle}`,
    ignoreFocusOut: true,
    value: suggested ?? first,
    prompt:
      `Lines (e.g. "lines 30001-33187", ` +
      `of ${src.lineCount.toLocaleString('en-US')}) or bytes (e.g. "bytes 0-4096", ` +
      `of ${src.byteCount.toLocaleString('en-US')}); at ` +
      `most ${formatBytes(COMPARE_MAX_BYTES)}`,
    validateInput: (v) => {
      const w = parseWindowText(v);
      return !w ? 'lines FIRST-LAST or bytes START-END' : windowProblem(src, w, true);
    },
  });
  return typed === undefined ? undefined : parseWindowText(typed);
}

export interface ComparedWindows {
  readonly left: ComparedSide;
  readonly right: ComparedSide;
}

/**
 * Sides given as arguments open at once; otherwise each side's window is asked for. Anything wrong is one error
 * message.
 */
export async function compareWindows(
  deps: CommandDeps,
  arg: { left?: unknown; right?: unknown } | undefined,
  handles?: readonly string[],
): Promise<ComparedWindows | undefined> {
  const services = await deps.host.get();
  const store = services.reads;
  let sides: [ComparedSide, ComparedSide];
  try {
    if (
      arg &&
      (typeof arg.left === 'string' || typeof arg.left === 'object') &&
      (typeof arg.right === 'string' || typeof arg.right === 'object') &&
      arg.left &&
      arg.right
    ) {
      const [l, r] = [arg.left as SideArg, arg.right as SideArg];
      const handleOf = (s: SideArg): string => {
        const h = typeof s === 'string' ? s : s.handle;
        if (typeof h !== 'string' || h.length === 0 || h.length > 256)
          throw new EvidenceError('invalidArgument', 'each side names a handle');
        return h;
      };
      sides = [
        await resolveSide(await store.openHandle(handleOf(l)), windowOfArg(l)),
        await resolveSide(await store.openHandle(handleOf(r)), windowOfArg(r)),
      ];
    } else {
      const pair = handles?.length === 2 ? [...handles] : [];
      if (pair.length === 0) {
        const a = await pickHandle(services, 'Compare: the left output');
        const b = a ? await pickHandle(services, 'Compare: the right output') : undefined;
        if (!a || !b) return undefined;
        pair.push(a, b);
      }
      // Each output opened once.
      const ls = await store.openHandle(pair[0]!);
      const lw = await askWindow(ls, 'left');
      if (!lw) return undefined;
      const rs = await store.openHandle(pair[1]!);
      const rw = await askWindow(
        rs,
        'right',
        'lines' in lw ? `lines ${lw.lines.first}-${lw.lines.last}` : `bytes ${lw.bytes.start}-${lw.bytes.end}`,
      );
      if (!rw) return undefined;
      sides = [await resolveSide(ls, lw), await resolveSide(rs, rw)];
    }
  } catch (e) {
    if (!(e instanceof EvidenceError)) deps.log.error('compare', e);
    void vscode.window.showErrorMessage(
      `Bounded Evidence: nothing to compare: ${e instanceof Error ? e.message : String(e)}.`,
    );
    return undefined;
  }
  const [left, right] = sides;
  // The diff opens beside the panel, so the panel stays on screen.
  const beside = arg && (arg as { beside?: unknown }).beside === true;
  await vscode.commands.executeCommand(
    'vscode.diff',
    vscode.Uri.parse(left.uri),
    vscode.Uri.parse(right.uri),
    `${left.handle} ${left.label} ↔ ${right.handle} ${right.label}`,
    { preview: true, ...(beside ? { viewColumn: vscode.ViewColumn.Beside } : {}) },
  );
  return { left, right };
}

export function registerCompareWindows(context: vscode.ExtensionContext, deps: CommandDeps): void {
  context.subscriptions.push(
    vscode.workspace.registerTextDocumentContentProvider(
      Ids.windowScheme,
      new WindowDocumentProvider(async () => (await deps.host.get()).reads),
    ),
  );
}
