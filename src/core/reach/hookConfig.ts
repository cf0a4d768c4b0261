/**
 * The hook configuration files routing writes and removes (docs/architecture.md §2.4), as pure text-to-text functions so every case (existing
 * hooks, a missing file, a file that is not JSON) is unit-tested without an editor.
 * Two shapes are in use:
 * - VS Code / Copilot (`.github/hooks/*.json`, `~/.copilot/hooks/*.json`):
 *   `{ "hooks": { "PreToolUse": [ { "type": "command", "command": "…", "timeout": 15 } ] } }`;
 * - Claude Code (`.claude/settings.json`, `~/.claude/settings.json`), matcher groups:
 *   `{ "hooks": { "PreToolUse": [ { "matcher": "Bash", "hooks": [ { "type": "command", … } ] } ] } }`.
 * Merging adds our entry and keeps everything else exactly (other keys, other hooks, their
 * order); removing takes out only entries whose command is ours, and drops a container
 * only when we emptied it. A file that is not a JSON object is never overwritten: the
 * caller gets a sentence and the file stays as it was.
 */
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';

/** Seconds an agent waits for the hook (it only rewrites a command: well under a second). */
export const HOOK_TIMEOUT_SECONDS = 15;

/** The file routing writes in a workspace (VS Code's agent reads every `.github/hooks/*.json`). */
export const WORKSPACE_HOOK_FILE = '.github/hooks/bounded-evidence.json';

/** True for a hook command this extension wrote: its shim (or the bin entry) called with `hook`. */
export function isOurHookCommand(command: unknown): boolean {
  return typeof command === 'string' && /(?:^|\/)bounded-evidence'?\s+hook(?:\s|$)/.test(command);
}

type Json = Record<string, unknown>;

