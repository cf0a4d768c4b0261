/**
 * The hook's decision for one agent hook event (docs/architecture.md §2.4), pure: the command line reads stdin, calls
 * `decideHook`, writes the answer. The clients' shapes understood:
 * - `PreToolUse` on `run_in_terminal` (VS Code's built-in agent): answer
 *   `hookSpecificOutput.updatedInput` with the whole tool input and the command rewritten;
 * - `PreToolUse` on `Bash` (Claude Code, Codex): the same answer shape; Codex honours it only with
 *   `permissionDecision: "allow"`, given when its own session policy would run the routed form as it runs the
 *   original (src/core/reach/codexPolicy.ts), and otherwise the command is left alone;
 * - `BeforeTool` on `run_shell_command` (Gemini CLI): `hookSpecificOutput.tool_input`;
 * - `PreToolUse` on `run_shell_command` (Qwen Code): `updatedInput` with the `permissionDecision` and reason its
 *   docs require; `allow` there also skips Qwen Code's approval prompt, so it is answered only in `yolo` mode,
 *   where Qwen Code runs every command without asking anyway;
 * - `preToolUse` on `bash` (the Copilot CLI, and VS Code's Copilot harness, which runs the Copilot CLI's runtime): the
 *   event names no event, `{ sessionId, timestamp, cwd, toolName: 'bash', toolArgs: { command, description } }`
 *   (recorded from @github/copilot 1.0.102, test/agents/copilotCli.test.ts; `toolArgs` is a JSON text in older
 *   versions' documentation, read either way), answered `{ modifiedArgs }` with the whole arguments, command replaced.
 * The rewritten command is the original text, verbatim, run as a group by the agent's own
 * shell with its two streams in a spool folder (src/core/reach/rewrite.ts): an output small
 * enough is given back as it was, a large one becomes the bounded observation
 * `evidence_runCommand` would have returned. Anything the hook does not clearly own is left
 * alone (no answer): other tools, background commands, commands already routed, commands that
 * end the shell or set errexit, commands that do not parse, and everything when no storage is
 * configured. A hook must never break the agent.
 */
import { claudeVerdict } from './claudePermissions.js';
import { codexVerdict, type CodexTurn } from './codexPolicy.js';
import { isWrapped, routable, SPOOL_RUN, STATUS_VAR, wrapCommand } from './rewrite.js';
import { quoteShellWord } from './shellQuote.js';

/** The variable the extension sets in every integrated terminal to its storage folder. */
const TERMINAL_STORAGE_VAR = 'BOUNDED_EVIDENCE_STORAGE';

/** The terminal tools the hook routes, by the event and tool name their client sends. */
const ROUTED_TOOLS: readonly {
  readonly event: string;
  readonly tool: string;
  readonly agent: string;
  readonly shape: 'updatedInput' | 'tool_input' | 'modifiedArgs';
}[] = [
  { event: 'PreToolUse', tool: 'run_in_terminal', agent: 'copilot', shape: 'updatedInput' },
  { event: 'PreToolUse', tool: 'Bash', agent: 'claude', shape: 'updatedInput' },
  { event: 'BeforeTool', tool: 'run_shell_command', agent: 'gemini', shape: 'tool_input' },
  { event: 'preToolUse', tool: 'bash', agent: 'copilot-cli', shape: 'modifiedArgs' },
  // Qwen Code (a Gemini CLI descendant with Claude Code style hooks): PreToolUse on its run_shell_command.
  { event: 'PreToolUse', tool: 'run_shell_command', agent: 'qwen', shape: 'updatedInput' },
];

/**
 * The Copilot CLI's events carry no event name: `toolArgs` without `toolResult` is its `preToolUse`, with it
 * `postToolUse`.
 */
function copilotCliEvent(event: Record<string, unknown>): { name: string; input: unknown } | undefined {
  if (event.hook_event_name !== undefined || event.hookEventName !== undefined || !('toolArgs' in event))
    return undefined;
  let input = event.toolArgs;
  if (typeof input === 'string') {
    try {
      input = JSON.parse(input);
    } catch {
      return { name: 'preToolUse', input: undefined };
    }
  }
  return { name: 'toolResult' in event ? 'postToolUse' : 'preToolUse', input };
}

/**
 * Shells whose quoting the rewritten command relies on: POSIX single quotes. fish reads
 * `\\` and `\'` inside single quotes and PowerShell has its own quoting, so in their
 * terminals (and for commands written in their syntax, which `/bin/sh -c` could not run
 * anyway) `run_in_terminal` stays unrouted.
 */
const POSIX_SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'busybox']);

