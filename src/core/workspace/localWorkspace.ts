/**
 * A tool workspace over one local folder (docs/contracts.md §1.4, §5.3). No result names a host path. A path must
 * stay inside the root through symlinks and name no secret, and `read_file` checks the opened descriptor, so a
 * swapped link cannot leak a file. Error results are short: the evidence wrapper passes them through unbounded.
 */
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { openConfined, type ConfinedFile, type ConfinedOpenRefusal } from '../files/confinedOpen.js';
import { COMMAND_FAILED, runProgram } from './localCommands.js';
import { BUILTIN_SECRET_RULES, SecretPathRules } from '../files/secretPaths.js';
import { ToolName, type ToolAction, type ToolPolicy, type ToolSpec, type ToolWorkspace } from './toolWorkspace.js';
import { decodeUtf8Strict, encodeUtf8 } from '../utf8.js';

export interface LocalWorkspaceOptions {
  readonly root: string;
  /** Default 16 MiB; `evidence_readFile` streams larger ones (docs/contracts.md §3.3). */
  readonly maxFileBytes?: number;
  readonly allowWrites?: boolean;
  /** Exact names. */
  readonly allowedCommands?: readonly string[];
  readonly commandTimeoutMs?: number;
  /** The rest is counted. */
  readonly maxOutputBytes?: number;
  /** None removes a built-in. */
  readonly denyPatterns?: readonly string[];
}

const DEFAULT_MAX_FILE_BYTES = 16 * 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_OUTPUT_BYTES = 64 * 1024 * 1024;

/** Callers compare it exactly, never by pattern. */
export function fileTooLargeText(maxFileBytes: number): string {
  return `error: file exceeds ${maxFileBytes} bytes`;
}

/** Never a path, never output. */
export const LocalErrorText = {
  pathMissing: 'error: path must be a non-empty string',
  pathAbsolute: 'error: path must be relative to the workspace root',
  pathDotDot: 'error: path must not contain ".." segments',
  pathSecret: 'error: access to secret files is denied',
  pathEscapes: 'error: path leaves the workspace root',
  notFound: 'error: file not found',
  isFolder: 'error: path is a folder; use list_files',
  notFolder: 'error: path is not a folder',
  notRegular: 'error: path is not a regular file',
  notUtf8: 'error: file is not UTF-8 text',
  unreadable: 'error: file could not be read',
  hardLinked: 'error: file has other hard links, which may lie outside the workspace; read a copy instead',
  contentMissing: 'error: write_file needs "content" as a string',
  commandMissing: 'error: run_command needs "command" as a string and optional "args" as an array of strings',
  commandNotAllowed: 'error: command is not allowed in this workspace',
  commandFailed: COMMAND_FAILED,
} as const;

type Resolved = { readonly abs: string; readonly rel: string } | { readonly error: string };

export class LocalWorkspace implements ToolWorkspace {
  /** No host path, so it may be shown to a model. */
  readonly policy: ToolPolicy;
  readonly availableTools: readonly ToolSpec[];
  private readonly written = new Set<string>();

  private constructor(
    /** Never shown to a model. */
    readonly root: string,
    private readonly maxFileBytes: number,
    private readonly maxOutputBytes: number,
    policy: ToolPolicy,
    private readonly secrets: SecretPathRules,
  ) {
    this.policy = policy;
    this.availableTools = toolSpecs(policy);
  }

  static async open(options: LocalWorkspaceOptions): Promise<LocalWorkspace> {
    const positive = (v: number | undefined): boolean => v === undefined || (Number.isSafeInteger(v) && v > 0);
    if (!positive(options.maxFileBytes) || !positive(options.commandTimeoutMs) || !positive(options.maxOutputBytes)) {
      throw new RangeError('workspace limits must be positive integers');
    }
    const allowedCommands = [...(options.allowedCommands ?? [])];
    if (allowedCommands.some((c) => typeof c !== 'string' || c.length === 0 || /[\s/\\]/.test(c))) {
      throw new RangeError('allowed commands must be bare program names');
    }
    const root = await fsp.realpath(path.resolve(options.root));
    if (!(await fsp.stat(root)).isDirectory()) throw new RangeError('workspace root must be a directory');
    const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    const policy: ToolPolicy = {
      allowWrites: options.allowWrites ?? false,
      allowedCommands,
      maxFileBytes,
      commandTimeoutMs: options.commandTimeoutMs ?? DEFAULT_TIMEOUT_MS,
    };
    const secrets = options.denyPatterns?.length ? new SecretPathRules(options.denyPatterns) : BUILTIN_SECRET_RULES;
    return new LocalWorkspace(root, maxFileBytes, options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES, policy, secrets);
  }

