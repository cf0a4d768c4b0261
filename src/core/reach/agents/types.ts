/**
 * Agent adapters (docs/architecture.md §2.4, docs/contracts.md §6.2): everything the product knows about one agent,
 * for `bounded-evidence init` / `doctor` and for the hook alike.
 *
 * One file per agent in this folder exports an `AgentAdapter`; `index.ts` holds the table. Its hook half is
 * `routes` (`ToolRoute`: which event is the agent's terminal call, where its command is, how the answer is shaped,
 * its permission rules, what the shim's prefilter looks for); src/core/reach/hookEvent.ts dispatches through them.
 * Its init half is pure:
 * it detects from what the context shows (files, PATH) and PLANS declarative edits; the engine (`engine.ts`)
 * applies them (merging, never clobbering, idempotent), undoes them byte for byte (`--uninstall`), shows them
 * (`--dry-run`) and checks them (`doctor`). No adapter reads or writes a file itself, and nothing here imports
 * `vscode`: the command line and the editor's command run the same plan.
 *
 * Edits (all `file`s absolute):
 * - `json`: put `value` at `path` in a JSON or JSONC document (jsonc-parser: comments and formatting kept).
 *   `path` ends in an object key (`['mcpServers', 'bounded-evidence']`: set that member) or in `-1`
 *   (`['hooks', 'PreToolUse', -1]`: append one item to that list). `ours` recognises our entry among the existing
 *   items/values (idempotence: an entry that is ours and equal is left alone, one that is ours and different
 *   — another install path — is replaced; uninstall removes exactly what `ours` accepts). Missing containers are
 *   created. A file that does not parse, or a container of the wrong type, is left unchanged with a sentence.
 * - `toml`: append the table `table` (e.g. `['mcp_servers', 'bounded_evidence']`) with `value` to a TOML file
 *   (parsed by smol-toml to see whether it is there; written as an appended block so the user's text, comments
 *   included, stays as it was). An existing table of that name that is not ours is left alone with a sentence.
 * - `file`: a whole file that is ours (e.g. `.github/hooks/bounded-evidence.json`, a plugin file): written when
 *   absent or ours; a file of that name with other content is left alone with a sentence; uninstall deletes it.
 *
 * Uninstall restores files exactly: init records per file the undo patch of what it inserted (a journal in the
 * state folder, `AgentContext.stateDir`); when the file is still exactly what init left, the patch restores the
 * original bytes (a file init created is removed again). When the person changed the file since, the engine
 * removes only what `ours` accepts and says so.
 */
import type { CodexTurn } from '../codexPolicy.js';

/** Where an agent's configuration is written: the user's (every project) or this project's. */
export type Scope = 'global' | 'project';

/** What an adapter may look at; everything comes in, so the adapters are unit-tested on a temporary home. */
export interface AgentContext {
  /** The user's home folder. */
  readonly home: string;
  /** The project folder (the command line's working directory, the editor's workspace folder); undefined: none. */
  readonly project: string | undefined;
  /**
   * The folder init keeps its undo journal in (`$XDG_STATE_HOME/bounded-evidence`, `~/.local/state/bounded-evidence`).
   */
  readonly stateDir: string;
  /** The environment (for `CODEX_HOME`, `XDG_CONFIG_HOME`, …). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** True when the path exists (file or folder). */
  readonly exists: (file: string) => boolean;
  /** The absolute path of an executable on PATH, or undefined. */
  readonly which: (program: string) => string | undefined;
  /**
   * The text of a file as it is now, or undefined (absent, unreadable). Optional: only an adapter whose edit depends
   * on what else the file holds reads it (Codex's trust key names our hook's position among the person's hooks).
   */
  readonly readText?: (file: string) => string | undefined;
  /**
   * The hook command line, already shell-quoted: `'<cli>' hook [--agent <agent>] [--storage '<dir>'] [extra…]`
   * (`--agent` when given: the name recorded with routed runs; the storage only when `scope` is `project` and one is
   * known; a global hook finds it per folder, contracts §6).
   */
  readonly hookCommand: (agent: string | undefined, scope: Scope, extra?: readonly string[]) => string;
  /**
   * How an MCP client starts the evidence server (argv, unquoted) on the known storage; undefined when no storage is
   * known (the adapter then plans no MCP registration and says so in a note).
   */
  readonly mcpServer: (scope: Scope) => { readonly command: string; readonly args: readonly string[] } | undefined;
  /** The evidence storage this folder's hooks will find (src/core/reach/locate.ts `findStorage`), when known. */
  readonly storage?: string;
  /**
   * Also keep other tools' large results (the editor's `boundedEvidence.hooks.recordOtherToolResults`, the command
   * line's `--record-post-tool-use`): an adapter whose agent has an after-tool event registers the hook there too;
   * `hookCommand` already carries the flags. Absent: off.
   */
  readonly recordOtherToolResults?: boolean;
}