/** What the hook knows besides the event. */
export interface HookContext {
  /** Shell words that start the command line (`'/home/me/…/bin/bounded-evidence'`), already quoted. */
  readonly cli: string;
  /** The evidence storage to record into; undefined: answer nothing. */
  readonly storage: string | undefined;
  /** Also answer `permissionDecision: "allow"` (skips the agent's confirmation; off unless asked for). */
  readonly allow?: boolean;
  /** Record `PostToolUse` responses over `largeResultBytes` (off by default: the setting). */
  readonly recordPostToolUse?: boolean;
  /** The agent to record (`codex` for Codex's `Bash`); default: told by the tool name. */
  readonly agent?: string;
  /**
   * The shell of VS Code's terminals (`vscode.env.shell`, passed as BOUNDED_EVIDENCE_SHELL); undefined: assumed POSIX.
   */
  readonly terminalShell?: string;
  /** Threshold of `PostToolUse` recording, and of a routed command's output given back whole. */
  readonly largeResultBytes?: number;
  /** True when the agent's shell parses `script` (`<shell> -n`: reads it, runs nothing). */
  readonly parses: (script: string) => boolean;
  /**
   * Makes the spool folder of one routed command in the storage (the command's text and
   * `meta` written into it) and returns its absolute path; throws when the storage cannot be
   * written (the command then runs unrouted with one line saying so).
   */
  readonly prepare: (
    command: string,
    meta: { agent: string; sessionId: string | undefined; cwd: string | undefined },
  ) => string;
  /** BOUNDED_EVIDENCE_STORAGE as the hook sees it (VS Code's terminals have the same). */
  readonly terminalStorage?: string;
  /** Writes the routed command's script into its spool (`<spool>/run`), for the terminal's one-line form. */
  readonly writeRun?: (spool: string, script: string) => void;
  /**
   * Claude Code's settings texts (user, project, project-local), read for its permission rules
   * (src/core/reach/claudePermissions.ts).
   */
  readonly claudeSettings?: (event: Record<string, unknown>) => readonly (string | undefined)[];
  /**
   * Codex's session policy (its transcript's latest turn_context) and exec-policy rules texts
   * (src/core/reach/codexPolicy.ts).
   */
  readonly codexSession?: (event: Record<string, unknown>) => {
    readonly turn: CodexTurn | undefined;
    readonly rules: readonly string[];
    readonly tmpdir?: string;
  };
}

/**
 * Codex's `PreToolUse` event, told from Claude Code's (both name the tool `Bash`): Codex sends the turn's id and
 * the model's slug (codex-rs/hooks/src/events/pre_tool_use.rs `PreToolUseCommandInput`), Claude Code neither.
 */
function isCodexEvent(event: Record<string, unknown>): boolean {
  return typeof event.turn_id === 'string' && typeof event.model === 'string';
}

/** What to do with the event. */
export type HookDecision =
  | { readonly action: 'none'; readonly reason: string }
  | {
      readonly action: 'rewrite';
      readonly agent: string;
      readonly command: string;
      readonly answer: Record<string, unknown>;
    }
  | {
      readonly action: 'record';
      readonly agent: string;
      readonly sessionId: string | undefined;
      readonly tool: string;
      readonly response: string;
    };

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The first `n` shell words of a command: plain or single-quoted (enough to recognise how the command line is started).
 */
function leadingWords(command: string, n: number): string[] {
  const words: string[] = [];
  const re = /\s*(?:'([^']*)'|"([^"`\\]*)"|([^\s'"]+))(?=\s|$)/y;
  while (words.length < n) {
    const m = re.exec(command);
    if (!m) break;
    words.push(m[1] ?? m[2] ?? m[3]!);
  }
  return words;
}

/** Interpreters the command line may be started with (`node cli.js`, the editor's own binary as Node). */
const INTERPRETERS = new Set(['node', 'nodejs', 'code', 'code-insiders', 'code-server', 'electron']);
const basename = (w: string): string => w.slice(w.lastIndexOf('/') + 1);

/**
 * True when `command` is already a `capture` through some bounded-evidence command line (ours or another install's).
 */
export function isRouted(command: string, cli: string): boolean {
  const c = command.trimStart();
  if (c.startsWith(`${cli} capture `)) return true;
  const words = leadingWords(c, 6);
  let i = 0;
  while (i < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i]!)) i++;
  if (i < words.length && INTERPRETERS.has(basename(words[i]!))) i++;
  const program = words[i];
  if (program === undefined || words[i + 1] !== 'capture') return false;
  return ['bounded-evidence', 'cli.js'].includes(basename(program)) || /^\$\{?BOUNDED_EVIDENCE_CLI\}?$/.test(program);
}

/** The agent's session id as it names it. */
function sessionOf(event: Record<string, unknown>): string | undefined {
  const s = event.session_id ?? event.sessionId;
  return typeof s === 'string' && s !== '' ? s : undefined;
}

