/**
 * Read-only pages of recorded outputs, named by the lines they show as the log counts them (a name whose claim does
 * not hold is refused). Each page is one verified window, so a large output is never loaded whole; page starts snap
 * to the next line, so a log line maps to one page and one document line.
 */
import * as vscode from 'vscode';
// Binary pages are the reader's hex dump, as the model and the panel show them.
import {
  ceilCodePointBoundary,
  countNewlines,
  hexDump,
  type HandleSource,
  type RunStoreApi,
} from '../../core/index.js';
import { Ids } from '../ids.js';
import { HEADER_LINES, OutputGutter } from './outputGutter.js';
import type { ServicesHost } from '../services.js';

const PAGE_BYTES = 256 * 1024;
/** 16 per hex-dump line. */
const BINARY_PAGE_BYTES = 32 * 1024;
/** The count streams from 0. */
const LINE_COUNT_LIMIT_BYTES = 64 * 1024 * 1024;
const LINE_SNAP_BYTES = 16 * 1024;

/** For callers that have not read the output. */
export function handleDocumentUri(handle: string, page = 0): vscode.Uri {
  return vscode.Uri.from({ scheme: Ids.documentScheme, path: `/${handle}/page-${page + 1}.txt` });
}

export interface ParsedPageUri {
  readonly handle: string;
  readonly page: number;
  readonly name?: string;
}

export function parseHandleDocumentUri(uri: vscode.Uri): ParsedPageUri | undefined {
  if (uri.scheme !== Ids.documentScheme) return undefined;
  const short = /^\/([A-Za-z0-9._-]{1,256})\/page-([1-9]\d{0,11})\.txt$/.exec(uri.path);
  if (short) return { handle: short[1]!, page: Number(short[2]) - 1 };
  const named = new RegExp(
    String.raw`^\/([A-Za-z0-9._-]{1,256})\/\1 ((?:lines|bytes) \d{1,15}–\d{1,15}) ` +
      String.raw`\(page ([1-9]\d{0,11}) of [1-9]\d{0,11}\)\.txt$`,
  ).exec(uri.path);
  if (named)
    return {
      handle: named[1]!,
      page: Number(named[3]) - 1,
      name: uri.path.slice(1 + named[1]!.length + 1, -'.txt'.length),
    };
  return undefined;
}

function pageSize(src: HandleSource): number {
  return src.binary ? BINARY_PAGE_BYTES : PAGE_BYTES;
}

function pageCount(src: HandleSource): number {
  return Math.max(1, Math.ceil(src.byteCount / pageSize(src)));
}

/** A newline is never inside a multi-byte character, so a line start is a character boundary too. */
async function pageStart(src: HandleSource, k: number): Promise<number> {
  const nominal = Math.min(src.byteCount, k * pageSize(src));
  if (src.binary || nominal === 0 || nominal >= src.byteCount) return nominal;
  // One byte before the edge tells whether a line already starts exactly there.
  const probe = await src.readRange(nominal - 1, Math.min(src.byteCount, nominal + LINE_SNAP_BYTES));
  if (probe[0] === 10) return nominal;
  const nl = probe.indexOf(10, 1);
  if (nl >= 0) return nominal - 1 + nl + 1;
  return nominal + ceilCodePointBoundary(probe.subarray(1, 5), 0);
}

async function newlinesBefore(src: HandleSource, end: number): Promise<number | undefined> {
  if (end > LINE_COUNT_LIMIT_BYTES) return undefined;
  let n = 0;
  if (end > 0) for await (const chunk of src.stream(0, end)) n += countNewlines(chunk);
  return n;
}

interface PageFacts {
  readonly start: number;
  readonly end: number;
  readonly bytes: Uint8Array;
  readonly before?: number;
  readonly firstLine?: number;
  readonly lastLine?: number;
}

async function pageFacts(src: HandleSource, k: number, before?: number): Promise<PageFacts> {
  const pages = pageCount(src);
  const start = await pageStart(src, k);
  const end = k + 1 >= pages ? src.byteCount : await pageStart(src, k + 1);
  const bytes = end > start ? await src.readRange(start, end) : new Uint8Array(0);
  const nb = src.binary ? undefined : (before ?? (await newlinesBefore(src, start)));
  if (nb === undefined || bytes.length === 0) return { start, end, bytes, ...(nb !== undefined ? { before: nb } : {}) };
  const last = nb + Math.max(1, countNewlines(bytes) + (bytes[bytes.length - 1] !== 10 ? 1 : 0));
  return { start, end, bytes, before: nb, firstLine: nb + 1, lastLine: last };
}

