/**
 * `init` / `--uninstall` / `--dry-run` / `doctor` over the agent adapters (src/core/reach/agents/): every byte of
 * a person's configuration comes back after init then uninstall (fast-check, on arbitrary user configs with their own
 * hooks, formatting and — where the agent allows it — JSONC comments), a file init created is removed again, a second
 * init changes nothing, a dry run writes nothing, a file that cannot be merged into is left alone with a sentence,
 * and a file the person changed after init loses only our entries.
 */
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { parse as parseJsonc } from 'jsonc-parser';
import { applyToText, applyUndo, removeFromText, tomlBlock } from '../../../../src/core/reach/agents/engine.js';
import { describeOutcome, doctorRows, runInit } from '../../../../src/core/reach/agents/init.js';
import { AGENTS, agentNamed } from '../../../../src/core/reach/agents/index.js';
import { isOurHookEntry, isOurMcpEntry, TOML_MARKER } from '../../../../src/core/reach/agents/common.js';
import type { AgentContext, ConfigEdit, Scope } from '../../../../src/core/reach/agents/types.js';

const SHIM = '/home/me/.config/Code/User/globalStorage/bounded-evidence.bounded-evidence/bin/bounded-evidence';

function context(root: string, overrides: Partial<AgentContext> = {}): AgentContext {
  const home = path.join(root, 'home');
  const project = path.join(root, 'project');
  mkdirSync(home, { recursive: true });
  mkdirSync(project, { recursive: true });
  return {
    home,
    project,
    stateDir: path.join(home, '.local', 'state', 'bounded-evidence'),
    env: {},
    exists: (f) => existsSync(f),
    // The command line is installed (the portable hook finds it): the verdicts below are the clients' own.
    which: (p) => (p === 'bounded-evidence' ? '/usr/local/bin/bounded-evidence' : undefined),
    readText: (f) => (existsSync(f) ? readFileSync(f, 'utf8') : undefined),
    hookCommand: (agent: string | undefined, scope: Scope) =>
      [
        `'${SHIM}'`,
        'hook',
        ...(agent ? ['--agent', agent] : []),
        ...(scope === 'project' ? ['--storage', `'${root}/storage'`] : []),
      ].join(' '),
    mcpServer: () => ({ command: SHIM, args: ['mcp', '--storage', `${root}/storage`] }),
    ...overrides,
  };
}

/** Every file under `dir` with its bytes (the journal's state folder left out). */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (p.includes(`${path.sep}.local${path.sep}state`)) continue;
      if (e.isDirectory()) walk(p);
      else out[path.relative(dir, p)] = readFileSync(p, 'latin1');
    }
  };
  walk(dir);
  return out;
}

const jsonc = (file: string, pathArg: (string | -1)[], value: unknown): ConfigEdit => ({
  kind: 'json',
  file,
  comments: true,
  path: pathArg,
  value,
  ours: (v) => JSON.stringify(v) === JSON.stringify(value) || isOurHookEntry(v) || isOurMcpEntry(v),
});

