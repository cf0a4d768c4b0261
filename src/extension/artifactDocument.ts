/**
 * Read-only documents for recorded outputs: `bounded-evidence:/<handle>/page-<k>.txt`.
 * A large output is never loaded whole: each page is one verified byte window of
 * `PAGE_BYTES` (text) or `BINARY_PAGE_BYTES` (shown as a hex dump), and starts with a
 * header that says exactly which bytes (and, when cheap, which lines) it shows, with
 * links to the previous and next pages. Page edges are moved forward to code-point
 * boundaries so that pages tile the output without cutting a character; a line may
 * continue on the next page (the header says where each page starts).
 */
import * as vscode from 'vscode';
import { ceilCodePointBoundary, countNewlines, type HandleSource, type RunStoreApi } from '../core/index.js';
import { Ids } from './ids.js';
import type { ServicesHost } from './services.js';

/** Bytes of text per page. */
export const PAGE_BYTES = 256 * 1024;
/** Bytes per page of a binary output (16 per hex-dump line). */
export const BINARY_PAGE_BYTES = 32 * 1024;
/** Header lines before the content (the last one is blank). */
export const HEADER_LINES = 3;
/** Line numbers are computed for pages starting within this many bytes (the count streams from 0). */
const LINE_COUNT_LIMIT_BYTES = 64 * 1024 * 1024;

/** The URI of one page of a handle's output (page 0 when omitted). */
export function handleDocumentUri(handle: string, page = 0): vscode.Uri {
  return vscode.Uri.from({ scheme: Ids.documentScheme, path: `/${handle}/page-${page}.txt` });
}

/** Parses a page URI: `{ handle, page }`, or undefined when it is not one. */
export function parseHandleDocumentUri(uri: vscode.Uri): { handle: string; page: number } | undefined {
  const m = /^\/([A-Za-z0-9._-]{1,256})\/page-(\d{1,12})\.txt$/.exec(uri.path);
  if (uri.scheme !== Ids.documentScheme || !m) return undefined;
  return { handle: m[1]!, page: Number(m[2]) };
}

/** Bytes per page for this source. */
function pageSize(src: HandleSource): number {
  return src.binary ? BINARY_PAGE_BYTES : PAGE_BYTES;
}

/** Number of pages (at least one, for an empty output). */
export function pageCount(src: HandleSource): number {
  return Math.max(1, Math.ceil(src.byteCount / pageSize(src)));
}

/** Absolute start of page `k`: `k * size`, moved forward to a code-point boundary for text. */
async function pageStart(src: HandleSource, k: number): Promise<number> {
  const nominal = Math.min(src.byteCount, k * pageSize(src));
  if (src.binary || nominal === 0 || nominal >= src.byteCount) return nominal;
  const probe = await src.readRange(nominal, Math.min(src.byteCount, nominal + 4));
  return nominal + ceilCodePointBoundary(probe, 0);
}

/** Newlines in `[0, end)`, streamed; undefined past `LINE_COUNT_LIMIT_BYTES` (not worth the wait). */
async function newlinesBefore(src: HandleSource, end: number): Promise<number | undefined> {
  if (end > LINE_COUNT_LIMIT_BYTES) return undefined;
  let n = 0;
  if (end > 0) for await (const chunk of src.stream(0, end)) n += countNewlines(chunk);
  return n;
}

function hexDump(bytes: Uint8Array, base: number): string {
  const lines: string[] = [];
  for (let i = 0; i < bytes.length; i += 16) {
    const row = bytes.subarray(i, i + 16);
    const hex = [...row].map((b) => b.toString(16).padStart(2, '0')).join(' ').padEnd(47, ' ');
    const ascii = [...row].map((b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '.')).join('');
    lines.push(`${(base + i).toString(16).padStart(10, '0')}  ${hex}  ${ascii}`);
  }
  return lines.join('\n');
}

