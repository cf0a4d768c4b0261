/**
 * The engine behind `init`, `--uninstall`, `--dry-run` and `doctor` (docs/architecture.md §2.4), pure. Every change
 * is text edits whose exact inverse is recorded, so uninstall on an untouched file gives back the person's bytes (a
 * fast-check property); a file changed since is edited semantically. jsonc-parser keeps JSON comments and formatting;
 * our TOML table is an appended block.
 */
import {
  applyEdits,
  findNodeAtLocation,
  format,
  getNodeValue,
  modify,
  parseTree,
  type FormattingOptions,
  type Node,
  type ParseError,
} from 'jsonc-parser';
import type * as SmolToml from 'smol-toml' with { 'resolution-mode': 'import' };
/**
 * Loaded when a TOML edit runs: the hook's bundle carries this module through the adapters but leaves smol-toml out.
 * smol-toml ships a CommonJS build (`exports.require`) whose types TypeScript reads as ESM only.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const toml = (): typeof SmolToml => require('smol-toml') as typeof SmolToml;
import { TOML_MARKER } from './common.js';
import type { ConfigEdit, JsonPath } from './types.js';

export interface TextEdit {
  readonly offset: number;
  readonly length: number;
  readonly content: string;
}

/** `text` undefined: the file is (or stays) absent. */
export type TextOutcome =
  | {
      readonly ok: true;
      readonly changed: boolean;
      readonly text: string | undefined;
      /** Applied in order, undoes the change exactly. */ readonly undo: readonly TextEdit[];
    }
  | { readonly ok: false; readonly error: string };

/** Each edit's offsets are in the text the previous one left. */
function applyWithUndo(text: string, edits: readonly TextEdit[]): { text: string; undo: TextEdit[] } {
  let t = text;
  const undo: TextEdit[] = [];
  for (const e of edits) {
    undo.unshift({ offset: e.offset, length: e.content.length, content: t.slice(e.offset, e.offset + e.length) });
    t = t.slice(0, e.offset) + e.content + t.slice(e.offset + e.length);
  }
  return { text: t, undo };
}

export function applyUndo(text: string, undo: readonly TextEdit[]): string {
  return applyWithUndo(text, undo).text;
}

/** So what we add looks like the rest. */
function formattingOf(text: string): FormattingOptions {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const indent = /\n([ \t]+)\S/.exec(text)?.[1];
  if (indent?.startsWith('\t')) return { insertSpaces: false, tabSize: 1, eol };
  return { insertSpaces: true, tabSize: indent ? indent.length : 2, eol };
}

/**
 * jsonc-parser's own formatting reformats whole lines around an edit, so the edit is made unformatted and only the
 * inserted text is laid out like its container.
 */
function modifyKeeping(
  text: string,
  path: JsonPath | (string | number)[],
  value: unknown,
  fmt: FormattingOptions,
): TextEdit[] {
  const raw = modify(text, path as (string | number)[], value, {});
  const root = parseTree(text, [], { allowTrailingComma: true });
  if (value === undefined) {
    // Cut by hand: jsonc-parser's unformatted removal of a last item leaves a byte of it.
    const node = root ? findNodeAtLocation(root, path as (string | number)[]) : undefined;
    const member = node?.parent?.type === 'property' ? node.parent : node;
    const container = member?.parent;
    if (!member || !container) return raw;
    const siblings = container.children ?? [];
    const at = siblings.indexOf(member);
    const cut = (from: number, to: number): TextEdit[] => [{ offset: from, length: to - from, content: '' }];
    if (siblings.length === 1) return cut(container.offset + 1, container.offset + container.length - 1);
    if (at === 0) return cut(member.offset, siblings[1]!.offset);
    const previous = siblings[at - 1]!;
    return cut(previous.offset + previous.length, member.offset + member.length);
  }
  if (raw.length !== 1) return raw;
  const edit = raw[0]!;
  let into = root;
  for (let i = 1; root && i < path.length; i++) {
    const n = findNodeAtLocation(root, path.slice(0, i) as (string | number)[]);
    if (!n) break;
    into = n;
  }
  const compact =
    into !== undefined &&
    (into.children?.length ?? 0) > 0 &&
    !/[\r\n]/.test(text.slice(into.offset, into.offset + into.length));
  if (compact) return raw;
  const newText = applyEdits(text, raw);
  // An empty container holds nothing of the person's: it is laid out with what goes in.
  const empty = into !== undefined && (into.children?.length ?? 0) === 0 ? into : undefined;
  const start = empty ? empty.offset : edit.offset;
  const end = empty
    ? empty.offset + empty.length + edit.content.length - edit.length
    : edit.offset + edit.content.length;
  const inside = format(newText, { offset: start, length: end - start }, { ...fmt, keepLines: false }).filter(
    (e) => e.offset >= start && e.offset + e.length <= end,
  );
  const content = applyEdits(newText, inside).slice(start, end + lengthChange(inside));
  return [{ offset: start, length: end - start - (edit.content.length - edit.length), content }];
}

