/**
 * `bounded-evidence init` and `doctor` (src/cli/init.ts) in the process on a temporary HOME and project: the
 * detected agents are routed with one line each naming the files and the undo command, a second run changes
 * nothing, a dry run writes nothing and prints the files, doctor shows the routing, the hook and the storage,
 * and `--uninstall` gives back every byte; bad flags are usage errors (exit 2).
 */
import * as assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCli } from '../../../src/cli/main.js';
import type { CliIo } from '../../../src/cli/io.js';
import { PORTABLE_MCP_SERVER, portableHookCommand } from '../../../src/core/reach/agents/context.js';
import { AGENTS } from '../../../src/core/reach/agents/index.js';

const SELF = ['/usr/bin/node', '/opt/be/dist/cli.js'];

function collect(cwd: string, env: NodeJS.ProcessEnv): CliIo & { stdout: string; stderr: string } {
  const io = {
    stdout: '',
    stderr: '',
    cwd,
    env,
    async out(t: string) {
      io.stdout += t;
    },
    err(t: string) {
      io.stderr += t;
    },
    async tee() {
      /* not used */
    },
    async readStdin() {
      return '';
    },
    onInterrupt() {
      /* not used */
    },
    offInterrupt() {
      /* not used */
    },
  };
  return io;
}