/** Renders page `k` of a handle's output: header, then the page's bytes. */
export async function renderPage(src: HandleSource, k: number): Promise<string> {
  const pages = pageCount(src);
  if (!Number.isSafeInteger(k) || k < 0 || k >= pages) return `bounded-evidence: ${src.handle} has ${pages} page(s); page ${k} does not exist.`;
  const start = await pageStart(src, k);
  const end = k + 1 >= pages ? src.byteCount : await pageStart(src, k + 1);
  const bytes = end > start ? await src.readRange(start, end) : new Uint8Array(0);
  let lines = '';
  if (!src.binary) {
    const first = await newlinesBefore(src, start);
    if (first !== undefined) lines = ` · lines ${first + 1}–${first + Math.max(1, countNewlines(bytes) + (bytes.length > 0 && bytes[bytes.length - 1] !== 10 ? 1 : 0))} of ${src.lineCount}`;
  }
  const nav = [
    k > 0 ? `previous: ${handleDocumentUri(src.handle, k - 1).toString()}` : 'first page',
    k + 1 < pages ? `next: ${handleDocumentUri(src.handle, k + 1).toString()}` : 'last page',
  ].join(' · ');
  const header = [
    `── ${src.handle} (${src.name}) · page ${k + 1} of ${pages} · bytes [${start}, ${end}) of ${src.byteCount}${lines} · sha256 ${src.sha256}${src.binary ? ' · binary, shown as hex' : ''}`,
    `── ${nav} · every byte below was verified against the recorded digests`,
    '',
  ].join('\n');
  const body = src.binary ? hexDump(bytes, start) : new TextDecoder('utf-8', { fatal: false, ignoreBOM: true }).decode(bytes);
  return `${header}\n${body}`;
}

/** Where an output position is shown: page and document position. */
export interface PagePosition {
  readonly page: number;
  readonly line: number;
  readonly character: number;
}

/**
 * The page and document position of an output line (0-based) or byte offset. A line is
 * found by streaming newlines from the start (bounded memory; O(position)).
 */
export async function locate(src: HandleSource, at: { line?: number; byteOffset?: number }): Promise<PagePosition> {
  let offset = 0;
  if (typeof at.byteOffset === 'number' && Number.isSafeInteger(at.byteOffset)) {
    offset = Math.max(0, Math.min(at.byteOffset, src.byteCount));
  } else if (typeof at.line === 'number' && Number.isSafeInteger(at.line) && at.line > 0 && !src.binary) {
    let seen = 0;
    let pos = 0;
    outer: for await (const chunk of src.stream(0, src.byteCount)) {
      for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) {
        if (++seen === at.line) { offset = pos + i + 1; break outer; }
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
  if (offset < start && page > 0) start = await pageStart(src, --page);
  const before = offset > start ? await src.readRange(start, offset) : new Uint8Array(0);
  const text = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true }).decode(before);
  const lastBreak = text.lastIndexOf('\n');
  return { page, line: HEADER_LINES + countNewlines(before), character: text.length - (lastBreak + 1) };
}

/** Serves the pages; the handle resolves through the current run store (foreign handles are refused). */
export class ArtifactDocumentProvider implements vscode.TextDocumentContentProvider, vscode.DocumentLinkProvider {
  constructor(private readonly runs: () => Promise<RunStoreApi>) {}

  /** The page's text, or one line saying why there is none (never a host path). */
  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const parsed = parseHandleDocumentUri(uri);
    if (!parsed) return 'bounded-evidence: not a page address (expected bounded-evidence:/<handle>/page-<n>.txt)';
    try {
      return await renderPage(await (await this.runs()).openHandle(parsed.handle), parsed.page);
    } catch (e) {
      return `bounded-evidence: ${parsed.handle}: ${e instanceof Error && e.name === 'EvidenceError' ? e.message : 'the output could not be read'}`;
    }
  }

  /** Makes the header's previous/next addresses clickable. */
  provideDocumentLinks(document: vscode.TextDocument): vscode.DocumentLink[] {
    const links: vscode.DocumentLink[] = [];
    for (let l = 0; l < Math.min(HEADER_LINES, document.lineCount); l++) {
      const text = document.lineAt(l).text;
      for (const m of text.matchAll(/bounded-evidence:\/[A-Za-z0-9._-]+\/page-\d+\.txt/g)) {
        links.push(new vscode.DocumentLink(new vscode.Range(l, m.index, l, m.index + m[0].length), vscode.Uri.parse(m[0])));
      }
    }
    return links;
  }
}

/** Registers the provider for the `bounded-evidence:` scheme. */
export function registerArtifactDocuments(context: vscode.ExtensionContext, host: ServicesHost): void {
  const provider = new ArtifactDocumentProvider(async () => (await host.get()).runs);
  context.subscriptions.push(
    vscode.workspace.registerTextDocumentContentProvider(Ids.documentScheme, provider),
    vscode.languages.registerDocumentLinkProvider({ scheme: Ids.documentScheme }, provider),
  );
}