  get modifiedFiles(): readonly string[] {
    return [...this.written].sort();
  }

  async execute(action: ToolAction, _toolCallId?: string): Promise<string> {
    const args = action.arguments ?? {};
    if (!this.availableTools.some((t) => t.name === action.tool)) {
      return `error: unknown tool; available tools: ${this.availableTools.map((t) => t.name).join(', ')}`;
    }
    switch (action.tool) {
      case ToolName.readFile:
        return this.readFile(args.path);
      case ToolName.listFiles:
        return this.listFiles(args.path ?? '.');
      case ToolName.writeFile:
        return this.writeFile(args.path, args.content);
      default:
        return this.runCommand(args.command, args.args);
    }
  }

  /** The caller reads from the returned descriptor only, and closes it (docs/contracts.md §5.3). */
  private async openFile(p: unknown): Promise<ConfinedFile | string> {
    const r = await this.resolve(p);
    if ('error' in r) return r.error;
    // What is read is what was proven inside the root.
    const opened = await openConfined(this.root, r.abs, this.secrets);
    return 'refused' in opened ? REFUSAL_TEXT[opened.refused] : opened;
  }

  /**
   * A file too large comes back still open, one not UTF-8 as its bytes, so `evidence_readFile` keeps either without
   * opening the file again (docs/contracts.md §3.3, §5.3).
   */
  async readOrOpen(p: unknown): Promise<LocalRead> {
    const opened = await this.openFile(p);
    if (typeof opened === 'string') return { error: opened };
    let keep = false;
    let bytes: Buffer;
    try {
      const read =
        opened.stat.size > this.maxFileBytes
          ? undefined
          : await readAtMost(opened.handle, opened.stat.size, this.maxFileBytes);
      if (read === undefined) {
        keep = true;
        return { tooLarge: opened };
      }
      bytes = read;
    } catch {
      return { error: LocalErrorText.unreadable };
    } finally {
      if (!keep) await opened.handle.close().catch(() => undefined);
    }
    try {
      return { text: decodeUtf8Strict(bytes) };
    } catch {
      return { notUtf8: bytes };
    }
  }

  private async readFile(p: unknown): Promise<string> {
    const r = await this.readOrOpen(p);
    if ('text' in r) return r.text;
    if ('error' in r) return r.error;
    if ('notUtf8' in r) return LocalErrorText.notUtf8;
    await r.tooLarge.handle.close().catch(() => undefined);
    return this.tooLarge();
  }

  private async listFiles(p: unknown): Promise<string> {
    const r = await this.resolve(p);
    if ('error' in r) return r.error;
    const st = await fsp.stat(r.abs).catch(() => undefined);
    if (!st) return LocalErrorText.notFound;
    if (!st.isDirectory()) return LocalErrorText.notFolder;
    const lines: string[] = [];
    for (const entry of await fsp.readdir(r.abs, { withFileTypes: true })) {
      const rel = r.rel === '' ? entry.name : `${r.rel}/${entry.name}`;
      if (this.secrets.isSecret(rel)) continue;
      let isDir = entry.isDirectory();
      if (entry.isSymbolicLink()) {
        // A link is listed only if it leads somewhere this workspace could read.
        const target = await this.resolve(rel);
        if ('error' in target) continue;
        const tst = await fsp.stat(target.abs).catch(() => undefined);
        if (!tst) continue;
        isDir = tst.isDirectory();
      }
      lines.push(isDir ? `${rel}/` : rel);
    }
    return lines.sort().join('\n');
  }

  private async writeFile(p: unknown, content: unknown): Promise<string> {
    if (typeof content !== 'string') return LocalErrorText.contentMissing;
    const r = await this.resolve(p);
    if ('error' in r) return r.error;
    if (r.rel === '') return LocalErrorText.isFolder;
    const bytes = encodeUtf8(content);
    if (bytes.length > this.maxFileBytes) return this.tooLarge();
    const st = await fsp.stat(r.abs).catch(() => undefined);
    if (st?.isDirectory()) return LocalErrorText.isFolder;
    if (st && !st.isFile()) return LocalErrorText.notRegular;
    try {
      await fsp.mkdir(path.dirname(r.abs), { recursive: true });
      await fsp.writeFile(r.abs, bytes);
    } catch {
      return 'error: file could not be written';
    }
    this.written.add(r.rel);
    return `wrote ${bytes.length} bytes to ${r.rel}`;
  }

