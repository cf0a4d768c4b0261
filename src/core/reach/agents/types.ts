/**
 * Agent adapters (docs/architecture.md §2.4, docs/contracts.md §6.2): one file per agent. Routes are the hook half;
 * the init half detects and plans declarative edits (`json`, `toml`, `file`), which the engine applies without
 * clobbering, undoes byte for byte, shows and checks. No adapter touches a file itself, so the command line and the
 * editor run the same plan. `ours` recognises our entry: an equal one is left alone, another install's replaced, and
 * uninstall removes exactly what it accepts.
 */
import type { CodexTurn } from '../codexPolicy.js';

export type Scope = 'global' | 'project';

/** Everything comes in, so the adapters are unit-tested on a temporary home. */
export interface AgentContext {
  readonly home: string;
  /** undefined: none. */
  readonly project: string | undefined;
  readonly stateDir: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly exists: (file: string) => boolean;
  readonly which: (program: string) => string | undefined;
  /** Optional: only an adapter whose edit depends on what else the file holds reads it. */
  readonly readText?: (file: string) => string | undefined;
  /** Already shell-quoted; a global hook finds the storage per folder (contracts §6). */
  readonly hookCommand: (agent: string | undefined, scope: Scope, extra?: readonly string[]) => string;
  /** undefined when no storage is known: the adapter then plans no MCP registration and says so. */
  readonly mcpServer: (scope: Scope) => { readonly command: string; readonly args: readonly string[] } | undefined;
  /** src/core/reach/locate.ts `findStorage`. */
  readonly storage?: string;
  /** `hookCommand` already carries the flags. Absent: off. */
  readonly recordOtherToolResults?: boolean;
}

/** One short phrase: "claude on PATH". */
interface Detection {
  readonly installed: boolean;
  readonly because: string;
}

/** `-1` last means "append to this list". */
export type JsonPath = readonly (string | -1)[];

export type ConfigEdit =
  | {
      readonly kind: 'json';
      readonly file: string;
      /** The user's comments are kept either way. */
      readonly comments: boolean;
      readonly path: JsonPath;
      readonly value: unknown;
      /** Whatever its install path. */
      readonly ours: (existing: unknown) => boolean;
    }
  | {
      readonly kind: 'toml';
      readonly file: string;
      readonly table: readonly string[];
      readonly value: Readonly<Record<string, unknown>>;
    }
  | {
      readonly kind: 'file';
      readonly file: string;
      readonly text: string;
      /** Any version. */
      readonly ours: (existing: string) => boolean;
    };

interface AgentPlan {
  readonly edits: readonly ConfigEdit[];
  /** Shown by init and doctor. */
  readonly notes?: readonly string[];
}

export interface AgentAdapter {
  /** Lowercase, no spaces. */
  readonly id: string;
  /** One hook file serves `vscode`, `copilot-cli` and `copilot`. */
  readonly aliases?: readonly string[];
  readonly displayName: string;
  /** The agent's VS Code extension id, where it is one: the editor's pick says when it is installed. */
  readonly vscodeExtension?: string;
  /** `project` first when both: the default of `init`. */
  readonly scopes: readonly Scope[];
  readonly detect: (ctx: AgentContext) => Detection;
  /** Pure; uninstall, dry-run and doctor use the same plan. */
  readonly plan: (ctx: AgentContext, scope: Scope) => AgentPlan;
  /** Each as the one thing to do; empty or absent: it will route (`mcpOnly`: its tools are there). Reads only. */
  readonly blockers?: (ctx: AgentContext, scope: Scope) => string[];
  readonly cautions?: (ctx: AgentContext, scope: Scope) => string[];
  /** Never "routed". */
  readonly mcpOnly?: boolean;
  /** With `mcpOnly`: a rules file asks the model to run long commands through our tools, which it may not do. */
  readonly rules?: boolean;
  /** Doctor finds the last one by them; default `[id]`. */
  readonly recordsAs?: readonly string[];
  /** None: another agent's route serves it. */
  readonly routes?: readonly ToolRoute[];
}

