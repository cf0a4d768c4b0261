/**
 * Codex's own policy, applied to a command before the hook routes it (docs/contracts.md §6.1 "Approvals (Codex)").
 *
 * Codex (0.171) honours a `PreToolUse` rewrite only when the answer says `permissionDecision: "allow"` with
 * `updatedInput` (codex-rs/hooks/src/engine/output_parser.rs: "updatedInput without permissionDecision:allow" is
 * an invalid answer and ignored). That `allow` is the rewrite's marker, not an approval: Codex then runs the
 * rewritten command through its own approval policy and sandbox (codex-rs/core/src/hook_runtime.rs returns
 * `Continue { updated_input }` and nothing else). So what decides is whether the ROUTED form would behave as the
 * original under the session's policy, which the hook reads from the session's rollout (`transcript_path`, its
 * latest `turn_context`: the policy as Codex applied it, command-line flags included):
 * - the sandbox must let the command write the spool and the storage: `danger-full-access`, or `workspace-write`
 *   with the storage under one of its writable roots (the workspace, `writable_roots`, /tmp, $TMPDIR). In a
 *   read-only sandbox (Codex's default for `codex exec`) the spool cannot be written and the command would not
 *   run at all: it is left alone;
 * - the approval policy must not ask about commands by their text: `never`, `on-request` and `on-failure` run a
 *   sandboxed command without asking; `untrusted` asks for anything not on Codex's known-safe list, which a routed
 *   command never is (routing would add a prompt for `ls`): left alone, as is any granular policy;
 * - the person's exec-policy rules (`~/.codex/rules/*.rules`, `<project>/.codex/rules/*.rules`: `prefix_rule`s)
 *   match the command's words, which the routed form hides: a command with any program a rule names (or one
 *   whose simple commands cannot be told) is left for Codex to judge as written.
 * Pure: the command line reads the files and passes their texts.
 */
import * as path from 'node:path';
import { simpleCommands } from './claudePermissions.js';

/** The parts of a Codex `turn_context` the verdict reads. */
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

/**
 * The latest `turn_context` in a Codex rollout (JSON lines), or undefined. `text` may be the file's tail: a first
 * partial line simply does not parse.
 */
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

/** Every program name a rules text's `prefix_rule(pattern = [...])` starts with (alternatives included). */
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

/**
 * What the hook does with a Codex `Bash` call: route it (answering `allow` with the rewrite), or leave it, saying why.
 */
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