/** A person's JSON object, formatted in one of the ways people and tools write it, maybe with comments. */
const userText = (comments: boolean): fc.Arbitrary<string> =>
  fc
    .record({
      value: fc.dictionary(
        fc
          .string({ minLength: 1, maxLength: 8 })
          .filter((k) => k !== 'hooks' && k !== 'mcpServers' && k !== '__proto__'),
        fc.jsonValue({ maxDepth: 2 }),
        { maxKeys: 4 },
      ),
      hooks: fc.option(
        fc.array(
          fc.record({
            matcher: fc.constantFrom('Bash', 'Edit', '*'),
            hooks: fc.constant([{ type: 'command', command: '/usr/local/bin/audit' }]),
          }),
          { maxLength: 2 },
        ),
        { nil: undefined },
      ),
      servers: fc.option(
        fc.dictionary(
          fc.constantFrom('github', 'db', 'bounded'),
          fc.record({
            command: fc.constantFrom('npx', 'uvx'),
            args: fc.array(fc.string({ maxLength: 5 }), { maxLength: 2 }),
          }),
          { maxKeys: 2 },
        ),
        { nil: undefined },
      ),
      indent: fc.constantFrom(0, 2, 4, '\t'),
      eol: fc.constantFrom('\n', '\r\n'),
      finalNewline: fc.boolean(),
      comment: fc.boolean(),
    })
    .map((r) => {
      const doc: Record<string, unknown> = { ...r.value };
      if (r.hooks) doc.hooks = { PreToolUse: r.hooks };
      if (r.servers) doc.mcpServers = r.servers;
      let t = JSON.stringify(doc, null, r.indent === 0 ? undefined : r.indent);
      if (comments && r.comment) t = t.replace(/^\{/, '{ // my settings\n  /* keep me */');
      t = t.replace(/\n/g, r.eol);
      return r.finalNewline ? t + r.eol : t;
    });

/** The agents with a configuration in `scope` (Cursor has none of the user's). */
const inScope = (scope: 'project' | 'global') => AGENTS.filter((a) => a.scopes.includes(scope));

describe('agent init engine', () => {
  it('init then undo gives back every byte of any user config (JSON and JSONC, their own hooks and servers), and a second init changes nothing', () => {
    const file = '/x/settings.json';
    const hook = {
      matcher: 'Bash',
      hooks: [{ type: 'command', command: `'${SHIM}' hook --agent claude`, timeout: 15 }],
    };
    const server = { type: 'stdio', command: SHIM, args: ['mcp', '--storage', '/st'] };
    fc.assert(
      fc.property(
        fc.boolean().chain((c) => fc.tuple(fc.constant(c), userText(c))),
        ([comments, text]) => {
          const edits: ConfigEdit[] = [
            { ...jsonc(file, ['hooks', 'PreToolUse', -1], hook), comments } as ConfigEdit,
            { ...jsonc(file, ['mcpServers', 'bounded-evidence'], server), comments } as ConfigEdit,
          ];
          const r = applyToText(text, edits);
          assert.ok(r.ok, r.ok ? '' : r.error);
          assert.equal(r.changed, true);
          const doc = parseJsonc(r.text!, [], { allowTrailingComma: true }) as {
            hooks: { PreToolUse: unknown[] };
            mcpServers: Record<string, unknown>;
          };
          assert.deepEqual(doc.hooks.PreToolUse.at(-1), hook);
          assert.deepEqual(doc.mcpServers['bounded-evidence'], server);
          if (comments && text.includes('keep me')) assert.ok(r.text!.includes('/* keep me */'));
          assert.equal(applyUndo(r.text!, r.undo), text);
          const again = applyToText(r.text, edits);
          assert.ok(again.ok);
          assert.equal(again.changed, false);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("semantic removal (the file changed since init): our entries and the containers they alone filled go, everything of the person's stays (property)", () => {
    const file = '/x/settings.json';
    const hook = {
      matcher: 'Bash',
      hooks: [{ type: 'command', command: `'${SHIM}' hook --agent claude`, timeout: 15 }],
    };
    const server = { type: 'stdio', command: SHIM, args: ['mcp', '--storage', '/st'] };
    const edits: ConfigEdit[] = [
      jsonc(file, ['hooks', 'PreToolUse', -1], hook),
      jsonc(file, ['mcpServers', 'bounded-evidence'], server),
    ];
    fc.assert(
      fc.property(userText(true), (text) => {
        const original = parseJsonc(text, [], { allowTrailingComma: true }) as Record<string, unknown>;
        // An empty container of the person's on our path is dropped with ours (said in contracts §6.2): not this property's case.
        const hooks = original.hooks as { PreToolUse?: unknown[] } | undefined;
        fc.pre(
          !(hooks && hooks.PreToolUse?.length === 0) &&
            !(original.mcpServers && Object.keys(original.mcpServers).length === 0),
        );
        const r = applyToText(text, edits);
        assert.ok(r.ok);
        // The person edits the file afterwards (init's journal no longer matches).
        const changed = r.text!.replace(/\}\s*$/, ', "theirs": true }');
        const removed = removeFromText(changed, edits, false);
        assert.ok(removed.ok, removed.ok ? '' : removed.error);
        assert.deepEqual(parseJsonc(removed.text!, [], { allowTrailingComma: true }), { ...original, theirs: true });
      }),
      { numRuns: 200 },
    );
  });

  it("keeps the person's formatting of what it does not change: a compact file gets only our member and item added, and loses only them again", () => {
    const file = '/x/settings.json';
    const hook = { matcher: 'Bash', hooks: [{ type: 'command', command: `'${SHIM}' hook --agent claude` }] };
    const server = { type: 'stdio', command: SHIM, args: ['mcp'] };
    const edits: ConfigEdit[] = [
      jsonc(file, ['hooks', 'PreToolUse', -1], hook),
      jsonc(file, ['mcpServers', 'bounded-evidence'], server),
    ];
    const mine =
      '{"permissions":{"allow":["Bash(npm test)"]},"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"/usr/local/bin/audit"}]}]}}\n';
    // The same, laid out over lines with compact entries of the person's on them.
    const lined =
      '{\n  "permissions": {"allow": ["Bash(npm test)"]},\n  "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": []}]}\n}\n';
    for (const text of [mine, lined]) {
      const r = applyToText(text, edits);
      assert.ok(r.ok, r.ok ? '' : r.error);
      assert.equal(r.changed, true);
      // Only insertions: undoing them removes bytes and gives back none, so every byte of the person's is in place.
      assert.ok(
        r.undo.every((u) => u.content === ''),
        `only inserted, in: ${r.text}`,
      );
      assert.equal(applyUndo(r.text!, r.undo), text);
      const doc = parseJsonc(r.text!) as { hooks: { PreToolUse: unknown[] }; mcpServers: Record<string, unknown> };
      assert.deepEqual(doc.hooks.PreToolUse.at(-1), hook);
      assert.deepEqual(doc.mcpServers['bounded-evidence'], server);
    }
    // One line stays one line.
    const once = applyToText(mine, edits);
    assert.ok(once.ok);
    assert.equal(once.text!.split('\n').length, 2);
    // Changed by the person since (no journal): removal takes exactly our bytes out of the compact text.
    const changed = once.text!.replace('{', '{"theirs":true,');
    const removed = removeFromText(changed, edits, false);
    assert.ok(removed.ok);
    assert.equal(removed.text, mine.replace('{', '{"theirs":true,'));
  });

  it('a missing file is created with a final newline and its undo is the empty text (the runner deletes it)', () => {
    const r = applyToText(undefined, [
      jsonc('/x/.mcp.json', ['mcpServers', 'bounded-evidence'], { command: SHIM, args: ['mcp'] }),
    ]);
    assert.ok(r.ok);
    assert.equal(
      r.text,
      `{\n  "mcpServers": {\n    "bounded-evidence": {\n      "command": ${JSON.stringify(SHIM)},\n      "args": [\n        "mcp"\n      ]\n    }\n  }\n}\n`,
    );
    assert.equal(applyUndo(r.text!, r.undo), '');
  });

  it('leaves alone, with a sentence, a file that is not JSON, a container of the wrong type, and a member of the same name that is not ours', () => {
    const e = (p: (string | -1)[]): ConfigEdit => ({
      kind: 'json',
      file: 'settings.json',
      comments: false,
      path: p,
      value: { command: SHIM, args: ['mcp'] },
      ours: isOurMcpEntry,
    });
    assert.deepEqual(applyToText('{ "a": 1, // no comments here\n}', [e(['mcpServers', 'x'])]), {
      ok: false,
      error: 'settings.json is not valid JSON: it was left unchanged',
    });
    assert.deepEqual(applyToText('[1]', [e(['mcpServers', 'x'])]), {
      ok: false,
      error: 'settings.json is not a JSON object: it was left unchanged',
    });
    assert.deepEqual(applyToText('{"hooks": {"PreToolUse": {}}}', [e(['hooks', 'PreToolUse', -1])]), {
      ok: false,
      error: 'settings.json: "hooks.PreToolUse" is not a list: it was left unchanged',
    });
    assert.deepEqual(applyToText('{"mcpServers": {"x": {"command": "npx"}}}', [e(['mcpServers', 'x'])]), {
      ok: false,
      error: 'settings.json already has a "mcpServers.x" of its own: it was left unchanged',
    });
  });

  it('replaces our older entry (another install path) instead of adding a second', () => {
    const old = { type: 'command', command: `'/old/bin/bounded-evidence' hook`, timeout: 15 };
    const now = { type: 'command', command: `'${SHIM}' hook`, timeout: 15 };
    const text = JSON.stringify({ hooks: { PreToolUse: [{ type: 'command', command: 'mine' }, old] } }, null, 2);
    const r = applyToText(text, [
      { kind: 'json', file: 'f', comments: false, path: ['hooks', 'PreToolUse', -1], value: now, ours: isOurHookEntry },
    ]);
    assert.ok(r.ok);
    assert.deepEqual(JSON.parse(r.text!), { hooks: { PreToolUse: [{ type: 'command', command: 'mine' }, now] } });
    assert.equal(applyUndo(r.text!, r.undo), text);
  });

  it("TOML: appends a marked table, keeps the person's text and comments, undoes exactly, refuses a table of the same name that is not ours", () => {
    const edit: ConfigEdit = {
      kind: 'toml',
      file: 'config.toml',
      table: ['mcp_servers', 'bounded_evidence'],
      value: { command: SHIM, args: ['mcp'] },
    };
    fc.assert(
      fc.property(
        fc.constantFrom(
          '',
          'model = "o3"',
          '# my config\nmodel = "o3"\n\n[mcp_servers.github]\ncommand = "npx"\n',
          'a = 1\r\n',
        ),
        (text) => {
          const r = applyToText(text, [edit]);
          assert.ok(r.ok, r.ok ? '' : r.error);
          assert.ok(r.text!.startsWith(text));
          assert.ok(r.text!.endsWith(tomlBlock(edit.table, edit.value)));
          assert.equal(applyUndo(r.text!, r.undo), text);
          const again = applyToText(r.text, [edit]);
          assert.ok(again.ok && !again.changed);
        },
      ),
    );
    assert.deepEqual(applyToText('[mcp_servers.bounded_evidence]\ncommand = "mine"\n', [edit]), {
      ok: false,
      error: 'config.toml already has a [mcp_servers.bounded_evidence] of its own: it was left unchanged',
    });
  });

  it("TOML, two blocks of ours in one file (Codex's user config.toml): after the person wrote their own tables and comments between and after them, removal takes both blocks and gives back exactly the person's text", () => {
    const trust: ConfigEdit = {
      kind: 'toml',
      file: 'config.toml',
      table: ['hooks', 'state', '/home/me/.codex/hooks.json:pre_tool_use:1:0'],
      value: { trusted_hash: 'sha256:00ff' },
    };
    const mcp: ConfigEdit = {
      kind: 'toml',
      file: 'config.toml',
      table: ['mcp_servers', 'bounded-evidence'],
      value: { command: SHIM, args: ['mcp'], enabled_tools: ['read_tool_output'], env: { A: '1' } },
    };
    const mine =
      '# my config\nmodel = "o3"\n\n[hooks.state."/home/me/.codex/hooks.json:pre_tool_use:0:0"]\ntrusted_hash = "sha256:mine"\n';
    // Between our blocks: a comment and a table of the person's; after them: a table whose name starts like ours.
    const between = "# the person's own table, written after init\n[tui]\nnotifications = true\n\n";
    const after = '\n[mcp_servers.bounded-evidence-old]\ncommand = "npx"\n\n[profiles.fast]\nmodel = "o4-mini"\n';
    fc.assert(
      fc.property(fc.constantFrom(mine, mine.replace(/\n/g, '\r\n'), ''), fc.boolean(), (original, crlf) => {
        const r = applyToText(original, [trust, mcp]);
        assert.ok(r.ok && r.changed, r.ok ? '' : r.error);
        assert.equal(r.text!.split(TOML_MARKER).length - 1, 2, 'two marked blocks');
        assert.ok(r.text!.includes('[mcp_servers.bounded-evidence.env]'), 'our block has a table below it');
        // Untouched: the journal's exact undo.
        assert.equal(applyUndo(r.text!, r.undo), original);
        const eol = (t: string): string => (crlf ? t.replace(/\n/g, '\r\n') : t);
        const second = r.text!.indexOf(TOML_MARKER, r.text!.indexOf(TOML_MARKER) + 1);
        const edited = r.text!.slice(0, second - 1) + eol(between) + r.text!.slice(second - 1) + eol(after);
        // Changed since init: the semantic removal, which must find the second block too.
        const removed = removeFromText(edited, [trust, mcp], false);
        assert.ok(removed.ok);
        assert.equal(removed.text, original + eol(between) + eol(after));
        assert.ok(!removed.text!.includes(TOML_MARKER));
        // And init on the edited file again finds its own blocks (no third one, nothing of the person's replaced).
        const again = applyToText(edited, [trust, mcp]);
        assert.ok(again.ok && !again.changed);
      }),
    );
  });
});

describe('init, uninstall, dry run and doctor (files on disk)', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'be-init-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('every agent, both scopes: init then uninstall leaves every byte as it was, created files removed; init twice changes nothing', async () => {
    const ctx = context(root);
    // The person's own settings, hooks and servers in the files init merges into.
    const claudeUser =
      '{\n    "model": "opus",\n    "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "/usr/local/bin/audit-bash"}]}]}\n}';
    mkdirSync(path.join(ctx.home, '.claude'), { recursive: true });
    writeFileSync(path.join(ctx.home, '.claude', 'settings.json'), claudeUser);
    writeFileSync(
      path.join(ctx.home, '.claude.json'),
      '{"numStartups":3,"mcpServers":{"github":{"command":"npx","args":["gh-mcp"]}}}',
    );
    mkdirSync(path.join(ctx.project!, '.claude'), { recursive: true });
    writeFileSync(
      path.join(ctx.project!, '.claude', 'settings.json'),
      '{\r\n\t"permissions": {"allow": ["Bash(npm test)"]}\r\n}\r\n',
    );
    const before = snapshot(root);
    for (const scope of ['project', 'global'] as const) {
      const first = await runInit(ctx, { agents: inScope(scope), scope });
      assert.deepEqual(
        first.map((o) => o.error),
        inScope(scope).map(() => undefined),
      );
      assert.ok(first.every((o) => o.files.some((f) => f.action !== 'unchanged')));
      const second = await runInit(ctx, { agents: inScope(scope), scope });
      assert.deepEqual(
        second.flatMap((o) => o.files.map((f) => f.action)),
        second.flatMap((o) => o.files.map(() => 'unchanged')),
      );
    }
    const routed = await doctorRows(ctx, AGENTS);
    assert.deepEqual(
      routed.map((r) => [r.agent.id, r.scope, r.routed]),
      AGENTS.flatMap((a) => a.scopes.map((scope) => [a.id, scope, true])),
    );
    assert.equal(routed[0]!.files[0]!.hook, `'${SHIM}' hook --agent claude --storage '${root}/storage'`);
    for (const scope of ['project', 'global'] as const) await runInit(ctx, { agents: AGENTS, scope, uninstall: true });
    assert.deepEqual(snapshot(root), before);
    assert.ok((await doctorRows(ctx, AGENTS)).every((r) => !r.routed));
  });

  it('uninstall removes the folders init created once they are empty, and the journal; never a folder that was there before or holds something else', async () => {
    const ctx = context(root);
    /** Every folder (with a trailing slash) and file under `dir`, the state folder included. */
    const tree = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true, recursive: true })
        .map((e) => path.relative(dir, path.join(e.parentPath, e.name)) + (e.isDirectory() ? '/' : ''))
        .sort();
    // The person's own folders: .github with a workflow, and an empty .claude.
    mkdirSync(path.join(ctx.project!, '.github', 'workflows'), { recursive: true });
    writeFileSync(path.join(ctx.project!, '.github', 'workflows', 'ci.yml'), 'on: push\n');
    mkdirSync(path.join(ctx.project!, '.claude'));
    const before = tree(root);
    for (const scope of ['project', 'global'] as const) await runInit(ctx, { agents: AGENTS, scope });
    const created = [
      path.join(ctx.project!, '.github', 'hooks'),
      path.join(ctx.project!, '.bounded-evidence'),
      path.join(ctx.home, '.config', 'opencode', 'plugin'),
      path.join(ctx.stateDir, 'init-journal.json'),
    ];
    for (const p of created) assert.ok(existsSync(p), p);
    for (const scope of ['project', 'global'] as const) await runInit(ctx, { agents: AGENTS, scope, uninstall: true });
    assert.deepEqual(tree(root), before);

    // A folder init created that the person put a file of their own into stays, with that file; the journal goes.
    await runInit(ctx, { agents: AGENTS, scope: 'project' });
    writeFileSync(path.join(ctx.project!, '.github', 'hooks', 'theirs.json'), '{}\n');
    await runInit(ctx, { agents: AGENTS, scope: 'project', uninstall: true });
    assert.deepEqual(tree(root), [...before, 'project/.github/hooks/', 'project/.github/hooks/theirs.json'].sort());
  });

  it('property, on disk: any user settings in every file init merges into come back byte for byte after init then uninstall', async () => {
    await fc.assert(
      fc.asyncProperty(
        userText(false),
        userText(false),
        userText(false),
        async (projectSettings, userSettings, claudeJson) => {
          const dir = mkdtempSync(path.join(os.tmpdir(), 'be-init-prop-'));
          try {
            const ctx = context(dir);
            mkdirSync(path.join(ctx.project!, '.claude'), { recursive: true });
            mkdirSync(path.join(ctx.home, '.claude'), { recursive: true });
            writeFileSync(path.join(ctx.project!, '.claude', 'settings.json'), projectSettings);
            writeFileSync(path.join(ctx.home, '.claude', 'settings.json'), userSettings);
            writeFileSync(path.join(ctx.home, '.claude.json'), claudeJson);
            const before = snapshot(dir);
            for (const scope of ['project', 'global'] as const) {
              const out = await runInit(ctx, { agents: inScope(scope), scope });
              assert.deepEqual(
                out.map((o) => o.error),
                inScope(scope).map(() => undefined),
              );
            }
            for (const scope of ['global', 'project'] as const)
              await runInit(ctx, { agents: AGENTS, scope, uninstall: true });
            assert.deepEqual(snapshot(dir), before);
          } finally {
            rmSync(dir, { recursive: true, force: true });
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it("with other tools' results kept: each agent's after-tool event is registered too, and uninstall still gives back every byte", async () => {
    const ctx = context(root, { recordOtherToolResults: true });
    mkdirSync(path.join(ctx.project!, '.claude'), { recursive: true });
    writeFileSync(
      path.join(ctx.project!, '.claude', 'settings.json'),
      '{"hooks": {"PostToolUse": [{"matcher": "Edit", "hooks": [{"type": "command", "command": "fmt"}]}]}}',
    );
    const before = snapshot(root);
    await runInit(ctx, { agents: AGENTS, scope: 'project' });
    const claude = JSON.parse(readFileSync(path.join(ctx.project!, '.claude', 'settings.json'), 'utf8')) as {
      hooks: { PostToolUse: { matcher: string }[] };
    };
    assert.deepEqual(
      claude.hooks.PostToolUse.map((g) => g.matcher),
      ['Edit', '*'],
    );
    const copilotFile = JSON.parse(
      readFileSync(path.join(ctx.project!, '.github', 'hooks', 'bounded-evidence.json'), 'utf8'),
    ) as { hooks: Record<string, unknown> };
    assert.deepEqual(Object.keys(copilotFile.hooks), ['preToolUse', 'postToolUse']);
    await runInit(ctx, { agents: AGENTS, scope: 'project', uninstall: true });
    assert.deepEqual(snapshot(root), before);
  });

  it('init again with another storage replaces our entry (no second one), and one uninstall still gives back the bytes before the first init', async () => {
    const first = context(root);
    const settings = path.join(first.project!, '.claude', 'settings.json');
    mkdirSync(path.dirname(settings), { recursive: true });
    writeFileSync(settings, '{ "model": "opus" }');
    const before = snapshot(root);
    await runInit(first, { agents: [agentNamed('claude')!], scope: 'project' });
    const second = context(root, {
      hookCommand: (agent) => `'${SHIM}' hook --agent ${agent} --storage '/elsewhere'`,
      mcpServer: () => ({ command: SHIM, args: ['mcp', '--storage', '/elsewhere'] }),
    });
    const again = await runInit(second, { agents: [agentNamed('claude')!], scope: 'project' });
    assert.deepEqual(
      again[0]!.files.map((f) => f.action),
      ['updated', 'updated'],
    );
    const doc = JSON.parse(readFileSync(settings, 'utf8')) as {
      hooks: { PreToolUse: { hooks: { command: string }[] }[] };
    };
    assert.deepEqual(
      doc.hooks.PreToolUse.map((g) => g.hooks[0]!.command),
      [`'${SHIM}' hook --agent claude --storage '/elsewhere'`],
    );
    await runInit(second, { agents: [agentNamed('claude')!], scope: 'project', uninstall: true });
    assert.deepEqual(snapshot(root), before);
  });

  it('a dry run writes nothing and says what each file would become', async () => {
    const ctx = context(root);
    const before = snapshot(root);
    const out = await runInit(ctx, { agents: AGENTS, scope: 'project', dryRun: true });
    assert.deepEqual(snapshot(root), before);
    assert.equal(existsSync(ctx.stateDir), false);
    const hookFile = out[1]!.files.find((f) => f.file.endsWith('.github/hooks/bounded-evidence.json'))!;
    assert.equal(hookFile.action, 'created');
    assert.deepEqual(JSON.parse(hookFile.text!), {
      version: 1,
      hooks: {
        preToolUse: [{ type: 'command', bash: `'${SHIM}' hook --storage '${root}/storage'`, timeoutSec: 15 }],
        postToolUse: [{ type: 'command', bash: `'${SHIM}' hook --storage '${root}/storage'`, timeoutSec: 15 }],
      },
    });
    assert.equal(
      describeOutcome(ctx, out[1]!, { dryRun: true }),
      'GitHub Copilot (VS Code agent: Local and Copilot harness; Copilot CLI) [copilot, project]: .github/hooks/bounded-evidence.json would be created; would be routed (not detected: no copilot or code on PATH and no ~/.copilot); undo: bounded-evidence init --uninstall --agent copilot --project',
    );
  });

  it('a file changed by the person after init loses only our entries on uninstall', async () => {
    const ctx = context(root);
    await runInit(ctx, { agents: [agentNamed('claude')!], scope: 'project' });
    const settings = path.join(ctx.project!, '.claude', 'settings.json');
    const doc = JSON.parse(readFileSync(settings, 'utf8')) as Record<string, unknown>;
    writeFileSync(settings, JSON.stringify({ ...doc, model: 'sonnet' }, null, 2));
    const out = await runInit(ctx, { agents: [agentNamed('claude')!], scope: 'project', uninstall: true });
    assert.equal(out[0]!.error, undefined);
    assert.deepEqual(JSON.parse(readFileSync(settings, 'utf8')), { model: 'sonnet' });
    assert.equal(existsSync(path.join(ctx.project!, '.mcp.json')), false);
  });

  it('an agent one of whose files cannot be merged into is left entirely unchanged, with the sentence', async () => {
    const ctx = context(root);
    mkdirSync(path.join(ctx.project!, '.claude'), { recursive: true });
    writeFileSync(path.join(ctx.project!, '.claude', 'settings.json'), '{ "hooks": [] }');
    const before = snapshot(root);
    const out = await runInit(ctx, { agents: [agentNamed('claude')!], scope: 'project' });
    assert.equal(
      out[0]!.error,
      `${path.join(ctx.project!, '.claude', 'settings.json')}: "hooks" is not an object: it was left unchanged`,
    );
    assert.deepEqual(snapshot(root), before);
    assert.match(describeOutcome(ctx, out[0]!, {}), /^Claude Code \[claude, project\]: not changed: /);
  });

  it("Codex, user scope, on disk: config.toml with the person's own tables around our two blocks, edited after init, comes back byte for byte without them; their hooks.json too", async () => {
    const ctx = context(root);
    const codexDir = path.join(ctx.home, '.codex');
    mkdirSync(codexDir, { recursive: true });
    const toml = path.join(codexDir, 'config.toml');
    const hooks = path.join(codexDir, 'hooks.json');
    const mine = '# my codex\nmodel = "o3"\n\n[mcp_servers.github]\ncommand = "npx"\nargs = ["-y", "@github/mcp"]\n';
    const myHooks =
      '{\n  "hooks": {\n    "PreToolUse": [\n      { "matcher": "Edit", "hooks": [{ "type": "command", "command": "/usr/local/bin/audit" }] }\n    ]\n  }\n}\n';
    writeFileSync(toml, mine);
    writeFileSync(hooks, myHooks);
    const out = await runInit(ctx, { agents: [agentNamed('codex')!], scope: 'global' });
    assert.equal(out[0]!.error, undefined);
    const written = readFileSync(toml, 'utf8');
    assert.equal(written.split(TOML_MARKER).length - 1, 2);
    // The trust key names our group's index among the person's hooks (readText): the second group, index 1.
    assert.ok(written.includes(`[hooks.state."${hooks}:pre_tool_use:1:0"]`), written);
    const second = written.indexOf(TOML_MARKER, written.indexOf(TOML_MARKER) + 1);
    const between = '# added by hand\n[tui]\nnotifications = true\n\n';
    const after = '\n[profiles.fast]\nmodel = "o4-mini"\n';
    writeFileSync(toml, written.slice(0, second - 1) + between + written.slice(second - 1) + after);
    const back = await runInit(ctx, { agents: [agentNamed('codex')!], scope: 'global', uninstall: true });
    assert.equal(back[0]!.error, undefined);
    assert.equal(readFileSync(toml, 'utf8'), mine + between + after);
    assert.equal(readFileSync(hooks, 'utf8'), myHooks);
  });

  it('names: vscode and copilot-cli are the copilot adapter', () => {
    assert.equal(agentNamed('vscode')?.id, 'copilot');
    assert.equal(agentNamed('Copilot-CLI')?.id, 'copilot');
    assert.equal(agentNamed('claude-code')?.id, 'claude');
    assert.equal(agentNamed('emacs'), undefined);
  });
});