function pageName(src: HandleSource, k: number, f: PageFacts): string {
  const what =
    f.firstLine !== undefined && f.lastLine !== undefined
      ? `lines ${f.firstLine}–${f.lastLine}`
      : `bytes ${f.start}–${f.end}`;
  return `${src.handle} ${what} (page ${k + 1} of ${pageCount(src)})`;
}

function namedUri(src: HandleSource, k: number, f: PageFacts): vscode.Uri {
  return vscode.Uri.from({ scheme: Ids.documentScheme, path: `/${src.handle}/${pageName(src, k, f)}.txt` });
}

export async function pageUri(src: HandleSource, k: number): Promise<vscode.Uri> {
  return namedUri(src, k, await pageFacts(src, k));
}

/** `name` is the URI's claim, which must hold. */
async function renderPage(src: HandleSource, k: number, name?: string): Promise<string> {
  const pages = pageCount(src);
  if (!Number.isSafeInteger(k) || k < 0 || k >= pages)
    return `bounded-evidence: ${src.handle} has ${pages} page(s); page ${k} does not exist.`;
  const f = await pageFacts(src, k);
  const { start, end, bytes } = f;
  // So the tab and the header always agree.
  if (name !== undefined && name !== pageName(src, k, f))
    return `bounded-evidence: this page is named "${pageName(src, k, f)}", not "${name}".`;
  const lines = f.firstLine !== undefined ? ` · lines ${f.firstLine}–${f.lastLine} of ${src.lineCount}` : '';
  // Neighbours' line numbers follow from this page's: no second count from the start.
  const prev =
    k > 0
      ? await pageFacts(
          src,
          k - 1,
          f.before !== undefined && k - 1 >= 0
            ? f.before - countNewlines(await src.readRange(await pageStart(src, k - 1), start))
            : undefined,
        )
      : undefined;
  const next =
    k + 1 < pages
      ? await pageFacts(src, k + 1, f.before !== undefined ? f.before + countNewlines(bytes) : undefined)
      : undefined;
  const nav = [
    prev ? `previous: ${namedUri(src, k - 1, prev).toString()}` : 'first page',
    next ? `next: ${namedUri(src, k + 1, next).toString()}` : 'last page',
  ].join(' · ');
  const header = [
    `── ${src.handle} (${src.name}) · page ${k + 1} of ${pages} · bytes ` +
      `[${start}, ${end}) of ${src.byteCount}${lines} · ` +
      `sha256 ${src.sha256}${src.binary ? ' · binary, shown as hex' : ''}`,
    `── ${nav} · every byte below was verified against the recorded digests`,
    '',
  ].join('\n');
  const body = src.binary
    ? hexDump(bytes, start)
    : new TextDecoder('utf-8', { fatal: false, ignoreBOM: true }).decode(bytes);
  return `${header}\n${body}`;
}

export interface PagePosition {
  readonly page: number;
  readonly line: number;
  readonly character: number;
}

/** Streams newlines from the start: bounded memory, O(position). */
export async function locate(src: HandleSource, at: { line?: number; byteOffset?: number }): Promise<PagePosition> {
  let offset = 0;
  if (typeof at.byteOffset === 'number' && Number.isSafeInteger(at.byteOffset)) {
    offset = Math.max(0, Math.min(at.byteOffset, src.byteCount));
  } else if (typeof at.line === 'number' && Number.isSafeInteger(at.line) && at.line > 0 && !src.binary) {
    let seen = 0;
    let pos = 0;
    outer: for await (const chunk of src.stream(0, src.byteCount)) {
      for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) {
        if (++seen === at.line) {
          offset = pos + i + 1;
          break outer;
        }
      }
      pos += chunk.length;
      offset = pos;
    }
  }
  if (src.binary) {
    const page = Math.min(pageCount(src) - 1, Math.floor(offset / BINARY_PAGE_BYTES));
    return { page, line: HEADER_LINES + Math.floor((offset - page * BINARY_PAGE_BYTES) / 16), character: 0 };
  }
  let page = Math.min(pageCount(src) - 1, Math.floor(offset / PAGE_BYTES));
  let start = await pageStart(src, page);
  // A start moved forward may lie past the offset: then it is on the page before.
  if (offset < start && page > 0) start = await pageStart(src, --page);
  const before = offset > start ? await src.readRange(start, offset) : new Uint8Array(0);
  const text = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true }).decode(before);
  const lastBreak = text.lastIndexOf('\n');
  return { page, line: HEADER_LINES + countNewlines(before), character: text.length - (lastBreak + 1) };
}

/** Foreign handles are refused. */
class ArtifactDocumentProvider implements vscode.TextDocumentContentProvider, vscode.DocumentLinkProvider {
  constructor(private readonly runs: () => Promise<RunStoreApi>) {}