/** The I/O is the command line's. */
export interface HookContext {
  /** Already quoted. */
  readonly cli: string;
  /** undefined: answer nothing. */
  readonly storage: string | undefined;
  /** Skips the agent's confirmation; off unless asked for. */
  readonly allow?: boolean;
  /** Off by default. */
  readonly recordPostToolUse?: boolean;
  /** Default: told by the event. */
  readonly agent?: string;
  /** undefined: assumed POSIX. */
  readonly terminalShell?: string;
  readonly largeResultBytes?: number;
  /** Now (ms since the epoch), when `cli` is the shim, whose `watch` gives output at the client's time limit. */
  readonly watchNow?: () => number;
  /** Reads it, runs nothing. */
  readonly parses: (script: string) => boolean;
  /** Throws when the storage cannot be written: the command then runs unrouted with one line saying so. */
  readonly prepare: (
    command: string,
    meta: { agent: string; sessionId: string | undefined; cwd: string | undefined; read?: string },
  ) => string;
  readonly terminalStorage?: string;
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly readText?: (file: string) => string | undefined;
  readonly which?: (program: string) => string | undefined;
  /**
   * The command line of the process that started the hook (the client: `/proc/<ppid>/cmdline`), or undefined where it
   * cannot be read: flags a client gives no hook any other way (the Copilot CLI's `--allow-all-tools`).
   */
  readonly clientArgs?: () => readonly string[] | undefined;
  /** Writes the routed command's script into its spool (`<spool>/run`), for the terminal's one-line form. */
  readonly writeRun?: (spool: string, script: string) => void;
  /** src/core/reach/claudePermissions.ts. */
  readonly claudeSettings?: (event: Record<string, unknown>) => readonly (string | undefined)[];
  /** src/core/reach/codexPolicy.ts. */
  readonly codexSession?: (event: Record<string, unknown>) => {
    readonly turn: CodexTurn | undefined;
    readonly rules: readonly string[];
    readonly tmpdir?: string;
  };
}

/** `allow` when the agent would otherwise ask, or ignore the rewrite. */
type Permit =
  | { readonly route: false; readonly reason: string }
  | { readonly route: true; readonly allow?: boolean; readonly reason?: string };

/** The hook half of an adapter. An agent whose events fit no existing route adds one here. */
export interface ToolRoute {
  readonly event: string;
  readonly tool: string;
  /** Unless the hook is started with `--agent`. */
  readonly agent: string;
  /** An event without any route's fragment is answered by sh alone (no `'`, no white space). */
  readonly prefilter: string;
  /** The Copilot CLI tells its events by their shape. */
  readonly eventName?: (event: Record<string, unknown>) => string | undefined;
  /** Where the event names its tool elsewhere than `tool_name` (Cline: `tool_call.name`). */
  readonly toolName?: (event: Record<string, unknown>) => string | undefined;
  /** Several commands in one call (Cline's `commands`), each routed on its own; a string says why none is. */
  readonly commands?: (input: Record<string, unknown>) => readonly unknown[] | string;
  /** Codex's `Bash` event against Claude Code's. */
  readonly claims?: (event: Record<string, unknown>) => boolean;
  /** Default `tool_input`. */
  readonly input?: (event: Record<string, unknown>) => Record<string, unknown> | string;
  /** E.g. VS Code's terminal in fish. */
  readonly refuse?: (ctx: HookContext) => string | undefined;
  readonly lead?: string;
  /**
   * True when the client's shell has the hook's environment: where that is a VS Code terminal's, the routed text names
   * the storage and the command line by its variables, not by their paths (the client shows its model that text).
   */
  readonly byVariables?: boolean;
  /** A one-line form that runs the wrapped script from the spool (VS Code's terminal), or undefined. */
  readonly oneLine?: (spool: string, ctx: HookContext) => string | undefined;
  /** Absent: route it, `allow` as the flag. */
  readonly permit?: (command: string, event: Record<string, unknown>, ctx: HookContext) => Permit;
  readonly render: (
    updated: Record<string, unknown>,
    a: { readonly allow: boolean; readonly reason?: string },
  ) => Record<string, unknown>;
  /** When this client offers no `read_tool_output`; undefined: it has the tool. */
  readonly readWith?: (ctx: HookContext) => string | undefined;
  /** The client's time limit on the call (ms), at which it reads what the command printed so far. */
  readonly limitMs?: (input: Record<string, unknown>) => number | undefined;
  readonly after?: string;
  /** Tried in the same order as `claims`. */
  readonly recordsAfter?: (event: Record<string, unknown>) => boolean;
}
