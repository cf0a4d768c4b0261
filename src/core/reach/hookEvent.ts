/**
 * The hook's decision for one event (docs/architecture.md §2.4), pure; each client's shapes are its adapter's
 * (src/core/reach/agents/). Anything the hook does not clearly own is left alone: a hook must never break the agent.
 */
import { ROUTES } from './agents/index.js';
import type { HookContext, KeptResult, ToolRoute } from './agents/types.js';
import { isWrapped, routable, STATUS_VAR, wrapCommand } from './rewrite.js';
import { quoteShellWord } from './shellQuote.js';

export type { HookContext } from './agents/types.js';

export type HookDecision =
  | { readonly action: 'none'; readonly reason: string }
  | {
      readonly action: 'rewrite';
      readonly agent: string;
      readonly command: string;
      readonly answer: Record<string, unknown>;
    }
  | ({
      readonly action: 'keep';
      readonly agent: string;
      readonly sessionId: string | undefined;
      readonly cwd: string | undefined;
      /** Over it, the client's model gets the bounded observation instead. */
      readonly wholeBytes: number;
      /** The read the observation names, where the client has no `read_tool_output`. */
      readonly read?: string;
    } & KeptResult)
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

/** Enough to recognise how the command line is started. */
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

const INTERPRETERS = new Set(['node', 'nodejs', 'code', 'code-insiders', 'code-server', 'electron']);
const basename = (w: string): string => w.slice(w.lastIndexOf('/') + 1);

/** Ours or another install's. */
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

function sessionOf(event: Record<string, unknown>): string | undefined {
  const s = event.session_id ?? event.sessionId;
  return typeof s === 'string' && s !== '' ? s : undefined;
}

function eventNameOf(event: Record<string, unknown>): unknown {
  return event.hook_event_name ?? event.hookEventName ?? ROUTES.map((r) => r.eventName?.(event)).find((n) => n);
}

/** A route's narrower test first. */
function routeOf(event: Record<string, unknown>, name: unknown, tool: string): ToolRoute | undefined {
  return ROUTES.find((r) => r.event === name && r.tool === tool && (r.claims?.(event) ?? true));
}

/** Never throws: a failing `prepare` is answered by `unkeptCommand`. */
export function decideHook(event: unknown, ctx: HookContext): HookDecision {
  if (!isRecord(event)) return { action: 'none', reason: 'the event is not a JSON object' };
  if (ctx.storage === undefined || ctx.storage === '')
    return { action: 'none', reason: 'no evidence storage is configured' };
  const eventName = eventNameOf(event);
  const toolName = event.tool_name ?? event.toolName ?? ROUTES.map((r) => r.toolName?.(event)).find((n) => n);
  if (typeof toolName !== 'string') return { action: 'none', reason: 'the event names no tool' };
  if (ROUTES.some((r) => r.after === eventName)) {
    const keeper = ROUTES.find((r) => r.keepResult && r.after === eventName && r.tool === toolName);
    return keeper ? decideKept(keeper, event, ctx) : decidePost(event, toolName, ctx);
  }
  const route = routeOf(event, eventName, toolName);
  if (!route) return { action: 'none', reason: `${String(eventName)} on ${toolName} is not routed` };
  if (!route.render) return { action: 'none', reason: 'the command runs as written and is kept from its result' };
  const input = route.input ? route.input(event) : isRecord(event.tool_input) ? event.tool_input : undefined;
  if (typeof input === 'string') return { action: 'none', reason: input };
  if (!isRecord(input)) return { action: 'none', reason: 'the event has no tool_input' };
  if (route.commands) return decideMany(route, route.commands(input), input, event, ctx);
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
  // VS Code's run_in_terminal says `mode: 'async'` for a server or watcher it leaves running: capture would wait for
  // it to end.
  if (typeof input.mode === 'string' && /async|background|interactive/i.test(input.mode))
    return { action: 'none', reason: 'asynchronous or interactive commands stay in the terminal' };
  const one = routeOne(command, route, input, event, ctx);
  if ('reason' in one) return { action: 'none', reason: one.reason };
  const answer = route.render({ ...input, command: one.command }, one.answer);
  return { action: 'rewrite', agent: one.agent, command: one.command, answer };
}

/** Several commands in one call (Cline's `commands`): each routed on its own; one that cannot be stays as written. */
function decideMany(
  route: ToolRoute,
  commands: readonly unknown[] | string,
  input: Record<string, unknown>,
  event: Record<string, unknown>,
  ctx: HookContext,
): HookDecision {
  if (typeof commands === 'string') return { action: 'none', reason: commands };
  const results = commands.map((c) =>
    typeof c === 'string' && c.trim() !== '' ? routeOne(c, route, input, event, ctx) : { reason: 'not a command' },
  );
  const routed = results.flatMap((r) => ('reason' in r ? [] : [r]));
  if (routed.length === 0)
    return { action: 'none', reason: (results[0] as { reason?: string } | undefined)?.reason ?? 'no command' };
  const updated = results.map((r, i) => ('reason' in r ? commands[i] : r.command));
  const answer = route.render!({ ...input, commands: updated }, routed[0]!.answer);
  return { action: 'rewrite', agent: routed[0]!.agent, command: routed.map((r) => r.command).join('\n'), answer };
}