  /** Never a host path. */
  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const parsed = parseHandleDocumentUri(uri);
    if (!parsed) return 'bounded-evidence: not a page address (expected bounded-evidence:/<handle>/page-<n>.txt)';
    try {
      return await renderPage(await (await this.runs()).openHandle(parsed.handle), parsed.page, parsed.name);
    } catch (e) {
      return (
        `bounded-evidence: ${parsed.handle}: ` +
        `${e instanceof Error && e.name === 'EvidenceError' ? e.message : 'the output could not be read'}`
      );
    }
  }

  provideDocumentLinks(document: vscode.TextDocument): vscode.DocumentLink[] {
    const links: vscode.DocumentLink[] = [];
    for (let l = 0; l < Math.min(HEADER_LINES, document.lineCount); l++) {
      const text = document.lineAt(l).text;
      for (const m of text.matchAll(
        new RegExp(
          String.raw`bounded-evidence:\/[A-Za-z0-9._-]+\/(?:page-\d+|[A-Za-z0-9._-]+%20(?:lines|bytes)%20` +
            String.raw`\d+%E2%80%93\d+%20%28page%20\d+%20of%20\d+%29)\.txt`,
          'g',
        ),
      )) {
        links.push(
          new vscode.DocumentLink(new vscode.Range(l, m.index, l, m.index + m[0].length), vscode.Uri.parse(m[0])),
        );
      }
    }
    return links;
  }
}

const goToOutputLineCommand = Ids.commands.goToOutputLine;

/** 1-based output lines, as a log or the inspector counts them. */
async function goToOutputLine(host: ServicesHost, arg: unknown): Promise<void> {
  const a = (typeof arg === 'object' && arg !== null ? arg : {}) as { handle?: unknown; line?: unknown };
  const active = vscode.window.activeTextEditor
    ? parseHandleDocumentUri(vscode.window.activeTextEditor.document.uri)
    : undefined;
  const handle = typeof a.handle === 'string' ? a.handle : active?.handle;
  if (!handle) {
    void vscode.window.showInformationMessage(
      'Bounded Evidence: open an output in the editor first (Open Artifact in ' +
        'Editor, or Open in editor in the inspector).',
    );
    return;
  }
  const src = await (await host.get()).reads.openHandle(handle);
  const last = Math.max(1, src.lineCount);
  let line = typeof a.line === 'number' && Number.isSafeInteger(a.line) ? a.line : undefined;
  if (line === undefined) {
    const typed = await vscode.window.showInputBox({
      title: `Go to Output Line of ${handle}`,
      prompt: `A line of the output, 1 to ${last.toLocaleString('en-US')}`,
      validateInput: (v) =>
        /^\d+$/.test(v.trim().replace(/[,_]/g, '')) &&
        Number(v.trim().replace(/[,_]/g, '')) >= 1 &&
        Number(v.trim().replace(/[,_]/g, '')) <= last
          ? undefined
          : `a whole number from 1 to ${last}`,
    });
    if (typed === undefined) return;
    line = Number(typed.trim().replace(/[,_]/g, ''));
  }
  if (line < 1 || line > last) {
    void vscode.window.showErrorMessage(
      `Bounded Evidence: ${handle} has ${last} line(s); line ${line} does not exist.`,
    );
    return;
  }
  await vscode.commands.executeCommand(Ids.commands.openArtifact, { handle, line: line - 1 });
}

/** Not in the palette; the integration suite asks it. */
const outputLineNumbersCommand = Ids.commands.outputLineNumbers;

export function registerArtifactDocuments(context: vscode.ExtensionContext, host: ServicesHost): void {
  const provider = new ArtifactDocumentProvider(async () => (await host.get()).reads);
  const gutter = new OutputGutter(goToOutputLineCommand);
  context.subscriptions.push(
    gutter,
    vscode.commands.registerCommand(outputLineNumbersCommand, () => {
      const e = vscode.window.activeTextEditor;
      return e
        ? {
            uri: e.document.uri.toString(),
            languageId: e.document.languageId,
            lineNumbers: e.options.lineNumbers,
            lines: gutter.linesOf(e),
            lastDrawMs: gutter.lastDrawMs,
          }
        : undefined;
    }),
    vscode.workspace.registerTextDocumentContentProvider(Ids.documentScheme, provider),
    vscode.languages.registerDocumentLinkProvider({ scheme: Ids.documentScheme }, provider),
    vscode.commands.registerCommand(goToOutputLineCommand, (arg?: unknown) => goToOutputLine(host, arg)),
  );
}