const lengthChange = (edits: readonly TextEdit[]): number => edits.reduce((n, e) => n + e.content.length - e.length, 0);

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Key order ignored. */
function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b))
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  if (!isRecord(a) || !isRecord(b)) return false;
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => k in b && jsonEqual(a[k], b[k]));
}

function parseJson(text: string, file: string, comments: boolean): Node | undefined | string {
  if (text.trim() === '') return undefined;
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { allowTrailingComma: comments, disallowComments: !comments });
  if (errors.length > 0 || !root)
    return `${file} is not valid ${comments ? 'JSON with comments' : 'JSON'}: it was left unchanged`;
  if (root.type !== 'object') return `${file} is not a JSON object: it was left unchanged`;
  return root;
}

function containerOf(root: Node | undefined, path: JsonPath): { node: Node | undefined } | string {
  const parentPath = path.slice(0, -1) as (string | number)[];
  for (let i = 1; i <= parentPath.length; i++) {
    const n = root ? findNodeAtLocation(root, parentPath.slice(0, i)) : undefined;
    if (!n) return { node: undefined };
    const wantArray = i === parentPath.length && path[path.length - 1] === -1;
    if (wantArray ? n.type !== 'array' : n.type !== 'object')
      return `"${parentPath.slice(0, i).join('.')}" is not ${wantArray ? 'a list' : 'an object'}`;
  }
  return { node: parentPath.length === 0 ? root : findNodeAtLocation(root!, parentPath) };
}

function jsonEdits(text: string, edit: Extract<ConfigEdit, { kind: 'json' }>): TextEdit[] | string {
  const root = parseJson(text, edit.file, edit.comments);
  if (typeof root === 'string') return root;
  const container = containerOf(root, edit.path);
  if (typeof container === 'string') return `${edit.file}: ${container}: it was left unchanged`;
  const base = root ? text : '{}';
  const fmt = formattingOf(text);
  const last = edit.path[edit.path.length - 1];
  const parentPath = edit.path.slice(0, -1) as (string | number)[];
  if (last === -1) {
    const items = container.node?.children?.map((c) => getNodeValue(c) as unknown) ?? [];
    const ours = items.map((v, i) => [v, i] as const).filter(([v]) => edit.ours(v));
    if (ours.length === 1 && jsonEqual(ours[0]![0], edit.value)) return [];
    // Our older entries (another install path, other flags) go; the new one is appended.
    let t = base;
    const out: TextEdit[] = root ? [] : [{ offset: 0, length: text.length, content: '{}' }];
    for (const [, i] of [...ours].reverse()) {
      const e = modifyKeeping(t, [...parentPath, i], undefined, fmt);
      out.push(...e);
      t = applyEdits(t, e);
    }
    out.push(...modifyKeeping(t, [...parentPath, -1], edit.value, fmt));
    return out;
  }
  const existing = root ? findNodeAtLocation(root, edit.path as string[]) : undefined;
  if (existing) {
    const value: unknown = getNodeValue(existing);
    if (jsonEqual(value, edit.value)) return [];
    if (!edit.ours(value))
      return `${edit.file} already has a "${edit.path.join('.')}" of its own: it was left unchanged`;
  }
  return [
    ...(root ? [] : [{ offset: 0, length: text.length, content: '{}' }]),
    ...modifyKeeping(base, edit.path, edit.value, fmt),
  ];
}

