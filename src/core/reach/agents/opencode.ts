/**
 * opencode (docs/contracts.md §6.2): no command hooks, but a plugin's `tool.execute.before` may change a tool's
 * arguments; ours imports only `child_process` and asks the same hook. opencode installs a 64 MB package into every
 * config folder it reads a plugin from, so the project's plugin lives in `.bounded-evidence/`, outside those folders,
 * named from `opencode.json`.
 */
import * as path from 'node:path';
import { isOurMcpEntry, MCP_NAME } from './common.js';
import type { AgentAdapter, AgentContext, ConfigEdit } from './types.js';

export function opencodeConfigDir(ctx: Pick<AgentContext, 'env' | 'home'>): string {
  return path.join(ctx.env.XDG_CONFIG_HOME || path.join(ctx.home, '.config'), 'opencode');
}

const OPENCODE_PROJECT_PLUGIN = '.bounded-evidence/opencode-plugin.js';

/** Any version. */
export const PLUGIN_MARK =
  "// bounded-evidence: routes opencode's bash tool through the evidence store " +
  '(bounded-evidence init wrote this file).';

/** Any failure leaves the command as written: a hook must never break the agent. */
export function opencodePluginText(hookCommand: string): string {
  return (
    `${PLUGIN_MARK}
// No dependencies: only Node's child_process, which opencode's runtime provides.
import { execFileSync } from "node:child_process";

const HOOK = ${JSON.stringify(hookCommand)};
// The command as the model wrote it, per call: what its model is shown again in every later request.
const written = new Map();
// A routed command's own text (src/core/reach/rewrite.ts), for calls from before this process started.
const ROUTED = new RegExp(
  "^\\\\{ ([^]*)(?: ; |\\\\n)\\\\} 8>>'[^']*'/1\\\\.\\\\$\\\\$ 9>>'[^']*'/2 " +
    "1>&8 2>&9 8>&- 9>&-; .* keep '[^']*' \\\\$\\\\? \\\\d+$",
);

export const BoundedEvidence = async ({ directory }) => ({
  "tool.execute.before": async (input, output) => {
    if (input.tool !== "bash" || typeof output.args?.command !== "string") return;
    const event = { hook_event_name: "PreToolUse", tool_name: "Bash", session_id: input.sessionID, ` +
    `cwd: directory, tool_input: { command: output.args.command, timeout: output.args.timeout } };
    try {
      const answer = execFileSync("/bin/sh", ["-c", HOOK], { input: JSON.stringify(event), encoding: "utf8", ` +
    `timeout: 15000, stdio: ["pipe", "pipe", "ignore"] });
      const command = answer.trim() ? JSON.parse(answer).hookSpecificOutput?.updatedInput?.command : undefined;
      if (typeof command === "string") {
        written.set(input.callID, output.args.command);
        output.args.command = command;
      }
    } catch {
      // The hook failed or timed out: the command runs as written.
    }
  },
  // opencode keeps the arguments a call ran with; its model is shown the command it wrote instead.
  "experimental.chat.messages.transform": async (_input, output) => {
    for (const message of output.messages ?? []) {
      for (const part of message.parts ?? []) {
        const command = part.type === "tool" && part.tool === "bash" ? part.state?.input?.command : undefined;
        if (typeof command !== "string") continue;
        const original = written.get(part.callID) ?? ROUTED.exec(command)?.[1];
        if (original !== undefined) part.state = { ...part.state, input: { ...part.state.input, command: original } };
      }
    }
  },
});
`
  );
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export const opencode: AgentAdapter = {
  id: 'opencode',
  displayName: 'opencode',
  scopes: ['project', 'global'],
  detect: (ctx) => {
    const bin = ctx.which('opencode');
    if (bin) return { installed: true, because: `opencode on PATH (${bin})` };
    return ctx.exists(opencodeConfigDir(ctx))
      ? { installed: true, because: `${opencodeConfigDir(ctx)} exists` }
      : { installed: false, because: 'no opencode on PATH and no ~/.config/opencode' };
  },
  plan: (ctx, scope) => {
    const dir = opencodeConfigDir(ctx);
    const text = opencodePluginText(ctx.hookCommand('opencode', scope));
    const ours = (t: string): boolean => t.startsWith(PLUGIN_MARK);
    const edits: ConfigEdit[] = [];
    const configFile = scope === 'project' ? path.join(ctx.project!, 'opencode.json') : path.join(dir, 'opencode.json');
    if (scope === 'global') {
      edits.push({ kind: 'file', file: path.join(dir, 'plugin', 'bounded-evidence.js'), text, ours });
    } else {
      // Outside every folder opencode scans: committed with opencode.json, the same on every machine.
      edits.push({ kind: 'file', file: path.join(ctx.project!, OPENCODE_PROJECT_PLUGIN), text, ours });
      edits.push({
        kind: 'json',
        file: configFile,
        comments: true,
        path: ['plugin', -1],
        value: `./${OPENCODE_PROJECT_PLUGIN}`,
        // Also an older install's per-user entry: replaced, not doubled.
        ours: (v) =>
          typeof v === 'string' &&
          (v === `./${OPENCODE_PROJECT_PLUGIN}` || /\/plugin-files\/bounded-evidence-[A-Za-z0-9_-]+\.js$/.test(v)),
      });
    }
    const notes = [
      'opencode installs @opencode-ai/plugin (64 MB) into its own ~/.config/opencode ' +
        'once per version before the first session with a plugin; ' +
        'nothing is installed into the project.',
    ];
    const mcp = ctx.mcpServer(scope);
    if (mcp) {
      edits.push({
        kind: 'json',
        file: configFile,
        comments: true,
        path: ['mcp', MCP_NAME],
        value: { type: 'local', command: [mcp.command, ...mcp.args], enabled: true },
        ours: (v) =>
          isRecord(v) && Array.isArray(v.command) && isOurMcpEntry({ command: v.command[0], args: v.command.slice(1) }),
      });
    } else
      notes.unshift(
        'MCP not registered: no evidence storage is known (pass --storage or run init in a VS Code terminal).',
      );
    return { edits, notes };
  },
};