/** Whether the agent looks installed, and what showed it (one short phrase: "claude on PATH", "~/.codex exists"). */
interface Detection {
  readonly installed: boolean;
  readonly because: string;
}

/** A JSON path: object keys, and `-1` last for "append to this list". */
export type JsonPath = readonly (string | -1)[];

export type ConfigEdit =
  | {
      readonly kind: 'json';
      readonly file: string;
      /** True when the agent reads JSONC (comments, trailing commas): the user's comments are kept either way. */
      readonly comments: boolean;
      readonly path: JsonPath;
      readonly value: unknown;
      /** True for a value (an item of the list, or the member) this product wrote, whatever its install path. */
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
      /** True when an existing text of that file is ours (any version): replaced, or removed on uninstall. */
      readonly ours: (existing: string) => boolean;
    };

/** What init does for one agent in one scope. */
interface AgentPlan {
  readonly edits: readonly ConfigEdit[];
  /** Sentences a person must know (shown by init and doctor): e.g. Claude Code's ToolSearch deferring MCP tools. */
  readonly notes?: readonly string[];
}

/** One agent init can route. */
export interface AgentAdapter {
  /** `--agent` name: lowercase, no spaces (`claude`, `copilot-cli`, `vscode`, `codex`, `gemini`, `opencode`). */
  readonly id: string;
  /**
   * Other `--agent` names for the same configuration (`vscode` and `copilot-cli` are `copilot`: one hook file serves
   * all three).
   */
  readonly aliases?: readonly string[];
  readonly displayName: string;
  /** Scopes the agent has configuration for (`project` first when both: the default of `init`). */
  readonly scopes: readonly Scope[];
  readonly detect: (ctx: AgentContext) => Detection;
  /** The edits for `scope` (only one of `scopes`); pure. Uninstall, dry-run and doctor use the same plan. */
  readonly plan: (ctx: AgentContext, scope: Scope) => AgentPlan;
  /**
   * What still stops the client from routing in `scope` on this machine once the files are in place (its trust, its
   * sandbox), each as the one thing to do; empty or absent: it will route. Reads only (through `ctx.readText`).
   */
  readonly blockers?: (ctx: AgentContext, scope: Scope) => string[];
  /** What a person must know that stops routing in one mode of the client only, or only the MCP server (same form). */
  readonly cautions?: (ctx: AgentContext, scope: Scope) => string[];
  /** True when init gives the client the MCP server only (it applies no hook's rewrite): never "routed". */
  readonly mcpOnly?: boolean;
  /**
   * The agent names routed runs of this adapter are recorded with (doctor finds the last one by them); default `[id]`.
   */
  readonly recordsAs?: readonly string[];
  /** The hook half: the terminal tools of this agent the hook routes (none: another agent's route serves it). */
  readonly routes?: readonly ToolRoute[];
}