/** One command's routed form, or why it stays as written. */
function routeOne(
  command: string,
  route: ToolRoute,
  input: Record<string, unknown>,
  event: Record<string, unknown>,
  ctx: HookContext,
): { reason: string } | { command: string; agent: string; answer: { allow: boolean; reason?: string } } {
  if (isRouted(command, ctx.cli) || isWrapped(command)) return { reason: 'the command is already routed' };
  const refused = route.refuse?.(ctx);
  if (refused) return { reason: refused };
  const agent = ctx.agent ?? route.agent;
  const wholeBytes = ctx.largeResultBytes ?? 4096;
  // The syntax does not depend on the spool's path: check before anything is written.
  const lead = route.lead;
  // The group closed on the command's last line keeps bash's line numbers under `eval` (rewrite.ts `sameLine`).
  const trial = (sameLine: boolean): ReturnType<typeof routable> =>
    routable(
      command,
      wrapCommand(command, { spool: '/spool', cli: ctx.cli, wholeBytes, lead, sameLine, watchUntil: 0 }),
      ctx.parses,
    );
  let sameLine = true;
  let check = trial(true);
  if (!check.ok) {
    sameLine = false;
    check = trial(false);
  }
  if (!check.ok) return { reason: check.reason };
  // The rules are those of the agent recorded.
  const permit = ROUTES.find((r) => r.agent === agent && r.permit)?.permit?.(command, event, ctx);
  if (permit && !permit.route) return { reason: permit.reason };
  const allow = ctx.allow === true || permit?.allow === true;
  let rewritten: string;
  try {
    const read = route.readWith?.(ctx);
    const spool = ctx.prepare(command, {
      agent,
      sessionId: sessionOf(event),
      cwd: typeof event.cwd === 'string' ? event.cwd : undefined,
      ...(read !== undefined ? { read } : {}),
    });
    const line = route.oneLine?.(spool, ctx);
    // The one-line form sources the script from the spool, where `lead` is not needed.
    if (line) ctx.writeRun?.(spool, wrapCommand(command, { spool, cli: ctx.cli, wholeBytes, sameLine }));
    const words = route.byVariables ? terminalWords(spool, ctx) : undefined;
    const limitMs = ctx.watchNow ? route.limitMs?.(input, event, ctx) : undefined;
    // Early enough for a large output to be recorded before the client reads; the clock starts before the client's.
    const watchUntil =
      limitMs === undefined ? undefined : ctx.watchNow!() + limitMs - Math.min(10_000, Math.floor(limitMs / 3));
    const watchIdle = limitMs !== undefined && route.limitIdle ? limitMs : undefined;
    rewritten =
      line ??
      wrapCommand(command, { spool, cli: ctx.cli, wholeBytes, lead, sameLine, watchUntil, watchIdle, ...words });
  } catch (e) {
    rewritten = unkeptCommand(command, e instanceof Error ? e.message : String(e));
  }
  const answer = { allow, ...(permit?.route && permit.reason !== undefined ? { reason: permit.reason } : {}) };
  return { command: rewritten, agent, answer };
}

/**
 * The spool and the command line named by a VS Code terminal's variables, when the hook's are the ones it uses (the
 * client's shell then has them too); else undefined (their quoted paths).
 */
function terminalWords(spool: string, ctx: HookContext): { spoolWord: string; cli: string } | undefined {
  const shim = ctx.env?.BOUNDED_EVIDENCE_CLI;
  const storage = ctx.terminalStorage;
  if (!shim || !storage || storage !== ctx.storage || ctx.cli !== quoteShellWord(shim)) return undefined;
  const rel = spool.startsWith(`${storage}/`) ? spool.slice(storage.length) : '';
  if (!/^\/[A-Za-z0-9/_.-]+$/.test(rel)) return undefined;
  return { spoolWord: `"$BOUNDED_EVIDENCE_STORAGE"${rel}`, cli: '"$BOUNDED_EVIDENCE_CLI"' };
}

/** A client that replays rewritten arguments: the command ran as written; its result is kept as a routed one's. */
function decideKept(route: ToolRoute, event: Record<string, unknown>, ctx: HookContext): HookDecision {
  const kept = route.keepResult!(event, ctx);
  if (typeof kept === 'string') return { action: 'none', reason: kept };
  if (isRouted(kept.command, ctx.cli) || isWrapped(kept.command)) return { action: 'none', reason: 'already routed' };
  const read = route.readWith?.(ctx);
  return {
    action: 'keep',
    agent: ctx.agent ?? route.agent,
    sessionId: sessionOf(event),
    cwd: typeof event.cwd === 'string' ? event.cwd : undefined,
    wholeBytes: ctx.largeResultBytes ?? 4096,
    ...(read !== undefined ? { read } : {}),
    ...kept,
  };
}

/** After-tool events: a large response of any tool becomes evidence (when the setting asks for it). */
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
  // What no route claims goes to the one route with an after-tool event and no test of its own.
  const route =
    ROUTES.find((r) => r.recordsAfter?.(event)) ?? ROUTES.find((r) => r.after !== undefined && !r.recordsAfter);
  const agent = ctx.agent ?? route?.agent ?? 'unknown';
  return { action: 'record', agent, sessionId: sessionOf(event), tool: toolName, response };
}

/**
 * Fail open (docs/contracts.md §6.1): the command runs as a group, output untouched, then one line on stderr; the
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
