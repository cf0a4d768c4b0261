/**
 * Links both ways (docs/contracts.md §3.4, "Links"). Out of an output, `path:line` opens a source file only when it
 * resolves inside a workspace folder, as a plain file URI, never a command. Into the evidence, a handle or range
 * opens the inspector through the URI handler or `openEvidenceLink`, the only command our chat answers trust; every
 * parameter is validated and a forged handle opens nothing.
 */
import { realpath, stat } from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  EvidenceError,
  EvidenceToolNames,
  parseRangePath,
  type HandleSource,
  type RunStoreApi,
} from '../../core/index.js';
import { Ids, type InspectorTarget } from '../ids.js';
import type { ExcerptRangeDto } from '../../shared/protocol.js';
import type { Log } from '../log.js';
import {
  HANDLE,
  POSITIVE,
  linkParams,
  linkTextParams,
  parseEvidenceLink,
  pastedLinkParams,
  type EvidenceLinkArgs,
} from './linkText.js';
import { linkedWindow } from '../documents/outputWindow.js';
import type { ServicesHost } from '../services.js';

const openEvidenceLinkCommand = Ids.commands.openEvidenceLink;

// ------------------------------------------------------------------ source links out of outputs

/** 1-based. */
interface SourceRef {
  readonly index: number;
  readonly length: number;
  readonly path: string;
  readonly line: number;
  readonly column?: number;
}

/** The path holds at least one letter and is not preceded by one, so `a.ts` inside `xa.ts` is not cut. */
const SOURCE_REF = new RegExp(
  String.raw`(?<![\w./@+~-])((?:\.\/|\/)?[\w.@+~-]*[A-Za-z][\w.@+~-]*(?:\/[\w.@+~-]+)*)` +
    String.raw`(?::(\d{1,9})(?::(\d{1,9}))?|\((\d{1,9}),(\d{1,9})\))`,
  'g',
);
/** A page is 256 KiB; beyond this the rest stays text. */
const MAX_LINKS_PER_PAGE = 2000;
const MAX_PATHS_PER_PAGE = 500;

function findSourceRefs(text: string): SourceRef[] {
  const out: SourceRef[] = [];
  for (const m of text.matchAll(SOURCE_REF)) {
    const line = Number(m[2] ?? m[4]);
    const column = m[3] ?? m[5];
    if (line < 1) continue;
    out.push({
      index: m.index,
      length: m[0].length,
      path: m[1]!,
      line,
      ...(column !== undefined && Number(column) >= 1 ? { column: Number(column) } : {}),
    });
  }
  return out;
}

