/**
 * Links both ways (docs/contracts.md §3.4, "Links"):
 * - out of an output: `path:line[:col]` (and `path(line,col)`) in a read-only
 *   `bounded-evidence:` page opens that source file at that line, only when the path
 *   resolves to a file inside a workspace folder (no `..`, no absolute path outside, no
 *   link leading out); the link target is a plain file URI, never a command;
 * - into the evidence: a handle or a `.tool-artifacts/<id>/bytes/<s>-<e>` path opens the
 *   inspector on that output scrolled to the window, marked (`<scheme>://…/open?handle=…&line=…`
 *   URI handler, reached in a browser workbench through its `/callback?vscode-…` address, or the
 *   `boundedEvidence.openEvidenceLink` command, the only command our chat answers trust; from the
 *   palette it takes a pasted link of either form). The link's text is read by `linkText.ts`;
 *   every parameter is validated; an unknown or forged handle is a clear error and opens nothing.
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

/** Id of the command that opens a link into the evidence (declared with the other ids). */
const openEvidenceLinkCommand = Ids.commands.openEvidenceLink;

// ------------------------------------------------------------------ source links out of outputs

/** One `path:line[:col]` found in text (1-based line and column). */
interface SourceRef {
  readonly index: number;
  readonly length: number;
  readonly path: string;
  readonly line: number;
  readonly column?: number;
}

/**
 * `path:line[:col]` or `path(line,col)`. The path is a run of ordinary path characters
 * holding at least one letter, not preceded by one (so `a.ts` inside `xa.ts` is not cut).
 */
const SOURCE_REF = new RegExp(
  String.raw`(?<![\w./@+~-])((?:\.\/|\/)?[\w.@+~-]*[A-Za-z][\w.@+~-]*(?:\/[\w.@+~-]+)*)` +
    String.raw`(?::(\d{1,9})(?::(\d{1,9}))?|\((\d{1,9}),(\d{1,9})\))`,
  'g',
);
/** Links per page (a page is 256 KiB; beyond this the rest stays text). */
const MAX_LINKS_PER_PAGE = 2000;
/** Distinct paths checked on disk per page. */
const MAX_PATHS_PER_PAGE = 500;

/** Every `path:line[:col]` of `text`, in order. */
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