  /** Without a shell: no expansion, no pipes, no injection. */
  private async runCommand(command: unknown, args: unknown): Promise<string> {
    if (typeof command !== 'string' || command.trim() === '') return LocalErrorText.commandMissing;
    let argv: string[];
    if (args === undefined) {
      argv = command.trim().split(/\s+/);
    } else {
      if (!Array.isArray(args) || !args.every((a) => typeof a === 'string') || /\s/.test(command))
        return LocalErrorText.commandMissing;
      argv = [command, ...(args as string[])];
    }
    const [program, ...rest] = argv as [string, ...string[]];
    if (!this.policy.allowedCommands.includes(program)) {
      return `${LocalErrorText.commandNotAllowed}; allowed: ${this.policy.allowedCommands.join(', ')}`;
    }
    return runProgram(
      program,
      rest,
      this.root,
      this.policy.commandTimeoutMs ?? DEFAULT_TIMEOUT_MS,
      this.maxOutputBytes,
    );
  }

  private tooLarge(): string {
    return fileTooLargeText(this.maxFileBytes);
  }

  /** For a path that does not exist yet (a write), its nearest existing ancestor is resolved. */
  private async resolve(p: unknown): Promise<Resolved> {
    if (typeof p !== 'string' || p.length === 0 || p.includes('\0')) return { error: LocalErrorText.pathMissing };
    if (path.posix.isAbsolute(p) || path.win32.isAbsolute(p) || /^[A-Za-z]:/.test(p))
      return { error: LocalErrorText.pathAbsolute };
    const segments = p.split(/[\\/]/).filter((s) => s !== '' && s !== '.');
    if (segments.includes('..')) return { error: LocalErrorText.pathDotDot };
    if (this.secrets.isSecret(segments.join('/'))) return { error: LocalErrorText.pathSecret };
    const abs = path.join(this.root, ...segments);
    let existing = abs;
    const missing: string[] = [];
    let real: string | undefined;
    while (real === undefined) {
      try {
        real = await fsp.realpath(existing);
      } catch {
        if (existing === this.root) return { error: LocalErrorText.pathEscapes };
        missing.unshift(path.basename(existing));
        existing = path.dirname(existing);
      }
    }
    const full = path.join(real, ...missing);
    const relReal = path.relative(this.root, full);
    if (relReal.startsWith('..') || path.isAbsolute(relReal)) return { error: LocalErrorText.pathEscapes };
    if (this.secrets.isSecret(relReal)) return { error: LocalErrorText.pathSecret };
    return { abs: full, rel: segments.join('/') };
  }
}

/** It may have grown since `fstat`. */
async function readAtMost(handle: fsp.FileHandle, expected: number, max: number): Promise<Buffer | undefined> {
  let buf = Buffer.allocUnsafe(Math.min(max + 1, expected + 1));
  let n = 0;
  for (;;) {
    if (n === buf.length) {
      if (n > max) return undefined;
      const bigger = Buffer.allocUnsafe(Math.min(max + 1, n * 2));
      buf.copy(bigger, 0, 0, n);
      buf = bigger;
    }
    const { bytesRead } = await handle.read(buf, n, buf.length - n, n);
    if (bytesRead === 0) return buf.subarray(0, n);
    n += bytesRead;
  }
}

export type LocalRead =
  | { readonly text: string }
  | { readonly error: string }
  /** Still open, proven inside the root; the caller closes it. */
  | { readonly tooLarge: ConfinedFile }
  | { readonly notUtf8: Uint8Array };

const REFUSAL_TEXT: Record<ConfinedOpenRefusal, string> = {
  notFound: LocalErrorText.notFound,
  escapes: LocalErrorText.pathEscapes,
  secret: LocalErrorText.pathSecret,
  isFolder: LocalErrorText.isFolder,
  notRegular: LocalErrorText.notRegular,
  hardLinked: LocalErrorText.hardLinked,
};

function toolSpecs(policy: ToolPolicy): ToolSpec[] {
  const specs: ToolSpec[] = [
    {
      name: ToolName.readFile,
      description: 'Returns the text of a file exactly as stored.',
      parameters: { path: 'string: path relative to the workspace root' },
    },
    {
      name: ToolName.listFiles,
      description: 'Lists a folder: one relative path per line, sorted, folders ending in "/".',
      parameters: { path: 'string, optional: folder relative to the workspace root (default ".")' },
    },
  ];
  if (policy.allowWrites) {
    specs.push({
      name: ToolName.writeFile,
      description: 'Writes text to a file, creating folders as needed.',
      parameters: { path: 'string: path relative to the workspace root', content: 'string: the whole new text' },
    });
  }
  if (policy.allowedCommands.length > 0) {
    specs.push({
      name: ToolName.runCommand,
      description:
        `Runs a program in the workspace root without a shell; ` + `allowed: ${policy.allowedCommands.join(', ')}.`,
      parameters: {
        command: 'string: program and arguments separated by spaces, or the program alone',
        args: 'string[], optional: arguments (then command is the program only)',
      },
    });
  }
  return specs;
}