function inside(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** A `..` segment, a path outside every folder or a link leading out is refused. */
async function resolveSourcePath(folders: readonly string[], p: string): Promise<string | undefined> {
  if (p.split('/').includes('..')) return undefined;
  for (const folder of folders) {
    const candidate = path.isAbsolute(p) ? path.normalize(p) : path.resolve(folder, p);
    if (!inside(folder, candidate)) continue;
    try {
      const [real, realFolder] = await Promise.all([realpath(candidate), realpath(folder)]);
      if (inside(realFolder, real) && (await stat(real)).isFile()) return real;
    } catch {
      // Not there (or unreadable): try the next folder.
    }
  }
  return undefined;
}

/** VS Code's opener reads `#L<line>,<col>`. */
function sourceTarget(file: string, ref: SourceRef): vscode.Uri {
  return vscode.Uri.file(file).with({ fragment: `L${ref.line}${ref.column !== undefined ? `,${ref.column}` : ''}` });
}

class SourceLinkProvider implements vscode.DocumentLinkProvider {
  constructor(private readonly folders: () => readonly string[]) {}

  async provideDocumentLinks(
    document: vscode.TextDocument,
    token: vscode.CancellationToken,
  ): Promise<vscode.DocumentLink[]> {
    const folders = this.folders();
    if (folders.length === 0) return [];
    const resolved = new Map<string, Promise<string | undefined>>();
    const links: vscode.DocumentLink[] = [];
    // The header (first three lines) names pages, not sources.
    for (let l = 3; l < document.lineCount && links.length < MAX_LINKS_PER_PAGE; l++) {
      if (token.isCancellationRequested) return [];
      for (const ref of findSourceRefs(document.lineAt(l).text)) {
        let file = resolved.get(ref.path);
        if (!file) {
          if (resolved.size >= MAX_PATHS_PER_PAGE) continue;
          file = resolveSourcePath(folders, ref.path);
          resolved.set(ref.path, file);
        }
        const real = await file;
        if (!real) continue;
        const link = new vscode.DocumentLink(
          new vscode.Range(l, ref.index, l, ref.index + ref.length),
          sourceTarget(real, ref),
        );
        link.tooltip = `Open ${vscode.workspace.asRelativePath(real)} at line ${ref.line}`;
        links.push(link);
        if (links.length >= MAX_LINKS_PER_PAGE) break;
      }
    }
    return links;
  }
}

// ------------------------------------------------------------------ links into the evidence

function linkQuery(args: EvidenceLinkArgs & { readonly path?: string }): string {
  const q = new URLSearchParams();
  if (args.handle) q.set('handle', args.handle);
  if (args.path) q.set('path', args.path);
  const w = args.window;
  if (w && 'line' in w)
    q.set('line', w.endLine !== undefined && w.endLine !== w.line ? `${w.line}-${w.endLine}` : String(w.line));
  else if (w && !args.path) q.set('bytes', `${w.start}-${w.end}`);
  return q.toString();
}

/** Trusted only where we render it, for that command alone. */
function evidenceCommandLink(args: EvidenceLinkArgs & { readonly path?: string }): string {
  const params = Object.fromEntries(new URLSearchParams(linkQuery(args)));
  return `command:${openEvidenceLinkCommand}?${encodeURIComponent(JSON.stringify([params]))}`;
}

/** Newest first. */
async function handleOfArtifact(runs: RunStoreApi, artifactId: string): Promise<string | undefined> {
  const sha = artifactId.slice('artifact-'.length);
  for (let offset = 0; ; offset += 1000) {
    const page = await runs.queryCalls({ offset, limit: 1000, tool: EvidenceToolNames.readFile, outcome: 'ok' });
    const hit = page.rows.find((c) => c.sha256 === sha && c.handle);
    if (hit) return hit.handle;
    if (offset + 1000 >= page.total) return undefined;
  }
}

export interface OpenedLink {
  readonly handle: string;
  readonly window?: ExcerptRangeDto;
}

/**
 * docs/contracts.md §3.4, "Links". Takes the parameters, a whole link in either form, the URI handler's Uri, or
 * nothing (then it asks for a pasted link). Anything wrong is one error message and nothing opens.
 */
async function openEvidenceLink(host: ServicesHost, log: Log, raw: unknown): Promise<OpenedLink | undefined> {
  let args: EvidenceLinkArgs;
  try {
    let given: Record<string, unknown>;
    if (raw instanceof vscode.Uri) {
      // The URI handler: the parts as the editor decoded them.
      given = linkParams(raw, vscode.env.uriScheme);
    } else if (raw === undefined) {
      // A browser workbench's callback address works only while the window that copied it is open; a pasted link
      // always works.
      const typed = await vscode.window.showInputBox({
        title: 'Open Evidence Link',
        ignoreFocusOut: true,
        prompt:
          'A link from an excerpt (…/open?handle=… or …/callback?vscode-…), a handle ' +
          'with an optional :LINE or :FIRST-LAST, or a .tool-artifacts/… range',
      });
      if (typed === undefined || typed.trim() === '') return undefined;
      given = pastedLinkParams(typed, vscode.env.uriScheme);
    } else {
      given = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>) : {};
      const keys = Object.keys(given);
      if (keys.length === 1 && typeof given.uri === 'string') given = linkTextParams(given.uri, vscode.env.uriScheme);
    }
    args = parseEvidenceLink(given);
  } catch (e) {
    void vscode.window.showErrorMessage(
      `Bounded Evidence: this evidence link is not valid: ${(e as Error).message}. Nothing was opened.`,
    );
    return undefined;
  }
  let src: HandleSource;
  let window: ExcerptRangeDto | undefined;
  const runs = (await host.get()).reads;
  const named = args.handle ?? args.artifactId!;
  try {
    const handle = args.handle ?? (await handleOfArtifact(runs, args.artifactId!));
    if (!handle) throw new EvidenceError('missing', 'no recorded read of this workspace kept that artifact');
    src = await runs.openHandle(handle);
    if (args.window) {
      const w = linkedWindow(src, args.window);
      if (typeof w === 'string') throw new EvidenceError('invalidArgument', w);
      window = w;
    }
  } catch (e) {
    if (!(e instanceof EvidenceError)) log.error(`evidence link ${named}`, e);
    void vscode.window.showErrorMessage(
      `Bounded Evidence: ${named}: ` +
        `${e instanceof EvidenceError ? e.message : 'the output could not be read'}. Nothing was opened.`,
    );
    return undefined;
  }
  const target: InspectorTarget = { handle: src.handle, ...(window ? { window } : {}) };
  const shown = await vscode.commands.executeCommand<InspectorTarget | undefined>(Ids.commands.openInspector, target);
  return { handle: src.handle, ...(shown?.window ? { window: shown.window } : {}) };
}

