/**
 * The one-file plugin of the clients built on opencode (opencode, Kilo Code; docs/contracts.md §6.2): its
 * `tool.execute.before` asks the same hook as a command hook would, and its `experimental.chat.messages.transform`
 * shows the model the command it wrote. It imports only `child_process`.
 */

import { isOurMcpEntry, MCP_NAME } from './common.js';
import type { ConfigEdit } from './types.js';

/** The first line, which finds ours in any version. */
export function pluginMark(client: string): string {
  return (
    `// bounded-evidence: routes ${client}'s bash tool through the evidence store ` +
    '(bounded-evidence init wrote this file).'
  );
}

/** Any failure leaves the command as written: a hook must never break the agent. */
export function toolPluginText(hookCommand: string, client: string): string {
  return (
    `${pluginMark(client)}
// No dependencies: only Node's child_process, which opencode's runtime provides.
import { execFileSync } from "node:child_process";

const HOOK = ${JSON.stringify(hookCommand)};
// The command as the model wrote it, per call: what its model is shown again in every later request.
const written = new Map();
// A routed command's own text (src/core/reach/rewrite.ts), for calls from before this process started.
const ROUTED = new RegExp(
  "^(?:[^\\\\n]*? watch [^\\\\n]*? \\\\$\\\\?; )?" +
    "\\\\{ ([^]*)(?: ; |\\\\n)\\\\} 8>>'[^']*'/1\\\\.\\\\$\\\\$ 9>>'[^']*'/2 " +
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

/** The MCP server in their configuration: `mcp.<name>`, its command and arguments one array. */
export function localMcpEdit(file: string, mcp: { command: string; args: readonly string[] }): ConfigEdit {
  return {
    kind: 'json',
    file,
    comments: true,
    path: ['mcp', MCP_NAME],
    value: { type: 'local', command: [mcp.command, ...mcp.args], enabled: true },
    ours: (v) =>
      isRecord(v) && Array.isArray(v.command) && isOurMcpEntry({ command: v.command[0], args: v.command.slice(1) }),
  };
}