/** What the hook knows besides the event (src/core/reach/hookEvent.ts `decideHook`; the I/O is the command line's). */
export interface HookContext {
  /** Shell words that start the command line (`'/home/me/…/bin/bounded-evidence'`), already quoted. */
  readonly cli: string;
  /** The evidence storage to record into; undefined: answer nothing. */
  readonly storage: string | undefined;
  /** Also answer `permissionDecision: "allow"` (skips the agent's confirmation; off unless asked for). */
  readonly allow?: boolean;
  /** Record `PostToolUse` responses over `largeResultBytes` (off by default: the setting). */
  readonly recordPostToolUse?: boolean;
  /** The agent to record (`codex` for Codex's `Bash`); default: told by the event. */
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
    meta: { agent: string; sessionId: string | undefined; cwd: string | undefined; read?: string },
  ) => string;
  /** BOUNDED_EVIDENCE_STORAGE as the hook sees it (VS Code's terminals have the same). */
  readonly terminalStorage?: string;
  /** The hook's environment (the client's), for what a route looks up: PATH, a client's home. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The text of a file, or undefined (absent, unreadable): a client's own configuration. */
  readonly readText?: (file: string) => string | undefined;
  /** The absolute path of an executable on the hook's PATH, or undefined. */
  readonly which?: (program: string) => string | undefined;
  /**
   * The command line of the process that started the hook (the client: `/proc/<ppid>/cmdline`), or undefined where it
   * cannot be read: flags a client gives no hook any other way (the Copilot CLI's `--allow-all-tools`).
   */
  readonly clientArgs?: () => readonly string[] | undefined;
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
 * What the agent's permission rules say about routing one command: leave it as written (`route: false`, why), or
 * route it, answering `allow` (the agent would otherwise ask, or ignore the rewrite) with an optional reason shown
 * beside it.
 */
type Permit =
  | { readonly route: false; readonly reason: string }
  | { readonly route: true; readonly allow?: boolean; readonly reason?: string };

/**
 * One terminal tool the hook routes, as one client sends it: the hook half of an adapter. The hook routes the first
 * route whose `event` and `tool` the event names (routes with `claims` tried first), reads the command from `input`,
 * and answers with `render`. Adding an agent whose events fit none of the existing routes means adding one here.
 */
export interface ToolRoute {
  /** The client's name of its before-tool event (`PreToolUse`, `BeforeTool`, `preToolUse`). */
  readonly event: string;
  /** The terminal tool's name in that event (`Bash`, `run_shell_command`, `run_in_terminal`, `bash`). */
  readonly tool: string;
  /** The agent routed runs are recorded as (unless the hook is started with `--agent`). */
  readonly agent: string;
  /**
   * A JSON fragment of the raw event the shim's prefilter looks for before it starts Node (no `'`, no white space):
   * an event without any route's fragment is answered by sh alone.
   */
  readonly prefilter: string;
  /** The event's name when the client sends none (the Copilot CLI tells its events by their shape). */
  readonly eventName?: (event: Record<string, unknown>) => string | undefined;
  /** A narrower test, tried before routes without one: Codex's `Bash` event against Claude Code's. */
  readonly claims?: (event: Record<string, unknown>) => boolean;
  /** The tool's arguments (default `tool_input`), or why there are none. */
  readonly input?: (event: Record<string, unknown>) => Record<string, unknown> | string;
  /** Why this client's command stays as written whatever it is (VS Code's terminal in fish), or undefined. */
  readonly refuse?: (ctx: HookContext) => string | undefined;
  /** Written before the group on the command's first line (rewrite.ts `WrapInputs.lead`). */
  readonly lead?: string;
  /** A one-line form that runs the wrapped script from the spool (VS Code's terminal), or undefined. */
  readonly oneLine?: (spool: string, ctx: HookContext) => string | undefined;
  /** The person's rules for `command`, applied to the command as written (absent: route it, `allow` as the flag). */
  readonly permit?: (command: string, event: Record<string, unknown>, ctx: HookContext) => Permit;
  /** The answer that makes the client run `updated` (its whole arguments, the command replaced). */
  readonly render: (
    updated: Record<string, unknown>,
    a: { readonly allow: boolean; readonly reason?: string },
  ) => Record<string, unknown>;
  /**
   * How the model reads a handle when this client offers no `read_tool_output` (no MCP server registered): shell words
   * for its own shell (common.ts `shellRead`); undefined: it has the tool.
   */
  readonly readWith?: (ctx: HookContext) => string | undefined;
  /** The client's after-tool event, whose large responses the hook records when asked. */
  readonly after?: string;
  /** True when an after-tool event is this client's (recorded as `agent`); tried in the same order as `claims`. */
  readonly recordsAfter?: (event: Record<string, unknown>) => boolean;
}