/** The reason Qwen Code requires beside the decision (shown in its debug log, not to the model). */
const QWEN_REASON = 'bounded-evidence: output kept as evidence (permission mode yolo)';

/**
 * Decides what to answer to one parsed hook event. Never throws (a failing `prepare` is answered by `unkeptCommand`).
 */
export function decideHook(event: unknown, ctx: HookContext): HookDecision {
  if (!isRecord(event)) return { action: 'none', reason: 'the event is not a JSON object' };
  if (ctx.storage === undefined || ctx.storage === '')
    return { action: 'none', reason: 'no evidence storage is configured' };
  const cli = copilotCliEvent(event);
  const eventName = cli?.name ?? event.hook_event_name ?? event.hookEventName;
  const toolName = event.tool_name ?? event.toolName;
  if (typeof toolName !== 'string') return { action: 'none', reason: 'the event names no tool' };
  if (eventName === 'PostToolUse' || eventName === 'AfterTool' || eventName === 'postToolUse')
    return decidePost(event, toolName, ctx);
  const route = ROUTED_TOOLS.find((r) => r.event === eventName && r.tool === toolName);
  if (!route) return { action: 'none', reason: `${String(eventName)} on ${toolName} is not routed` };
  const input = cli ? cli.input : event.tool_input;
  if (!isRecord(input))
    return { action: 'none', reason: cli ? 'the event has no toolArgs object' : 'the event has no tool_input' };
  const command = input.command;
  if (typeof command !== 'string' || command.trim() === '')
    return { action: 'none', reason: 'tool_input.command is not a command' };
  if (
    input.isBackground === true ||
    input.run_in_background === true ||
    input.is_background === true ||
    input.detach === true
  )
    return { action: 'none', reason: 'background commands stay in the terminal' };
  // VS Code's run_in_terminal says `mode: 'async'` for a server or watcher it leaves running: capture would wait for it
  // to end.
  if (typeof input.mode === 'string' && /async|background|interactive/i.test(input.mode))
    return { action: 'none', reason: 'asynchronous or interactive commands stay in the terminal' };
  if (isRouted(command, ctx.cli) || isWrapped(command))
    return { action: 'none', reason: 'the command is already routed' };
  if (route.tool === 'run_in_terminal' && ctx.terminalShell && !POSIX_SHELLS.has(basename(ctx.terminalShell))) {
    return { action: 'none', reason: `the terminal's shell (${basename(ctx.terminalShell)}) is not a POSIX shell` };
  }
  const agent = ctx.agent ?? (route.tool === 'Bash' && isCodexEvent(event) ? 'codex' : route.agent);
  const wholeBytes = ctx.largeResultBytes ?? 4096;
  // The syntax does not depend on the spool's path: check before anything is written.
  // VS Code's bash terminal prints its command-start marker at the line's first simple command: outside the group.
  const lead = route.tool === 'run_in_terminal' ? ':; ' : undefined;
  const check = routable(
    command,
    wrapCommand(command, { spool: '/spool', cli: ctx.cli, wholeBytes, lead }),
    ctx.parses,
  );
  if (!check.ok) return { action: 'none', reason: check.reason };
  // Claude Code checks its rules against the routed form: decide for the original as the person's rules say.
  let allow = ctx.allow === true;
  if (agent === 'claude' && ctx.claudeSettings && event.permission_mode !== 'bypassPermissions') {
    const verdict = claudeVerdict(command, ctx.claudeSettings(event));
    if (verdict === 'leave')
      return {
        action: 'none',
        reason: 'a permission rule asks or denies: Claude Code applies it to the command as written',
      };
    if (verdict === 'allow') allow = true;
  }
  // Qwen Code requires a permissionDecision with updatedInput, and `allow` skips its approval prompt: only where it
  // asks nothing anyway.
  if (agent === 'qwen') {
    if (event.permission_mode !== 'yolo')
      return {
        action: 'none',
        reason:
          `Qwen Code would ask before this command (permission mode ${String(event.permission_mode)}); ` +
          `an allowed rewrite would skip that: it runs as written`,
      };
    allow = true;
  }
  // Codex ignores a rewrite without `allow`, and runs the rewritten form under its own approval policy and sandbox.
  if (agent === 'codex') {
    const session = ctx.codexSession?.(event);
    const verdict = codexVerdict(command, session?.turn, {
      storage: ctx.storage,
      rules: session?.rules ?? [],
      tmpdir: session?.tmpdir,
    });
    if (!verdict.route) return { action: 'none', reason: verdict.reason };
    allow = true;
  }
  let rewritten: string;
  try {
    const spool = ctx.prepare(command, {
      agent,
      sessionId: sessionOf(event),
      cwd: typeof event.cwd === 'string' ? event.cwd : undefined,
    });
    const line = route.tool === 'run_in_terminal' ? terminalLine(spool, ctx) : undefined;
    // The terminal's line sources the script from the spool, where `lead` is not needed (`.` is its first command).
    if (line) ctx.writeRun?.(spool, wrapCommand(command, { spool, cli: ctx.cli, wholeBytes }));
    rewritten = line ?? wrapCommand(command, { spool, cli: ctx.cli, wholeBytes, lead });
  } catch (e) {
    rewritten = unkeptCommand(command, e instanceof Error ? e.message : String(e));
  }
  const updated = { ...input, command: rewritten };
  const answer: Record<string, unknown> =
    route.shape === 'tool_input'
      ? { hookSpecificOutput: { hookEventName: route.event, tool_input: updated } }
      : route.shape === 'modifiedArgs'
        ? { ...(allow ? { permissionDecision: 'allow' } : {}), modifiedArgs: updated }
        : {
            hookSpecificOutput: {
              hookEventName: route.event,
              ...(allow ? { permissionDecision: 'allow' } : {}),
              ...(agent === 'qwen' ? { permissionDecisionReason: QWEN_REASON } : {}),
              updatedInput: updated,
            },
          };
  return { action: 'rewrite', agent, command: rewritten, answer };
}