function isRecord(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** One hook, as both shapes spell a command hook. */
function commandHook(command: string): Json {
  return { type: 'command', command, timeout: HOOK_TIMEOUT_SECONDS };
}

/** The events routing registers: PreToolUse always, PostToolUse when large results of other tools are recorded. */
export function routedEvents(recordPostToolUse: boolean): string[] {
  return recordPostToolUse ? ['PreToolUse', 'PostToolUse'] : ['PreToolUse'];
}

/** The whole VS Code hook file routing writes (pretty JSON with a final newline). */
export function workspaceHookFileText(hookCommand: string, recordPostToolUse = false): string {
  const hooks: Json = {};
  for (const e of routedEvents(recordPostToolUse)) hooks[e] = [commandHook(hookCommand)];
  return `${JSON.stringify({ hooks }, null, 2)}\n`;
}

/** A parsed settings object, or the sentence saying why the text cannot be merged into. */
function parseObject(text: string | undefined, what: string): Json | string {
  if (text === undefined || text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return `${what} is not valid JSON (comments are not supported): it was left unchanged`;
  }
  return isRecord(value) ? value : `${what} is not a JSON object: it was left unchanged`;
}

/** The outcome of a merge or a removal. */
export type EditResult =
  | { readonly ok: true; readonly changed: boolean; /** undefined: the file should be deleted (nothing else was in it). */ readonly text: string | undefined }
  | { readonly ok: false; readonly error: string };

/** `hooks` of a settings object, or a sentence when it has an unexpected shape. */
function hooksOf(doc: Json, what: string): Json | string {
  if (doc.hooks === undefined) return {};
  return isRecord(doc.hooks) ? doc.hooks : `${what} has a "hooks" that is not an object: it was left unchanged`;
}

/**
 * Adds our hook to a settings text in the given shape (`matcher`: Claude Code's matcher
 * groups, one per tool name; undefined: VS Code's flat list), once: a file that already
 * has our exact entry is unchanged. Our older entries (another install path) are replaced.
 */
export function mergeHook(text: string | undefined, hookCommand: string, what: string, shape: { matcher?: string; recordPostToolUse?: boolean } = {}): EditResult {
  const doc = parseObject(text, what);
  if (typeof doc === 'string') return { ok: false, error: doc };
  const removed = removeOurs(doc, what);
  if (typeof removed === 'string') return { ok: false, error: removed };
  const hooks = hooksOf(removed, what);
  if (typeof hooks === 'string') return { ok: false, error: hooks };
  for (const event of routedEvents(shape.recordPostToolUse ?? false)) {
    const list = hooks[event] === undefined ? [] : hooks[event];
    if (!Array.isArray(list)) return { ok: false, error: `${what} has hooks.${event} that is not a list: it was left unchanged` };
    list.push(shape.matcher === undefined ? commandHook(hookCommand) : { matcher: event === 'PostToolUse' ? '*' : shape.matcher, hooks: [commandHook(hookCommand)] });
    hooks[event] = list;
  }
  const out = `${JSON.stringify({ ...removed, hooks }, null, 2)}\n`;
  // Unchanged when the file already held exactly this content (whatever its formatting).
  const same = text !== undefined && text.trim() !== '' && JSON.stringify(doc) === JSON.stringify(JSON.parse(out));
  return { ok: true, changed: !same, text: out };
}

/** Removes our hooks from a settings text; `text: undefined` when nothing else was in the file. */
export function removeHook(text: string | undefined, what: string): EditResult {
  if (text === undefined) return { ok: true, changed: false, text: undefined };
  const doc = parseObject(text, what);
  if (typeof doc === 'string') return { ok: false, error: doc };
  const before = JSON.stringify(doc);
  const removed = removeOurs(doc, what);
  if (typeof removed === 'string') return { ok: false, error: removed };
  if (JSON.stringify(removed) === before) return { ok: true, changed: false, text };
  // Nothing left but the Copilot CLI format's `version`: the file was only ours.
  return { ok: true, changed: true, text: Object.keys(removed).every((k) => k === 'version') ? undefined : `${JSON.stringify(removed, null, 2)}\n` };
}

/** A copy of `doc` without our entries, in both shapes; containers we emptied are dropped. */
function removeOurs(doc: Json, what: string): Json | string {
  const hooks = hooksOf(doc, what);
  if (typeof hooks === 'string') return hooks;
  if (doc.hooks === undefined) return { ...doc };
  const kept: Json = {};
  for (const [event, list] of Object.entries(hooks)) {
    if (!Array.isArray(list)) { kept[event] = list; continue; }
    const out: unknown[] = [];
    for (const entry of list) {
      // `bash`: the Copilot CLI's spelling, as `bounded-evidence init` writes this same file (src/core/reach/agents/copilot.ts).
      if (isRecord(entry) && (isOurHookCommand(entry.command) || isOurHookCommand(entry.bash))) continue;
      if (isRecord(entry) && Array.isArray(entry.hooks)) {
        const inner = entry.hooks.filter((h) => !(isRecord(h) && isOurHookCommand(h.command)));
        if (inner.length === entry.hooks.length) out.push(entry);
        else if (inner.length > 0) out.push({ ...entry, hooks: inner });
        continue;
      }
      out.push(entry);
    }
    if (out.length > 0 || list.length === 0) kept[event] = out;
  }
  const { hooks: _old, ...rest } = doc;
  return Object.keys(kept).length > 0 || Object.keys(hooks).length === 0 ? { ...rest, hooks: kept } : rest;
}

/** What editing a file on disk did. */
export type FileEditOutcome = { readonly ok: true; readonly changed: boolean; readonly deleted: boolean } | { readonly ok: false; readonly error: string };

/**
 * Applies `edit` to a settings file: a missing file is `undefined` to the edit; a file
 * that cannot be read is left alone with a sentence; the new text replaces the file
 * through a temporary file and a rename (a crash never leaves half a settings file), and
 * `text: undefined` deletes it. The folder is created when needed.
 */
export async function editSettingsFile(file: string, edit: (text: string | undefined) => EditResult): Promise<FileEditOutcome> {
  let text: string | undefined;
  try {
    text = await fsp.readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') return { ok: false, error: `${file} cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'}): it was left unchanged` };
  }
  const result = edit(text);
  if (!result.ok) return result;
  if (!result.changed) return { ok: true, changed: false, deleted: false };
  if (result.text === undefined) {
    await fsp.rm(file, { force: true });
    return { ok: true, changed: true, deleted: true };
  }
  await fsp.mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  await fsp.writeFile(tmp, result.text, { mode: 0o644 });
  await fsp.rename(tmp, file);
  return { ok: true, changed: true, deleted: false };
}