/** True when `child` is `parent` or below it (both absolute, normalised). */
function inside(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * The real path of the file `p` names inside one of `folders`, or undefined: a `..`
 * segment, an absolute path outside every folder, a missing file, a folder, or a link
 * whose target lies outside the folder are all refused.
 */
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

/** The file URI of a resolved source reference; VS Code's opener reads `#L<line>,<col>`. */
function sourceTarget(file: string, ref: SourceRef): vscode.Uri {
  return vscode.Uri.file(file).with({ fragment: `L${ref.line}${ref.column !== undefined ? `,${ref.column}` : ''}` });
}

/** Makes `path:line[:col]` in the body of a `bounded-evidence:` page a link to the source file. */
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

/** The query of a link (`handle=…&line=…` / `path=…`), as the URI handler reads it back. */
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

/** A `command:` link to `openEvidenceLink` (trusted only where we render it, for that command alone). */
function evidenceCommandLink(args: EvidenceLinkArgs & { readonly path?: string }): string {
  const params = Object.fromEntries(new URLSearchParams(linkQuery(args)));
  return `command:${openEvidenceLinkCommand}?${encodeURIComponent(JSON.stringify([params]))}`;
}

/** The handle of the `evidence_readFile` call whose result is this artifact (newest first), if any. */
async function handleOfArtifact(runs: RunStoreApi, artifactId: string): Promise<string | undefined> {
  const sha = artifactId.slice('artifact-'.length);
  for (let offset = 0; ; offset += 1000) {
    const page = await runs.queryCalls({ offset, limit: 1000, tool: EvidenceToolNames.readFile, outcome: 'ok' });
    const hit = page.rows.find((c) => c.sha256 === sha && c.handle);
    if (hit) return hit.handle;
    if (offset + 1000 >= page.total) return undefined;
  }
}

/** What opening a link showed: the output, and the window the panel marks (when the link names one). */
export interface OpenedLink {
  readonly handle: string;
  readonly window?: ExcerptRangeDto;
}

/**
 * Opens a link into the evidence: the inspector on the output, scrolled to the link's
 * window with that window marked (docs/contracts.md §3.4, "Links"). `raw` is the
 * parameters (`{ handle | path, line | bytes }`), `{ uri }` (a whole link: the editor's
 * `<scheme>://…/open?…` or a browser workbench's `http(s)://…/callback?vscode-…` address),
 * the URI handler's `vscode.Uri`, or nothing (then it asks for a link to paste). Anything
 * wrong is one error message and nothing opens.
 */
async function openEvidenceLink(host: ServicesHost, log: Log, raw: unknown): Promise<OpenedLink | undefined> {
  let args: EvidenceLinkArgs;
  try {
    let given: Record<string, unknown>;
    if (raw instanceof vscode.Uri) {
      // The URI handler: the parts as the editor decoded them.
      given = linkParams(raw, vscode.env.uriScheme);
    } else if (raw === undefined) {
      // From the palette: a link pasted from an excerpt (in a browser workbench its callback
      // address works once, while the window that copied it is open; this works always).
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
      // `{ uri }`: a whole link, either form.
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

/**
 * Opens `<scheme>://bounded-evidence.bounded-evidence/open?handle=…` links (from an excerpt, a browser, a terminal).
 */
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

/** A handle in prose, optionally followed by `line N`, `lines N–M` or `:N`. */
const HANDLE_IN_TEXT = new RegExp(
  String.raw`\b((?:res|out)_[A-Za-z0-9._-]*[A-Za-z0-9_-])` +
    String.raw`(?:(?::|,?\s+(?:at\s+)?lines?\s+)(\d{1,12})(?:\s*[-–]\s*(\d{1,12}))?)?`,
  'g',
);
const RANGE_IN_TEXT = /\.tool-artifacts\/artifact-[0-9a-f]{64}\/bytes\/\d{1,15}-\d{1,15}/g;

/** One link into the evidence found in prose: its label and the command link. */
interface FoundLink {
  readonly label: string;
  readonly target: string;
}

/** Every distinct handle (with its line window when one follows) and `.tool-artifacts` range in `text`. */
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

/** How the links part of an answer starts (the participant leaves such parts out of the history it sends a model). */
export const EVIDENCE_LINKS_PREFIX = '\n\nOpen in the inspector: ';

/**
 * Markdown listing the links of `text` ("Open in the inspector: …"), trusted for
 * `openEvidenceLink` alone, or undefined when there is none.
 */
export function evidenceLinksMarkdown(text: string): vscode.MarkdownString | undefined {
  const links = findEvidenceLinks(text).slice(0, 20);
  if (links.length === 0) return undefined;
  const md = new vscode.MarkdownString(
    `${EVIDENCE_LINKS_PREFIX}${links.map((l) => `[\`${l.label}\`](${l.target})`).join(' · ')}`,
  );
  md.isTrusted = { enabledCommands: [openEvidenceLinkCommand] };
  return md;
}

/** Registers the source links of pages, the URI handler and the command. */
export function registerEvidenceLinks(context: vscode.ExtensionContext, host: ServicesHost, log: Log): void {
  const folders = (): string[] =>
    (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
  context.subscriptions.push(
    vscode.languages.registerDocumentLinkProvider({ scheme: Ids.documentScheme }, new SourceLinkProvider(folders)),
    vscode.window.registerUriHandler(new EvidenceUriHandler(host, log)),
    vscode.commands.registerCommand(openEvidenceLinkCommand, (arg?: unknown) => openEvidenceLink(host, log, arg)),
  );
}