/** `PostToolUse`: a large response of any tool becomes evidence (when the setting asks for it). */
function decidePost(event: Record<string, unknown>, toolName: string, ctx: HookContext): HookDecision {
  if (!ctx.recordPostToolUse) return { action: 'none', reason: 'PostToolUse recording is off' };
  const raw = event.tool_response ?? event.toolResponse ?? event.tool_result ?? event.toolResult;
  if (raw === undefined || raw === null) return { action: 'none', reason: 'the event has no tool_response' };
  // The Copilot CLI's `toolResult` is `{ resultType, textResultForLlm }`: what its model got is the text.
  const text = isRecord(raw) && typeof raw.textResultForLlm === 'string' ? raw.textResultForLlm : raw;
  const response = typeof text === 'string' ? text : JSON.stringify(text);
  const threshold = ctx.largeResultBytes ?? 4096;
  if (Buffer.byteLength(response, 'utf8') <= threshold)
    return { action: 'none', reason: `the response is not over ${threshold} bytes` };
  // Told by the event's shape: Gemini names its event AfterTool, Claude Code sends its permission mode.
  const agent =
    ctx.agent ??
    (event.hook_event_name === 'AfterTool'
      ? 'gemini'
      : isCodexEvent(event)
        ? 'codex'
        : 'permission_mode' in event
          ? 'claude'
          : 'toolArgs' in event
            ? 'copilot-cli'
            : 'copilot');
  return { action: 'record', agent, sessionId: sessionOf(event), tool: toolName, response };
}

/**
 * The line VS Code's terminal is given (docs/contracts.md §6.1):
 * `. "$BOUNDED_EVIDENCE_STORAGE/evidence/spool/<id>/run"`, the wrapped command sourced from its spool. The terminal
 * echoes the typed line into what the model gets, and VS Code strips that echo only for a line it finds whole in the
 * output (a line of the terminal's width or so, with no second line): the wrapped command itself is ~600 bytes over
 * several lines. Sourcing runs it in the same shell, as the group does. Only when the hook's storage is the terminals'
 * (`BOUNDED_EVIDENCE_STORAGE`, which the extension sets in every integrated terminal) and the spool's path below it is
 * plain; else undefined.
 */
function terminalLine(spool: string, ctx: HookContext): string | undefined {
  if (!ctx.writeRun || ctx.terminalStorage === undefined || ctx.terminalStorage !== ctx.storage) return undefined;
  const rel = spool.startsWith(`${ctx.storage}/`) ? spool.slice(ctx.storage.length) : '';
  if (!/^\/[A-Za-z0-9/_.-]+$/.test(rel)) return undefined;
  return `. "$${TERMINAL_STORAGE_VAR}${rel}/${SPOOL_RUN}"`;
}

/**
 * Fail open (docs/contracts.md §6.1): the storage cannot be written, so the command runs as a
 * group in the agent's shell with its output untouched, followed by one line on stderr; the
 * exit status stays the command's.
 */
export function unkeptCommand(command: string, reason: string): string {
  const line =
    `bounded-evidence: evidence not kept (${reason.split('\n')[0]!.slice(0, 160)}); ` + `the command ran unrouted`;
  return [
    `{ ${command}`,
    `}; ${STATUS_VAR}=$?; printf '%s\\n' ${quoteShellWord(line.replace(/\0/g, ''))} >&2; ` +
      `eval "unset ${STATUS_VAR}; (exit $${STATUS_VAR})"`,
  ].join('\n');
}
