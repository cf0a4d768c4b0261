/**
 * Kilo Code (src/core/reach/agents/kilo.ts): opencode's plugin, shared (src/core/reach/agents/toolPlugin.ts), under
 * Kilo's own mark and `--agent kilo`; the project's plugin in `.bounded-evidence/`, named from `kilo.json` (or the
 * person's `kilo.jsonc`); the user's in `~/.config/kilo/plugin/`; a byte-identical uninstall. The real Kilo 7.7.9 runs
 * it in test/agents/kilo.test.ts.
 */
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { agentNamed } from '../../../../src/core/reach/agents/index.js';
import { runInit } from '../../../../src/core/reach/agents/init.js';
import { kilo, KILO_PLUGIN_MARK } from '../../../../src/core/reach/agents/kilo.js';
import { opencodePluginText, PLUGIN_MARK } from '../../../../src/core/reach/agents/opencode.js';
import { toolPluginText } from '../../../../src/core/reach/agents/toolPlugin.js';
import type { AgentContext, ConfigEdit } from '../../../../src/core/reach/agents/types.js';
import { agentContext } from './agentContext.js';

const HOOK = `'/opt/be/bin/bounded-evidence' hook --agent kilo`;
const ctx = (over: Partial<AgentContext> = {}): AgentContext => agentContext(HOOK, over);
const json = (e: ConfigEdit | undefined) => e as Extract<ConfigEdit, { kind: 'json' }>;
const file = (e: ConfigEdit | undefined) => e as Extract<ConfigEdit, { kind: 'file' }>;

describe('Kilo Code: init plan', () => {
  it('the project: the plugin under .bounded-evidence/, named by a relative path in kilo.json, and the MCP server there', () => {
    const { edits } = kilo.plan(ctx(), 'project');
    assert.deepEqual(
      edits.map((e) => e.file),
      [
        '/home/dev/project/.bounded-evidence/kilo-plugin.js',
        '/home/dev/project/kilo.json',
        '/home/dev/project/kilo.json',
      ],
    );
    assert.equal(file(edits[0]).text, toolPluginText(HOOK, 'Kilo Code'));
    assert.ok(file(edits[0]).text.startsWith(`${KILO_PLUGIN_MARK}\n`));
    assert.equal(file(edits[0]).ours(`${KILO_PLUGIN_MARK}\nold version`), true);
    // opencode's file is opencode's: each agent removes only its own.
    assert.equal(file(edits[0]).ours(opencodePluginText(HOOK)), false);
    assert.deepEqual(
      [json(edits[1]).path, json(edits[1]).value],
      [['plugin', -1], './.bounded-evidence/kilo-plugin.js'],
    );
    assert.equal(json(edits[1]).ours('kilo-wakatime'), false);
    assert.deepEqual(
      [json(edits[2]).path, json(edits[2]).value],
      [
        ['mcp', 'bounded-evidence'],
        { type: 'local', command: ['sh', '-c', 'exec bounded-evidence mcp'], enabled: true },
      ],
    );
    assert.equal(json(edits[2]).ours({ type: 'local', command: ['npx', 'other-server'] }), false);
  });

  it("the person's kilo.jsonc when there is one; for the user, ~/.config/kilo (XDG_CONFIG_HOME honoured)", () => {
    const jsonc = kilo.plan(ctx({ exists: (f) => f === '/home/dev/project/kilo.jsonc' }), 'project').edits;
    assert.deepEqual(
      jsonc.slice(1).map((e) => e.file),
      ['/home/dev/project/kilo.jsonc', '/home/dev/project/kilo.jsonc'],
    );
    const user = kilo.plan(ctx({ env: { XDG_CONFIG_HOME: '/home/dev/.cfg' } }), 'global').edits;
    assert.deepEqual(
      user.map((e) => e.file),
      ['/home/dev/.cfg/kilo/plugin/bounded-evidence.js', '/home/dev/.cfg/kilo/kilo.json'],
    );
  });

  it('without a known storage: the plugin alone, and a note saying the MCP server is not registered', () => {
    const { edits, notes } = kilo.plan(ctx({ mcpServer: () => undefined }), 'project');
    assert.equal(edits.length, 2);
    assert.match(notes![0]!, /^MCP not registered/);
  });

  it('is found by its names; opencode keeps its plugin bytes (the shared code, its own mark)', () => {
    assert.equal(agentNamed('kilo-code'), kilo);
    assert.equal(agentNamed('Kilo'), kilo);
    assert.equal(kilo.vscodeExtension, 'kilocode.kilo-code');
    assert.equal(opencodePluginText(HOOK), toolPluginText(HOOK, 'opencode'));
    assert.ok(opencodePluginText(HOOK).startsWith(PLUGIN_MARK));
  });

  it("init then uninstall gives back the person's kilo.jsonc byte for byte and removes the plugin", async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'be-kilo-unit-'));
    try {
      const project = path.join(root, 'project');
      mkdirSync(project);
      const config = path.join(project, 'kilo.jsonc');
      const mine = '{\n  // mine\n  "plugin": ["kilo-wakatime"],\n}\n';
      writeFileSync(config, mine);
      const c = ctx({
        home: path.join(root, 'home'),
        project,
        stateDir: path.join(root, 'state'),
        exists: (f) => existsSync(f),
        readText: (f) => (existsSync(f) ? readFileSync(f, 'utf8') : undefined),
      });
      const [done] = await runInit(c, { agents: [kilo], scope: 'project' });
      assert.deepEqual(
        done!.files.map((f) => [path.relative(project, f.file), f.action]),
        [
          ['.bounded-evidence/kilo-plugin.js', 'created'],
          ['kilo.jsonc', 'updated'],
        ],
      );
      assert.match(readFileSync(config, 'utf8'), /"kilo-wakatime",\s*"\.\/\.bounded-evidence\/kilo-plugin\.js"/);
      const [again] = await runInit(c, { agents: [kilo], scope: 'project' });
      assert.deepEqual(
        again!.files.map((f) => f.action),
        ['unchanged', 'unchanged'],
      );
      await runInit(c, { agents: [kilo], scope: 'project', uninstall: true });
      assert.equal(readFileSync(config, 'utf8'), mine);
      assert.deepEqual(readdirSync(project), ['kilo.jsonc']);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