class EvidenceUriHandler implements vscode.UriHandler {
  constructor(
    private readonly host: ServicesHost,
    private readonly log: Log,
  ) {}

  async handleUri(uri: vscode.Uri): Promise<void> {
    await openEvidenceLink(this.host, this.log, uri);
  }
}

// ------------------------------------------------------------------ links in our chat answers

const HANDLE_IN_TEXT = new RegExp(
  String.raw`\b((?:res|out)_[A-Za-z0-9._-]*[A-Za-z0-9_-])` +
    String.raw`(?:(?::|,?\s+(?:at\s+)?lines?\s+)(\d{1,12})(?:\s*[-–]\s*(\d{1,12}))?)?`,
  'g',
);
const RANGE_IN_TEXT = /\.tool-artifacts\/artifact-[0-9a-f]{64}\/bytes\/\d{1,15}-\d{1,15}/g;

interface FoundLink {
  readonly label: string;
  readonly target: string;
}

function findEvidenceLinks(text: string): FoundLink[] {
  const found = new Map<string, FoundLink>();
  for (const m of text.matchAll(HANDLE_IN_TEXT)) {
    const handle = m[1]!;
    if (!HANDLE.test(handle)) continue;
    const line = m[2] !== undefined && POSITIVE.test(m[2]) ? Number(m[2]) : undefined;
    const endLine =
      line !== undefined && m[3] !== undefined && POSITIVE.test(m[3]) && Number(m[3]) >= line
        ? Number(m[3])
        : undefined;
    const window = line !== undefined ? { line, ...(endLine !== undefined ? { endLine } : {}) } : undefined;
    const label =
      handle + (line !== undefined ? ` line${endLine !== undefined ? `s ${line}–${endLine}` : ` ${line}`}` : '');
    if (!found.has(label))
      found.set(label, { label, target: evidenceCommandLink({ handle, ...(window ? { window } : {}) }) });
  }
  for (const m of text.matchAll(RANGE_IN_TEXT)) {
    if (parseRangePath(m[0])) found.set(m[0], { label: m[0], target: evidenceCommandLink({ path: m[0] }) });
  }
  return [...found.values()];
}

/** The participant leaves such parts out of the history it sends a model. */
export const EVIDENCE_LINKS_PREFIX = '\n\nOpen in the inspector: ';

/** Trusted for `openEvidenceLink` alone. */
export function evidenceLinksMarkdown(text: string): vscode.MarkdownString | undefined {
  const links = findEvidenceLinks(text).slice(0, 20);
  if (links.length === 0) return undefined;
  const md = new vscode.MarkdownString(
    `${EVIDENCE_LINKS_PREFIX}${links.map((l) => `[\`${l.label}\`](${l.target})`).join(' · ')}`,
  );
  md.isTrusted = { enabledCommands: [openEvidenceLinkCommand] };
  return md;
}

export function registerEvidenceLinks(context: vscode.ExtensionContext, host: ServicesHost, log: Log): void {
  const folders = (): string[] =>
    (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
  context.subscriptions.push(
    vscode.languages.registerDocumentLinkProvider({ scheme: Ids.documentScheme }, new SourceLinkProvider(folders)),
    vscode.window.registerUriHandler(new EvidenceUriHandler(host, log)),
    vscode.commands.registerCommand(openEvidenceLinkCommand, (arg?: unknown) => openEvidenceLink(host, log, arg)),
  );
}
