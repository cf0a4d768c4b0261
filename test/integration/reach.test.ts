/**
 * Reach in the real extension host (docs/architecture.md, "Reach: command line and
 * hooks"): the command line's variables in a new integrated terminal, the routing
 * commands writing exactly their file and removing only it, the user-level variant
 * merging into existing settings, the MCP server definition the provider serves, and
 * handles crossing between the command line and the editor both ways.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { workspaceHookFileText } from '../../src/core/reach/hookConfig.js';
import { copilotHookFileText } from '../../src/core/reach/agents/copilot.js';
import { portableHookCommand } from '../../src/core/reach/agents/context.js';
import { editorContext, initPicks } from '../../src/extension/reach/initAgents.js';
import { evidenceApi, invoke, sh, workspaceDir } from './helpers.js';

/** What init's command (and the older routing commands, its aliases) return. */
interface InitResult {
  agent: string;
  scope: string;
  files: { file: string; action: string }[];
  error?: string;
}

/** Polls until `fn` returns a value (the machine is loaded: generous). */
async function until<T>(what: string, fn: () => T | undefined | Promise<T | undefined>, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('Reach: command line, routing and the tools VS Code is given', function () {
  this.timeout(240_000);
  let shim: string;
  let storage: string;

  before(async () => {
    await evidenceApi();
    // The route command waits for the command line's environment to be installed; call it once to know it is.
    const r = await vscode.commands.executeCommand<InitResult[]>('boundedEvidence.stopRouting', { confirm: false });
    assert.deepEqual(
      r.map((o) => o.error),
      [undefined],
    );
    shim = process.env.BOUNDED_EVIDENCE_CLI!;
    storage = process.env.BOUNDED_EVIDENCE_STORAGE!;
  });

  it('installs an executable shim and sets both variables in a new integrated terminal', async () => {
    const ext = vscode.extensions.getExtension('bounded-evidence.bounded-evidence')!;
    assert.ok(shim.endsWith(path.join('bounded-evidence.bounded-evidence', 'bin', 'bounded-evidence')), shim);
    assert.ok((statSync(shim).mode & 0o111) !== 0);
    // The workspace storage, the same folder Copy MCP Server Configuration names.
    const copied = JSON.parse(await vscode.commands.executeCommand<string>('boundedEvidence.copyMcpConfig')) as {
      mcpServers: Record<string, { args: string[] }>;
    };
    assert.equal(storage, copied.mcpServers['bounded-evidence']!.args[2]);
    const out = path.join(mkdtempSync(path.join(os.tmpdir(), 'be-term-')), 'env.txt');
    const terminal = vscode.window.createTerminal({
      name: 'reach env',
      shellPath: '/bin/sh',
      shellArgs: [
        '-c',
        `printf '%s\\n%s\\n' "$BOUNDED_EVIDENCE_STORAGE" "$BOUNDED_EVIDENCE_CLI" > ${sh(out)}.tmp && mv ${sh(out)}.tmp ${sh(out)}`,
      ],
    });
    try {
      const text = await until('the terminal to write its environment', () =>
        existsSync(out) ? readFileSync(out, 'utf8') : undefined,
      );
      assert.equal(text, `${storage}\n${shim}\n`);
    } finally {
      terminal.dispose();
    }
    assert.equal(ext.isActive, true);
  });

  it("Route Agent Terminals (deprecated, hidden from the palette) is init's GitHub Copilot row for this folder: it writes the Copilot CLI format file; Stop Routing removes only it", async () => {
    const dir = path.join(workspaceDir(), '.github', 'hooks');
    const file = path.join(dir, 'bounded-evidence.json');
    const other = path.join(dir, 'team.json');
    mkdirSync(dir, { recursive: true });
    writeFileSync(other, '{"hooks":{"PreToolUse":[{"type":"command","command":"audit"}]}}\n');
    try {
      const r = await vscode.commands.executeCommand<InitResult[]>('boundedEvidence.routeAgentTerminals', {
        confirm: false,
      });
      assert.deepEqual(r, [{ agent: 'copilot', scope: 'project', files: [{ file, action: 'created' }] }]);
      assert.equal(readFileSync(file, 'utf8'), copilotHookFileText(portableHookCommand(undefined)));
      const again = await vscode.commands.executeCommand<InitResult[]>('boundedEvidence.routeAgentTerminals', {
        confirm: false,
      });
      assert.deepEqual(again[0]!.files, [{ file, action: 'unchanged' }]);
      const stop = await vscode.commands.executeCommand<InitResult[]>('boundedEvidence.stopRouting', {
        confirm: false,
      });
      assert.deepEqual(stop, [{ agent: 'copilot', scope: 'project', files: [{ file, action: 'deleted' }] }]);
      assert.equal(existsSync(file), false);
      assert.equal(readFileSync(other, 'utf8'), '{"hooks":{"PreToolUse":[{"type":"command","command":"audit"}]}}\n');
    } finally {
      rmSync(path.join(workspaceDir(), '.github'), { recursive: true, force: true });
    }
  });

  it('a hook file the older commands wrote (VS Code format) keeps routing until init replaces it, and Stop Routing Agents… removes it', async () => {
    const file = path.join(workspaceDir(), '.github', 'hooks', 'bounded-evidence.json');
    mkdirSync(path.dirname(file), { recursive: true });
    const old = workspaceHookFileText(`${sh(shim)} hook --storage ${sh(storage)}`);
    try {
      // Recognised as ours: doctor says routed through it, and Stop Routing Agents… (no journal entry: semantic) deletes it.
      writeFileSync(file, old);
      const stop = await vscode.commands.executeCommand<InitResult[]>('boundedEvidence.uninstallAgents', {
        picks: ['copilot:project'],
      });
      assert.deepEqual(stop, [{ agent: 'copilot', scope: 'project', files: [{ file, action: 'deleted' }] }]);
      // The folders it leaves empty go with it.
      assert.equal(existsSync(path.dirname(file)), false);
      // Init over it: the file becomes the Copilot CLI format one (the person's routing stays on, in the new format).
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, old);
      const r = await vscode.commands.executeCommand<InitResult[]>('boundedEvidence.initAgents', {
        picks: ['copilot:project'],
      });
      assert.deepEqual(r[0]!.files, [{ file, action: 'updated' }]);
      assert.equal(readFileSync(file, 'utf8'), copilotHookFileText(portableHookCommand(undefined)));
    } finally {
      await vscode.commands.executeCommand('boundedEvidence.uninstallAgents', { picks: ['copilot:project'] });
      rmSync(path.join(workspaceDir(), '.github'), { recursive: true, force: true });
    }
  });

  it("the user-level variant (deprecated) is init's GitHub Copilot and Claude Code rows for every folder: merged into the person's ~/.claude/settings.json, then every byte given back", async () => {
    const home = mkdtempSync(path.join(os.tmpdir(), 'be-home-'));
    const claude = path.join(home, '.claude', 'settings.json');
    mkdirSync(path.dirname(claude));
    const mine = JSON.stringify({
      model: 'opus',
      hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'audit-bash' }] }] },
    });
    writeFileSync(claude, mine);
    try {
      const r = await vscode.commands.executeCommand<InitResult[]>('boundedEvidence.routeAgentTerminalsForUser', {
        confirm: false,
        home,
      });
      const copilot = path.join(home, '.copilot', 'hooks', 'bounded-evidence.json');
      assert.deepEqual(
        r.map((o) => [o.agent, o.scope, o.error]),
        [
          ['copilot', 'global', undefined],
          ['claude', 'global', undefined],
        ],
      );
      assert.deepEqual(
        r[0]!.files.map((f) => [f.file, f.action]),
        [
          [copilot, 'created'],
          [path.join(home, '.copilot', 'mcp-config.json'), 'created'],
        ],
      );
      assert.deepEqual(r[1]!.files.find((f) => f.file === claude)?.action, 'updated');
      assert.equal(readFileSync(copilot, 'utf8'), copilotHookFileText(portableHookCommand(undefined)));
      const groups = (JSON.parse(readFileSync(claude, 'utf8')) as { hooks: { PreToolUse: { matcher: string }[] } })
        .hooks.PreToolUse;
      assert.deepEqual(
        groups.map((g) => g.matcher),
        ['Bash', 'Bash'],
        "the person's group, then ours",
      );
      const stop = await vscode.commands.executeCommand<InitResult[]>('boundedEvidence.stopRoutingForUser', {
        confirm: false,
        home,
      });
      assert.deepEqual(
        stop.map((o) => o.error),
        [undefined, undefined],
      );
      assert.equal(readFileSync(claude, 'utf8'), mine);
      assert.equal(existsSync(copilot), false);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('Route Agents Through Evidence… runs init from the editor: the quick pick says what each choice writes; Stop Routing Agents… gives back every byte', async () => {
    const home = mkdtempSync(path.join(os.tmpdir(), 'be-init-home-'));
    const claude = path.join(home, '.claude', 'settings.json');
    mkdirSync(path.dirname(claude));
    const mine = "{\n  // not JSON: Claude Code's settings take no comments\n}";
    const theirs =
      '{\n    "model": "opus",\n    "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "audit-bash"}]}]}\n}\n';
    writeFileSync(claude, theirs);
    const hookFile = path.join(workspaceDir(), '.github', 'hooks', 'bounded-evidence.json');
    try {
      // What the quick pick offers, from the same plan the command then runs.
      const picks = await initPicks(editorContext(workspaceDir(), home), false);
      // Every agent of init's table in both scopes, each saying what it writes; the first two exactly.
      assert.deepEqual(
        picks.map((p) => `${p.agent.id}:${p.scope}`),
        [
          'claude',
          'copilot',
          'codex',
          'gemini',
          'opencode',
          'qwen',
          'droid',
          'cline',
          'cline-vscode',
          'kilo',
          'roo',
          'auggie',
        ]
          .flatMap((a) => [`${a}:project`, `${a}:global`])
          .concat(['cursor:project']),
      );
      // An agent that is an installed VS Code extension says so, and is ticked for this folder.
      const inEditor = await initPicks(editorContext(workspaceDir(), home), false, undefined, (id) =>
        ['kilocode.kilo-code', 'saoudrizwan.claude-dev'].includes(id),
      );
      assert.deepEqual(
        inEditor.filter((p) => ['kilo', 'cline-vscode'].includes(p.agent.id)).map((p) => [p.description, p.picked]),
        [
          ['this folder · installed in this editor (saoudrizwan.claude-dev)', true],
          ['every folder (user) · installed in this editor (saoudrizwan.claude-dev)', false],
          ['this folder · installed in this editor (kilocode.kilo-code)', true],
          ['every folder (user) · installed in this editor (kilocode.kilo-code)', false],
        ],
      );
      assert.ok(
        picks.every((p) => (p.detail ?? '').startsWith('writes ') && (p.detail ?? '').includes('(created)')),
        JSON.stringify(picks.map((p) => p.detail)),
      );
      assert.deepEqual(
        picks.slice(0, 4).map((p) => [p.agent.id, p.scope, p.detail]),
        [
          ['claude', 'project', 'writes .claude/settings.json (created), .mcp.json (created)'],
          ['claude', 'global', 'writes ~/.claude/settings.json (updated), ~/.claude.json (created)'],
          ['copilot', 'project', 'writes .github/hooks/bounded-evidence.json (created)'],
          [
            'copilot',
            'global',
            'writes ~/.copilot/hooks/bounded-evidence.json (created), ~/.copilot/mcp-config.json (created)',
          ],
        ],
      );
      const r = await vscode.commands.executeCommand<
        { agent: string; scope: string; files: { file: string; action: string }[]; error?: string }[]
      >('boundedEvidence.initAgents', { picks: ['claude:global', 'copilot:project'], home });
      assert.deepEqual(
        r.map((o) => [o.agent, o.scope, o.files.map((f) => f.action), o.error]),
        [
          ['claude', 'global', ['updated', 'created'], undefined],
          ['copilot', 'project', ['created'], undefined],
        ],
      );
      assert.deepEqual(JSON.parse(readFileSync(hookFile, 'utf8')), {
        version: 1,
        hooks: { preToolUse: [{ type: 'command', bash: portableHookCommand(undefined), timeoutSec: 15 }] },
      });
      const claudeDoc = JSON.parse(readFileSync(claude, 'utf8')) as { model: string; hooks: { PreToolUse: unknown[] } };
      assert.deepEqual(claudeDoc.hooks.PreToolUse[1], {
        matcher: 'Bash',
        hooks: [{ type: 'command', command: portableHookCommand('claude'), timeout: 15 }],
      });
      const off = await vscode.commands.executeCommand<{ files: { action: string }[] }[]>(
        'boundedEvidence.uninstallAgents',
        { picks: ['claude:global', 'copilot:project'], home },
      );
      assert.deepEqual(
        off.map((o) => o.files.map((f) => f.action)),
        [['restored', 'deleted'], ['deleted']],
      );
      assert.equal(readFileSync(claude, 'utf8'), theirs);
      assert.equal(existsSync(path.join(home, '.claude.json')), false);
      assert.equal(existsSync(hookFile), false);
      // A settings file that cannot be merged into is left as it was and said so.
      writeFileSync(claude, mine);
      const bad = await vscode.commands.executeCommand<{ error?: string }[]>('boundedEvidence.initAgents', {
        picks: ['claude:global'],
        home,
      });
      assert.equal(bad[0]!.error, `${claude} is not valid JSON: it was left unchanged`);
      assert.equal(readFileSync(claude, 'utf8'), mine);
    } finally {
      rmSync(home, { recursive: true, force: true });
      rmSync(path.join(workspaceDir(), '.github'), { recursive: true, force: true });
    }
  });

  it('a handle minted by the command line reads in the editor, and one minted in the editor reads by the command line, with the same text', async () => {
    const cli = spawnSync(shim, ['capture', '--shell', `seq 1 30000; echo 'ERROR: disk full at step 7'; seq 1 30000`], {
      cwd: workspaceDir(),
      encoding: 'utf8',
      env: process.env,
    });
    assert.equal(cli.status, 0, cli.stderr);
    const cliHandle = /stdout: [^\n]*?handle (out_[a-z2-7]{26})/.exec(cli.stdout)![1]!;
    const inEditor = await invoke('read_tool_output', { handle: cliHandle, pattern: 'ERROR' });
    assert.deepEqual(
      (JSON.parse(inEditor) as { matches: unknown[]; content: string }).content,
      '30001:ERROR: disk full at step 7',
    );
    const cliRead = spawnSync(shim, ['read', cliHandle, '--pattern', 'ERROR'], { encoding: 'utf8', env: process.env });
    assert.equal(cliRead.stdout, `${inEditor}\n`);

    const editorText = await invoke('evidence_runCommand', { command: 'seq 1 40000' });
    const editorHandle = /stdout: [^\n]*?handle (out_[a-z2-7]{26})/.exec(editorText)![1]!;
    const byCli = spawnSync(shim, ['read', editorHandle, '--offset', '38999', '--limit', '2'], {
      encoding: 'utf8',
      env: process.env,
    });
    assert.equal(byCli.status, 0, byCli.stderr);
    assert.equal(
      byCli.stdout,
      `${await invoke('read_tool_output', { handle: editorHandle, offset: 38999, limit: 2 })}\n`,
    );
    assert.equal((JSON.parse(byCli.stdout) as { content: string }).content, '39000\n39001');
    const listed = spawnSync(shim, ['list', '--json'], { encoding: 'utf8', env: process.env });
    const runs = JSON.parse(listed.stdout) as { source?: { kind: string } }[];
    assert.ok(runs.some((r) => r.source?.kind === 'cli'));
  });

  it('registers no MCP server with VS Code: every harness of the editor gets each evidence tool once, as a language-model tool', () => {
    // With both, the default agent (Local harness) was offered the tools twice (5 language-model tools +
    // 4 `mcp_bounded_evide_*` copies), and the Copilot harness gets both too: it takes the language-model tools of
    // every enabled tool set as client tools, and an extension's tools form one such set (docs/architecture.md §2.4).
    const ext = vscode.extensions.getExtension('bounded-evidence.bounded-evidence')!;
    const contributes = (ext.packageJSON as { contributes: Record<string, unknown> }).contributes;
    assert.equal(contributes.mcpServerDefinitionProviders, undefined);
    assert.equal(
      contributes.languageModelToolSets,
      undefined,
      'no tool set of our own: VS Code then puts all our tools in one set of the extension',
    );
    const names = vscode.lm.tools.map((t) => t.name);
    for (const name of [
      'evidence_runCommand',
      'evidence_readFile',
      'read_tool_output',
      'evidence_invokeTool',
      'evidence_search',
    ]) {
      assert.equal(names.filter((n) => n === name).length, 1, `${name} once in ${names.join(', ')}`);
    }
    assert.deepEqual(
      names.filter((n) => /bounded_evide|mcp_bounded/.test(n)),
      [],
    );
  });
});
