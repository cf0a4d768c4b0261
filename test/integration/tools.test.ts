import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { RunStore } from '../../src/core/index.js';
import { buildLogCommand, bytesOf, CLIENT_ID, evidenceApi, invoke, reference, sh, workspaceDir } from './helpers.js';

/** Model-facing sizes measured for the 5 MB case, printed at the end for the closing note. */
const measured: [string, number][] = [];

function modelSize(tool: string, text: string): number {
  const n = bytesOf(text);
  measured.push([tool, n]);
  assert.ok(n < 8192, `${tool}: ${n} bytes is not under 8 KiB`);
  return n;
}

/** `{...}` after a one-line prefix (the contract's observation and range replies). */
function jsonAfterPrefix(text: string, prefix: string): Record<string, unknown> {
  assert.ok(text.startsWith(prefix), `expected "${prefix.trim()}", got: ${text.slice(0, 120)}`);
  const body = text.slice(prefix.length).split('\n')[0]!;
  return JSON.parse(body) as Record<string, unknown>;
}

function waitFor(predicate: () => boolean, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const tick = (): void => {
      if (predicate()) resolve(true);
      else if (Date.now() - t0 > ms) resolve(false);
      else setTimeout(tick, 50);
    };
    tick();
  });
}

/** True while the process exists and is not a zombie (an exited child nobody reaped yet). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

describe('language model tools, invoked through vscode.lm.invokeTool', () => {
  const bigFile = 'logs/big-build.log';
  let stdoutHandle = '';
  let fileBytes: Buffer;

  before(async () => {
    await evidenceApi();
    const ref = reference(buildLogCommand(64000), workspaceDir());
    fileBytes = ref.stdout;
    const target = path.join(workspaceDir(), bigFile);
    await vscode.workspace.fs.createDirectory(vscode.Uri.file(path.dirname(target)));
    writeFileSync(target, fileBytes);
  });

  after(() => {
    console.log('model-facing sizes for a 5 MB output (bytes of the one text part):');
    for (const [tool, n] of measured) console.log(`  ${tool}: ${n}`);
  });

  it('registers the four tools under their fixed names', () => {
    const names = vscode.lm.tools.map((t) => t.name);
    for (const n of ['evidence_runCommand', 'evidence_readFile', 'read_tool_output', 'evidence_invokeTool'])
      assert.ok(names.includes(n), n);
    const run = vscode.lm.tools.find((t) => t.name === 'evidence_runCommand')!;
    assert.deepEqual(Object.keys((run.inputSchema as { properties: object }).properties), [
      'command',
      'cwd',
      'timeoutMs',
    ]);
  });

  it('evidence_runCommand: a 5 MB build log becomes a bounded observation with stream handles', async () => {
    const command = buildLogCommand(64000);
    const text = await invoke('evidence_runCommand', { command });
    modelSize('evidence_runCommand', text);
    assert.ok(fileBytes.length >= 5_000_000, `output is ${fileBytes.length} bytes`);
    assert.match(text, /exit code 1/);
    assert.ok(text.includes(String(fileBytes.length)), 'the observation states the full stdout size');
    // Error first (docs/contracts.md §2.13): the error line in the middle is in the first view, whole, with its
    // line number and the byte offset of its match (the TypeScript rule matches from the line's start).
    const errorAt = fileBytes.indexOf('src/ledger/reconcile.ts');
    const errorLine = fileBytes.subarray(errorAt, fileBytes.indexOf(10, errorAt)).toString('utf8');
    assert.ok(text.includes(`. Error lines (1 of 1):\nline 32001, byte ${errorAt}: ${errorLine}\nPreview:\n`), text);
    stdoutHandle = /stdout: [^\n]*?handle (out_[a-z2-7]{26})/.exec(text)?.[1] ?? '';
    assert.ok(stdoutHandle, 'a stdout handle is given');
  });

  it('read_tool_output: pattern, line window and byte window by handle, each under 8 KiB', async () => {
    const found = JSON.parse(await invoke('read_tool_output', { handle: stdoutHandle, pattern: 'error TS\\d+' })) as {
      total_matches: number;
      matches: { line_number: number }[];
      content: string;
    };
    assert.equal(found.total_matches, 1);
    assert.equal(found.matches[0]!.line_number, 32001);
    assert.match(found.content, /^32001:src\/ledger\/reconcile\.ts/);
    // The default window (200 lines of ~110 bytes) would exceed 8 KiB: it is shrunk, and says so.
    const text = await invoke('read_tool_output', { handle: stdoutHandle });
    modelSize('read_tool_output', text);
    const lines = JSON.parse(text) as {
      returned_lines: number;
      truncated: boolean;
      total_lines: number;
      content: string;
    };
    assert.equal(lines.total_lines, 64000);
    assert.equal(lines.truncated, true);
    assert.ok(lines.returned_lines > 0 && lines.returned_lines < 200);
    assert.equal(lines.content, fileBytes.toString('utf8').split('\n').slice(0, lines.returned_lines).join('\n'));
    const bytes = JSON.parse(
      await invoke('read_tool_output', { handle: stdoutHandle, bytes: { start: 1000, end: 2000 } }),
    ) as { content: string };
    assert.equal(bytes.content, fileBytes.subarray(1000, 2000).toString('utf8'));
    assert.equal(
      await invoke('read_tool_output', { handle: stdoutHandle, bytes: { start: 0, end: 4097 } }),
      'error: artifact range exceeds 4096 bytes',
    );
  });

  it('evidence_readFile: a 5 MB file is an observation; its advertised range and any exact range read back the bytes', async () => {
    const text = await invoke('evidence_readFile', { path: bigFile });
    modelSize('evidence_readFile', text);
    const obs = jsonAfterPrefix(text, 'Tool result externalized:\n');
    assert.equal(obs.byte_count, fileBytes.length);
    assert.equal(obs.sha256, createHash('sha256').update(fileBytes).digest('hex'));
    assert.equal(obs.artifact_id, `artifact-${obs.sha256 as string}`);
    const request = obs.range_request as { path: string; tool: string };
    const advertised = jsonAfterPrefix(await invoke('evidence_readFile', { path: request.path }), 'Artifact range:\n');
    assert.equal(advertised.data, fileBytes.subarray(0, advertised.end as number).toString('utf8'));
    const errorAt = fileBytes.indexOf('src/ledger/reconcile.ts');
    const range = jsonAfterPrefix(
      await invoke('evidence_readFile', {
        path: `.tool-artifacts/${obs.artifact_id as string}/bytes/${errorAt}-${errorAt + 100}`,
      }),
      'Artifact range:\n',
    );
    assert.equal(range.data, fileBytes.subarray(errorAt, errorAt + 100).toString('utf8'));
    // The same file is searchable by handle too (the hint names it).
    const hinted = /read_tool_output \{"handle":"(res_[^"]+)"\}/.exec(text)?.[1];
    assert.ok(hinted, 'the observation names a handle');
    const found = JSON.parse(await invoke('read_tool_output', { handle: hinted, pattern: 'error TS2345' })) as {
      total_matches: number;
    };
    assert.equal(found.total_matches, 1);
  });

  it('evidence_readFile: contract errors come back as short error results', async () => {
    assert.equal(
      await invoke('evidence_readFile', { path: '.tool-artifacts/nonsense' }),
      'error: artifact range path is malformed',
    );
    assert.equal(
      await invoke('evidence_readFile', { path: `.tool-artifacts/artifact-${'0'.repeat(64)}/bytes/0-10` }),
      'error: artifact is not available in this store',
    );
    assert.match(await invoke('evidence_readFile', { path: '../outside.txt' }), /^error: /);
    assert.equal(
      await invoke('evidence_readFile', { path: 'README.txt' }),
      readFileSync(path.join(workspaceDir(), 'README.txt'), 'utf8'),
    );
  });

  it("evidence_invokeTool: a 5 MB result of another extension's tool becomes bounded and readable by handle", async () => {
    const client = await vscode.extensions.getExtension<{ bigText(n: number): string }>(CLIENT_ID)!.activate();
    const text = await invoke('evidence_invokeTool', { name: 'fixture_bigResult', input: { bytes: 5_000_000 } });
    modelSize('evidence_invokeTool', text);
    const handle = /res_[A-Za-z0-9._-]*[A-Za-z0-9_-]/.exec(text)?.[0];
    assert.ok(handle, `a result handle: ${text.slice(0, 300)}`);
    const found = JSON.parse(await invoke('read_tool_output', { handle, pattern: '^ERROR' })) as {
      total_matches: number;
      content: string;
    };
    assert.equal(found.total_matches, 1);
    const expected = client.bigText(5_000_000);
    const line = expected.split('\n').findIndex((l) => l.startsWith('ERROR')) + 1;
    assert.equal(found.content, `${line}:${expected.split('\n')[line - 1]}`);
  });

  it('evidence_invokeTool refuses itself, the evidence tools and unknown tools', async () => {
    for (const name of ['evidence_invokeTool', 'evidence_runCommand', 'read_tool_output', 'evidence_readFile']) {
      assert.match(
        await invoke('evidence_invokeTool', { name, input: {} }),
        /^error: evidence_invokeTool does not invoke the evidence tools/,
      );
    }
    assert.match(
      await invoke('evidence_invokeTool', { name: 'no_such_tool_here', input: {} }),
      /^error: no tool named "no_such_tool_here" is registered/,
    );
  });

  it('refuses forged and cross-workspace handles as access denied, naming nothing', async () => {
    const denied = 'error: access denied: unknown or expired handle';
    for (const handle of [
      'res_forged',
      'out_forged_stdout',
      '../../etc/passwd',
      'res_../../x',
      `${stdoutHandle}x`,
      'r'.repeat(256),
    ]) {
      assert.equal(await invoke('read_tool_output', { handle }), denied, handle);
    }
    // A handle minted under another workspace's tenant (another storage, same kind of store).
    const dir = mkdtempSync(path.join(os.tmpdir(), 'be-other-'));
    try {
      const other = await RunStore.open({ logsDir: dir, tenant: 'wOtherWorkspace' });
      const run = await other.startRun();
      const outcome = await run.recordResult('x', {}, 'y'.repeat(100_000));
      await run.finish();
      assert.ok(outcome.handle);
      const reply = await invoke('read_tool_output', { handle: outcome.handle });
      assert.equal(reply, denied);
      assert.ok(!reply.includes(outcome.handle));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('evidence_runCommand asks for confirmation, showing the exact command', async () => {
    const { EvidenceLanguageModelTool } = await import('../../src/extension/tools/evidenceTool.js');
    const { EditorToolHooks } = await import('../../src/extension/tools/editorHooks.js');
    const { EvidenceToolTable } = await import('../../src/core/index.js');
    const tool = new EvidenceLanguageModelTool(
      EvidenceToolTable.evidence_runCommand,
      {} as never,
      EditorToolHooks.evidence_runCommand,
    );
    const command = 'echo ```; rm -rf "$HOME/nothing"';
    const prepared = tool.prepareInvocation({ input: { command, cwd: 'logs' } });
    assert.ok(prepared.confirmationMessages, 'confirmation requested');
    assert.equal(prepared.confirmationMessages.title, 'Run command?');
    const message = prepared.confirmationMessages.message as vscode.MarkdownString;
    assert.ok(message.value.includes(`\`\`\`\`sh\n${command}\n\`\`\`\``), message.value);
    assert.match(message.value, /\(`logs`\)/);
  });

  it('evidence_runCommand refuses every cwd outside the rules with the one sentence the MCP server also gives', async () => {
    const { CWD_REFUSED } = await import('../../src/core/index.js');
    const ws = workspaceDir();
    const outside = mkdtempSync(path.join(os.tmpdir(), 'be-cwd-out-'));
    mkdirSync(path.join(ws, '.git', 'hooks'), { recursive: true });
    symlinkSync(outside, path.join(ws, 'cwd-out-link'));
    symlinkSync(path.join(ws, '.git'), path.join(ws, 'cwd-git-link'));
    try {
      for (const cwd of [
        '.git',
        '.git/hooks',
        '..',
        'logs/../..',
        outside,
        path.join(ws, 'logs'),
        'cwd-out-link',
        'cwd-git-link',
        'cwd-git-link/hooks',
      ]) {
        assert.equal(await invoke('evidence_runCommand', { command: 'pwd', cwd }), CWD_REFUSED, cwd);
      }
      assert.equal(
        await invoke('evidence_runCommand', { command: 'pwd', cwd: 'no-such-folder' }),
        'error: cwd is not a folder in the workspace',
      );
      const inside = await invoke('evidence_runCommand', { command: 'pwd', cwd: 'logs' });
      assert.ok(inside.startsWith('$ pwd\nexit code 0\n') && inside.includes(`${realpathSync(ws)}/logs\n`), inside);
    } finally {
      rmSync(path.join(ws, 'cwd-out-link'));
      rmSync(path.join(ws, 'cwd-git-link'));
      rmSync(path.join(ws, '.git'), { recursive: true, force: true });
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('cancellation kills the whole process tree of a long command', async function () {
    this.timeout(60_000);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'be-cancel-'));
    const pids = path.join(dir, 'pids');
    const source = new vscode.CancellationTokenSource();
    // A shell with a background grandchild and a foreground child, both long-lived.
    const command = `sleep 300 & echo $! > ${sh(pids)}; echo $$ >> ${sh(pids)}; sleep 301`;
    const call = invoke('evidence_runCommand', { command }, source.token).then(
      () => 'resolved',
      (e: unknown) => (e instanceof Error ? e.name : String(e)),
    );
    assert.ok(
      await waitFor(() => existsSync(pids) && readFileSync(pids, 'utf8').trim().split('\n').length === 2, 10_000),
      'the command started',
    );
    const [grandchild, shell] = readFileSync(pids, 'utf8').trim().split('\n').map(Number) as [number, number];
    assert.ok(alive(grandchild) && alive(shell));
    source.cancel();
    const outcome = await call;
    assert.ok(/Cancel/i.test(outcome), `invocation ends as cancelled: ${outcome}`);
    // The command sleeps 300 s: an answer that says cancelled, with both processes gone, is the cancellation's.
    assert.ok(await waitFor(() => !alive(grandchild) && !alive(shell), 20_000), 'both processes are gone');
    rmSync(dir, { recursive: true, force: true });
  });
});
