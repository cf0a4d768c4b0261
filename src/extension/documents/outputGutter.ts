/**
 * VS Code has no line-number offset, so these pages get their own language with the editor's numbers off, and output
 * line numbers drawn as decorations. Only the lines on screen and a margin are decorated: each decoration's text is a
 * CSS rule in the renderer.
 */
import * as vscode from 'vscode';
import { Ids } from '../ids.js';

/** `renderPage` in artifactDocument.ts writes them. */
export const HEADER_LINES = 3;

/** So a scroll of a few screens shows numbers at once. */
const MARGIN_LINES = 150;

const numberStyle = { color: new vscode.ThemeColor('editorLineNumber.foreground'), margin: '0 2ch 0 0' } as const;

/**
 * Read from the page's own header; the last such segment of the first line is taken, as an attachment name comes
 * before it.
 */
function pageFirstLine(document: vscode.TextDocument): { first: number; last: number } | undefined {
  if (document.uri.scheme !== Ids.documentScheme || document.lineCount <= HEADER_LINES) return undefined;
  const header = document.lineAt(0).text;
  const all = [
    ...header.matchAll(
      new RegExp(String.raw` · bytes \[\d+, \d+\) of \d+ · lines (\d+)–(\d+) of \d+ · sha256 [0-9a-f]{64}`, 'g'),
    ),
  ];
  const m = all[all.length - 1];
  if (!m) return undefined;
  return { first: Number(m[1]), last: Number(m[2]) };
}

const adopting = new Map<string, Promise<vscode.TextDocument>>();

/** Called before showing a page, so page numbers never flash; the open listener catches pages opened otherwise. */
export async function asOutputPage(document: vscode.TextDocument): Promise<vscode.TextDocument> {
  if (document.languageId === Ids.outputLanguage || !pageFirstLine(document)) return document;
  const key = document.uri.toString();
  let p = adopting.get(key);
  if (!p) {
    // Changing the language reopens the document: the listener sees it again, already adopted.
    p = Promise.resolve(vscode.languages.setTextDocumentLanguage(document, Ids.outputLanguage))
      .catch(() => document)
      .finally(() => adopting.delete(key));
    adopting.set(key, p);
  }
  return await p;
}

export interface GutterLine {
  readonly line: number;
  readonly text: string;
}

export class OutputGutter implements vscode.Disposable {
  private readonly type = vscode.window.createTextEditorDecorationType({
    rangeBehavior: vscode.DecorationRangeBehavior.ClosedClosed,
  });
  private readonly drawn = new WeakMap<vscode.TextEditor, GutterLine[]>();
  /** The renderer's part is not seen here. */
  lastDrawMs = 0;
  private readonly subscriptions: vscode.Disposable[] = [];
  /** The status bar's "Ln" counts page lines: VS Code has no offset for it either. */
  private readonly status = vscode.window.createStatusBarItem(
    'boundedEvidence.outputLine',
    vscode.StatusBarAlignment.Right,
    101,
  );

  constructor(goToOutputLineCommand?: string) {
    this.status.name = 'Output line';
    if (goToOutputLineCommand) this.status.command = goToOutputLineCommand;
    this.subscriptions.push(
      this.type,
      this.status,
      vscode.window.onDidChangeActiveTextEditor(() => this.showStatus()),
      vscode.window.onDidChangeTextEditorSelection((e) => {
        if (e.textEditor === vscode.window.activeTextEditor) this.showStatus();
      }),
      vscode.workspace.onDidOpenTextDocument((d) => {
        void asOutputPage(d).then(() => this.showStatus());
      }),
      vscode.window.onDidChangeVisibleTextEditors((editors) => {
        for (const e of editors) this.draw(e);
      }),
      vscode.window.onDidChangeTextEditorVisibleRanges((e) => this.draw(e.textEditor)),
      vscode.workspace.onDidChangeTextDocument((e) => {
        for (const ed of vscode.window.visibleTextEditors) if (ed.document === e.document) this.draw(ed);
      }),
    );
    for (const d of vscode.workspace.textDocuments) void asOutputPage(d);
    for (const e of vscode.window.visibleTextEditors) this.draw(e);
    this.showStatus();
  }

  private showStatus(): void {
    const e = vscode.window.activeTextEditor;
    const page = e && e.document.languageId === Ids.outputLanguage ? pageFirstLine(e.document) : undefined;
    const line = e?.selection.active.line ?? 0;
    if (!e || !page || line < HEADER_LINES) {
      this.status.hide();
      return;
    }
    const n = Math.min(page.last, page.first + line - HEADER_LINES);
    this.status.text = `Output line ${n.toLocaleString('en-US')}`;
    this.status.tooltip =
      `Line ${n.toLocaleString('en-US')} of the output (page line ${line + 1}). ` + `Go to Output Line… (Ctrl+G)`;
    this.status.show();
  }

  linesOf(editor: vscode.TextEditor): readonly GutterLine[] {
    return this.drawn.get(editor) ?? [];
  }

  private draw(editor: vscode.TextEditor): void {
    const t0 = performance.now();
    const doc = editor.document;
    if (doc.languageId !== Ids.outputLanguage) return;
    const page = pageFirstLine(doc);
    if (!page) {
      editor.setDecorations(this.type, []);
      this.drawn.set(editor, []);
      return;
    }
    const width = page.last.toLocaleString('en-US').length;
    const options: vscode.DecorationOptions[] = [];
    const lines: GutterLine[] = [];
    const seen = new Set<number>();
    for (const r of editor.visibleRanges) {
      const from = Math.max(HEADER_LINES, r.start.line - MARGIN_LINES);
      const to = Math.min(doc.lineCount - 1, r.end.line + MARGIN_LINES);
      for (let l = from; l <= to; l++) {
        if (seen.has(l)) continue;
        const n = page.first + (l - HEADER_LINES);
        // A final empty document line is no output line.
        if (n > page.last) break;
        seen.add(l);
        const text = n.toLocaleString('en-US');
        lines.push({ line: l, text });
        options.push({
          range: new vscode.Range(l, 0, l, 0),
          renderOptions: { before: { ...numberStyle, contentText: `${'\u00a0'.repeat(width - text.length)}${text}` } },
        });
      }
    }
    lines.sort((a, b) => a.line - b.line);
    editor.setDecorations(this.type, options);
    this.drawn.set(editor, lines);
    this.lastDrawMs = performance.now() - t0;
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
  }
}