export function tomlBlock(table: readonly string[], value: Readonly<Record<string, unknown>>): string {
  let doc: Record<string, unknown> = { ...value };
  for (const key of [...table].reverse()) doc = { [key]: doc };
  return `${TOML_MARKER}\n${toml().stringify(doc).trim()}\n`;
}

function tomlHeader(table: readonly string[]): string {
  return `[${table.map((k) => (/^[A-Za-z0-9_-]+$/.test(k) ? k : JSON.stringify(k))).join('.')}`;
}

/**
 * A file can hold several of our blocks, so every marker is looked at. The block ends before the person's own
 * comments and tables written right after it.
 */
function tomlBlockRange(text: string, table: readonly string[]): { start: number; end: number } | undefined {
  const header = tomlHeader(table);
  const below = (line: string): boolean =>
    line.startsWith(`${header}]`) ||
    line.startsWith(`${header}.`) ||
    line.startsWith(`[${header}]`) ||
    line.startsWith(`[${header}.`);
  for (let start = text.indexOf(TOML_MARKER); start !== -1; start = text.indexOf(TOML_MARKER, start + 1)) {
    // A marker counts only at the start of a line.
    if (start > 0 && text[start - 1] !== '\n') continue;
    const after = text.indexOf('\n', start) + 1;
    if (after === 0) continue;
    const headerEnd = text.indexOf('\n', after);
    const headerLine = text.slice(after, headerEnd === -1 ? text.length : headerEnd).replace(/\r$/, '');
    if (!below(headerLine)) continue;
    if (headerEnd === -1) return { start, end: text.length };
    let end = headerEnd + 1;
    for (let at = end; at < text.length;) {
      const nl = text.indexOf('\n', at);
      const lineEnd = nl === -1 ? text.length : nl + 1;
      const line = text
        .slice(at, lineEnd)
        .replace(/\r?\n$/, '')
        .trim();
      if (line.startsWith('#')) break;
      if (line.startsWith('[') && !below(line)) break;
      // A blank line belongs to the block only if more of it follows.
      if (line !== '') end = lineEnd;
      at = lineEnd;
    }
    return { start, end };
  }
  return undefined;
}

function tomlEdits(text: string, edit: Extract<ConfigEdit, { kind: 'toml' }>): TextEdit[] | string {
  let doc: Record<string, unknown>;
  try {
    doc = toml().parse(text) as Record<string, unknown>;
  } catch {
    return `${edit.file} is not valid TOML: it was left unchanged`;
  }
  let existing: unknown = doc;
  for (const k of edit.table) existing = isRecord(existing) ? existing[k] : undefined;
  if (existing !== undefined && jsonEqual(JSON.parse(JSON.stringify(existing)), JSON.parse(JSON.stringify(edit.value))))
    return [];
  const block = tomlBlock(edit.table, edit.value);
  const ours = tomlBlockRange(text, edit.table);
  if (existing !== undefined && !ours)
    return `${edit.file} already has a [${edit.table.join('.')}] of its own: it was left unchanged`;
  if (ours) return [{ offset: ours.start, length: ours.end - ours.start, content: block }];
  const sep = text === '' || text.endsWith('\n\n') ? '' : text.endsWith('\n') ? '\n' : '\n\n';
  return [{ offset: text.length, length: 0, content: sep + block }];
}

export function applyToText(text: string | undefined, edits: readonly ConfigEdit[]): TextOutcome {
  let t = text ?? '';
  const undo: TextEdit[] = [];
  for (const edit of edits) {
    let step: TextEdit[] | string;
    if (edit.kind === 'file') {
      if (text !== undefined && t === edit.text) step = [];
      else if (text !== undefined && t !== '' && !edit.ours(t))
        step = `${edit.file} exists with other content: it was left unchanged`;
      else step = [{ offset: 0, length: t.length, content: edit.text }];
    } else if (edit.kind === 'json') step = jsonEdits(t, edit);
    else step = tomlEdits(t, edit);
    if (typeof step === 'string') return { ok: false, error: step };
    const r = applyWithUndo(t, step);
    undo.unshift(...r.undo);
    t = r.text;
  }
  // A JSON file we created ends with a newline, as editors write them.
  const created = text === undefined && t !== '';
  if (created && !t.endsWith('\n')) {
    undo.unshift({ offset: t.length, length: 1, content: '' });
    t += '\n';
  }
  const changed = t !== (text ?? '');
  return { ok: true, changed, text: changed || text !== undefined ? t : undefined, undo: changed ? undo : [] };
}