describe('command line: init and doctor', () => {
  let root: string;
  let home: string;
  let project: string;
  let bin: string;
  let storage: string;
  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'be-cli-init-'));
    home = path.join(root, 'home');
    project = path.join(root, 'project');
    bin = path.join(root, 'bin');
    storage = path.join(root, 'storage');
    for (const d of [home, project, bin, storage]) mkdirSync(d, { recursive: true });
    // Claude Code "installed": an executable named claude on PATH.
    writeFileSync(path.join(bin, 'claude'), '#!/bin/sh\n');
    chmodSync(path.join(bin, 'claude'), 0o755);
    // The command line installed too, where the portable hook looks for it.
    writeFileSync(path.join(bin, 'bounded-evidence'), '#!/bin/sh\n');
    chmodSync(path.join(bin, 'bounded-evidence'), 0o755);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));
  const env = (): NodeJS.ProcessEnv => ({ HOME: home, PATH: bin, BOUNDED_EVIDENCE_STORAGE: storage });
  const run = async (...argv: string[]): Promise<{ code: number; out: string; err: string }> => {
    const io = collect(project, env());
    const code = await runCli(argv, io, SELF);
    return { code, out: io.stdout, err: io.stderr };
  };

  it('init --help names every agent of the adapter table, with its other names', async () => {
    const help = await run('init', '--help');
    assert.equal(help.code, 0, help.err);
    for (const a of AGENTS)
      for (const name of [a.id, ...(a.aliases ?? [])])
        assert.match(help.out, new RegExp(`\\b${name}\\b`), `--help names ${name}`);
    assert.match(help.out, /^ {2}codex +Codex$/m);
  });

  it('routes the detected agent, says how to undo, is idempotent, and uninstall gives back every byte', async () => {
    const settings = path.join(project, '.claude', 'settings.json');
    mkdirSync(path.dirname(settings));
    const mine = '{\n  "permissions": { "allow": ["Bash(npm test)"] }\n}\n';
    writeFileSync(settings, mine);
    const first = await run('init');
    assert.equal(first.code, 0, first.err);
    assert.equal(
      first.out.split('\n')[0],
      `Claude Code [claude, project]: .claude/settings.json updated, .mcp.json created; routed; undo: bounded-evidence init --uninstall --agent claude --project`,
    );
    assert.match(first.out, /note: Claude Code defers MCP tools behind ToolSearch/);
    const hook = portableHookCommand('claude');
    assert.deepEqual(JSON.parse(readFileSync(settings, 'utf8')), {
      permissions: { allow: ['Bash(npm test)'] },
      hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: hook, timeout: 15 }] }] },
    });
    assert.deepEqual(JSON.parse(readFileSync(path.join(project, '.mcp.json'), 'utf8')), {
      mcpServers: {
        'bounded-evidence': { type: 'stdio', ...PORTABLE_MCP_SERVER },
      },
    });
    const second = await run('init');
    assert.equal(
      second.out.split('\n')[0],
      'Claude Code [claude, project]: nothing changed; routed; undo: bounded-evidence init --uninstall --agent claude --project',
    );
    const doc = await run('doctor');
    assert.equal(doc.code, 0);
    assert.ok(
      doc.out.includes(
        `Claude Code [claude]: detected: claude on PATH (${path.join(bin, 'claude')})\n  project: routed (.claude/settings.json ok, .mcp.json ok)\n    Claude Code routes only what would not ask: bypassPermissions mode, or commands an allow rule of its settings files or --allowedTools covers (e.g. "Bash(npm test:*)"); others, and those allowed during a session (invisible to a hook), run as written\n    Claude Code asks once before it starts .mcp.json's bounded-evidence server: approve it (or add "enabledMcpjsonServers": ["bounded-evidence"] to .claude/settings.local.json); routed commands work without it\n  global: off (~/.claude/settings.json missing, ~/.claude.json missing)\n  last routed command: none in this storage`,
      ),
      doc.out,
    );
    const off = await run('init', '--uninstall', '--agent', 'claude');
    assert.equal(off.code, 0);
    assert.equal(
      off.out,
      'Claude Code [claude, project]: .claude/settings.json restored, .mcp.json deleted; routing off\n',
    );
    assert.equal(readFileSync(settings, 'utf8'), mine);
    assert.equal(existsSync(path.join(project, '.mcp.json')), false);
  });

  it("--dry-run writes nothing and prints each file; --agent picks an agent not detected; --global writes the user's files", async () => {
    const dry = await run('init', '--agent', 'vscode', '--dry-run');
    assert.equal(dry.code, 0);
    assert.equal(existsSync(path.join(project, '.github')), false);
    assert.ok(
      dry.out.startsWith(
        'GitHub Copilot (VS Code agent: Local and Copilot harness; Copilot CLI) [copilot, project]: .github/hooks/bounded-evidence.json would be created; would be routed (not detected: no copilot or code on PATH and no ~/.copilot); undo: bounded-evidence init --uninstall --agent copilot --project\n  .github/hooks/bounded-evidence.json would contain:\n    {\n      "version": 1,',
      ),
      dry.out,
    );
    const global = await run('init', '--agent', 'copilot-cli', '--global');
    assert.equal(global.code, 0, global.out);
    assert.deepEqual(JSON.parse(readFileSync(path.join(home, '.copilot', 'hooks', 'bounded-evidence.json'), 'utf8')), {
      version: 1,
      hooks: { preToolUse: [{ type: 'command', bash: portableHookCommand(undefined), timeoutSec: 15 }] },
    });
    assert.deepEqual(
      JSON.parse(readFileSync(path.join(home, '.copilot', 'mcp-config.json'), 'utf8')).mcpServers['bounded-evidence']
        .type,
      'local',
    );
    await run('init', '--uninstall', '--global');
    assert.equal(existsSync(path.join(home, '.copilot', 'hooks', 'bounded-evidence.json')), false);
    assert.equal(existsSync(path.join(home, '.copilot', 'mcp-config.json')), false);
  });

  it('an agent whose file cannot be merged into: exit 1, the sentence, nothing written; bad flags: exit 2', async () => {
    mkdirSync(path.join(project, '.claude'));
    writeFileSync(path.join(project, '.claude', 'settings.json'), '{ not json');
    const r = await run('init', '--agent', 'claude');
    assert.equal(r.code, 1);
    assert.equal(
      r.out.split('\n')[0],
      `Claude Code [claude, project]: not changed: ${path.join(project, '.claude', 'settings.json')} is not valid JSON: it was left unchanged`,
    );
    assert.equal(existsSync(path.join(project, '.mcp.json')), false);
    assert.deepEqual(await run('init', '--agent', 'emacs'), {
      code: 2,
      out: '',
      err:
        'bounded-evidence init: unknown agent "emacs" (known: claude/claude-code, copilot/vscode/copilot-cli, codex, gemini/gemini-cli, opencode, qwen/qwen-code, droid/factory-droid, cline/cline-cli, cline-vscode/cline-extension/claude-dev, ' +
        'kilo/kilo-code/kilocode, roo/roo-code/roocode, auggie/augment, cursor)\n',
    });
    assert.equal((await run('init', '--global', '--project')).code, 2);
    assert.equal((await run('init', '--bogus')).code, 2);
  });
});
