/**
 * Codex honours a rewrite only with `permissionDecision: "allow"`, and that allow is no approval: Codex still runs
 * the routed form through its own policy and sandbox (docs/contracts.md §6.1 "Approvals (Codex)"). So a command is
 * routed only when the routed form behaves as the original under the session's policy (read from its rollout): the
 * sandbox lets it write the spool, the approval policy does not judge commands by their text, and no exec-policy rule
 * names its programs. Pure.
 */
import * as path from 'node:path';
import { simpleCommands } from './claudePermissions.js';

export interface CodexTurn {
  readonly approvalPolicy: string;
  readonly sandbox: {
    readonly type: string;
    readonly writableRoots: readonly string[];
    readonly excludeSlashTmp: boolean;
    readonly excludeTmpdirEnvVar: boolean;
  };
  readonly cwd: string | undefined;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `text` may be the file's tail: a first partial line simply does not parse. */
export function latestCodexTurn(text: string): CodexTurn | undefined {
  const lines = text.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!;
    if (!line.includes('"turn_context"')) continue;
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch {
      continue;
    }
    if (!isRecord(entry) || entry.type !== 'turn_context' || !isRecord(entry.payload)) continue;
    const p = entry.payload;
    const sp = p.sandbox_policy;
    const approval =
      typeof p.approval_policy === 'string' ? p.approval_policy : isRecord(p.approval_policy) ? 'granular' : undefined;
    if (approval === undefined || !isRecord(sp) || typeof sp.type !== 'string') return undefined;
    const roots = Array.isArray(sp.writable_roots)
      ? sp.writable_roots.filter((r): r is string => typeof r === 'string')
      : [];
    return {
      approvalPolicy: approval,
      sandbox: {
        type: sp.type,
        writableRoots: roots,
        excludeSlashTmp: sp.exclude_slash_tmp === true,
        excludeTmpdirEnvVar: sp.exclude_tmpdir_env_var === true,
      },
      cwd: typeof p.cwd === 'string' ? p.cwd : undefined,
    };
  }
  return undefined;
}

/** Alternatives included. */
export function ruledPrograms(rulesText: string): Set<string> {
  const names = new Set<string>();
  // pattern = ["git", ...] or pattern = [["git", "hg"], ...]: the first element's strings.
  const re = /pattern\s*=\s*\[\s*(\[[^\]]*\]|"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')/g;
  for (const m of rulesText.matchAll(re)) {
    for (const s of m[1]!.matchAll(/"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'/g)) names.add(path.basename(s[1] ?? s[2]!));
  }
  return names;
}

const inside = (p: string, root: string): boolean => {
  const r = path.resolve(root);
  const x = path.resolve(p);
  return x === r || x.startsWith(r.endsWith(path.sep) ? r : r + path.sep);
};

export function codexVerdict(
  command: string,
  turn: CodexTurn | undefined,
  ctx: { storage: string; rules: readonly string[]; tmpdir: string | undefined },
): { route: true } | { route: false; reason: string } {
  if (!turn)
    return {
      route: false,
      reason:
        "Codex's policy for this session could not be read (no turn_context in its transcript): " +
        'the command runs as written',
    };
  if (!['never', 'on-request', 'on-failure'].includes(turn.approvalPolicy)) {
    return {
      route: false,
      reason:
        `Codex's approval policy ${turn.approvalPolicy} judges commands by their text: ` +
        `the command runs as written`,
    };
  }
  const sb = turn.sandbox;
  if (sb.type === 'workspace-write') {
    const roots = [
      ...sb.writableRoots,
      ...(turn.cwd ? [turn.cwd] : []),
      ...(sb.excludeSlashTmp ? [] : ['/tmp']),
      ...(!sb.excludeTmpdirEnvVar && ctx.tmpdir ? [ctx.tmpdir] : []),
    ];
    if (!roots.some((r) => inside(ctx.storage, r)))
      return {
        route: false,
        reason:
          "Codex's workspace-write sandbox cannot write the evidence storage " +
          '(add it to sandbox_workspace_write.writable_roots): ' +
          'the command runs as written',
      };
  } else if (sb.type !== 'danger-full-access') {
    return {
      route: false,
      reason: `Codex's ${sb.type} sandbox cannot write the evidence storage: the command runs as written`,
    };
  }
  const programs = new Set<string>();
  for (const t of ctx.rules) for (const p of ruledPrograms(t)) programs.add(p);
  if (programs.size > 0) {
    const parts = simpleCommands(command);
    if (!parts)
      return {
        route: false,
        reason: "Codex exec-policy rules exist and the command's programs cannot be told: Codex judges it as written",
      };
    for (const part of parts) {
      const words = part.split(/\s+/).filter((w) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w));
      const program = words[0]?.replace(/^['"]|['"]$/g, '');
      if (program !== undefined && programs.has(path.basename(program)))
        return {
          route: false,
          reason: `a Codex exec-policy rule names ${path.basename(program)}: Codex judges the command as written`,
        };
    }
  }
  return { route: true };
}