/** No journal to undo with. Undefined text: delete the file. */
export function removeFromText(
  text: string | undefined,
  edits: readonly ConfigEdit[],
  createdByUs: boolean,
): TextOutcome {
  if (text === undefined) return { ok: true, changed: false, text: undefined, undo: [] };
  let t = text;
  for (const edit of edits) {
    if (edit.kind === 'file') {
      if (edit.ours(t)) t = '';
      continue;
    }
    if (edit.kind === 'toml') {
      const r = tomlBlockRange(t, edit.table);
      if (r) t = t.slice(0, r.start).replace(/\n\n$/, '\n') + t.slice(r.end);
      continue;
    }
    const root = parseJson(t, edit.file, edit.comments);
    if (typeof root === 'string') return { ok: false, error: root };
    if (!root) continue;
    const fmt = formattingOf(t);
    const last = edit.path[edit.path.length - 1];
    const parentPath = edit.path.slice(0, -1) as (string | number)[];
    const was = t;
    if (last === -1) {
      const node = findNodeAtLocation(root, parentPath);
      if (node?.type !== 'array') continue;
      const idx = (node.children ?? [])
        .map((c, i) => [getNodeValue(c) as unknown, i] as const)
        .filter(([v]) => edit.ours(v))
        .map(([, i]) => i);
      for (const i of idx.reverse()) t = applyEdits(t, modifyKeeping(t, [...parentPath, i], undefined, fmt));
    } else {
      const node = findNodeAtLocation(root, edit.path as string[]);
      if (node && edit.ours(getNodeValue(node))) t = applyEdits(t, modifyKeeping(t, edit.path, undefined, fmt));
    }
    // Containers we emptied go too; the person's other members stay.
    for (let p = parentPath; t !== was && p.length > 0; p = p.slice(0, -1)) {
      const n = findNodeAtLocation(parseTree(t, [], { allowTrailingComma: true })!, p);
      const v: unknown = n ? getNodeValue(n) : undefined;
      if (!(Array.isArray(v) ? v.length === 0 : isRecord(v) && Object.keys(v).length === 0)) break;
      t = applyEdits(t, modifyKeeping(t, p, undefined, fmt));
    }
  }
  if (t === text) return { ok: true, changed: false, text, undo: [] };
  // A file only we wrote, now holding nothing of anyone's, goes.
  if (t.trim() === '' || (createdByUs && isEmptyJsonShell(t)))
    return { ok: true, changed: true, text: undefined, undo: [] };
  return { ok: true, changed: true, text: t, undo: [] };
}

function isEmptyJsonShell(t: string): boolean {
  const root = parseTree(t, [], { allowTrailingComma: true });
  if (!root) return false;
  const empty = (v: unknown): boolean =>
    Array.isArray(v) ? v.length === 0 : isRecord(v) ? Object.values(v).every(empty) : false;
  return empty(getNodeValue(root));
}

export function isApplied(text: string | undefined, edit: ConfigEdit): boolean {
  if (text === undefined) return false;
  const r = applyToText(text, [edit]);
  return r.ok && !r.changed;
}

/** Doctor reads the hook command from it. */
export function ourJsonEntry(text: string | undefined, edit: ConfigEdit): unknown {
  if (text === undefined || edit.kind !== 'json') return undefined;
  const root = parseJson(text, edit.file, edit.comments);
  if (typeof root !== 'object') return undefined;
  const last = edit.path[edit.path.length - 1];
  if (last === -1) {
    const node = findNodeAtLocation(root, edit.path.slice(0, -1) as string[]);
    return node?.type === 'array'
      ? (node.children ?? []).map((c) => getNodeValue(c) as unknown).find((v) => edit.ours(v))
      : undefined;
  }
  const node = findNodeAtLocation(root, edit.path as string[]);
  const v = node ? (getNodeValue(node) as unknown) : undefined;
  return v !== undefined && edit.ours(v) ? v : undefined;
}
