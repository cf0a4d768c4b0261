/**
 * The MCP server (src/mcp) through a real MCP client: the SDK's `Client` over an
 * in-memory transport for most cases, and over stdio against `node --import tsx
 * src/mcp/main.ts` (a separate process) for the handshake and for handles crossing
 * processes. The "editor" here is the core's stores opened on the editor's own layout
 * (`layoutAt`/`tenantFor` from src/core/storageLayout.ts, which has no runtime vscode
 * import), as src/extension/services.ts opens them.
 */
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { InMemoryTransport } from '@modelcontextprotocol/client';
import {
  ArtifactStore,
  CWD_REFUSED,
  FsBlobStore,
  layoutAt,
  layoutOfFolder,
  readFitted,
  RunStore,
  TENANT_FILE,
  tenantFor,
  vscodeFileUri,
  type StorageLayout,
} from '../../../src/core/index.js';
import { hexDump } from '../../../src/core/runs/reading/reader.js';
import { escapeBinary } from '../../../src/core/runs/search/patternAnalysis.js';
import { packageDeclarations, MCP_TOOL_NAMES } from '../../../src/node/packageJson.js';
import { parseCommandLine, USAGE } from '../../../src/mcp/options.js';
import { resolveSettings } from '../../../src/node/resolveSettings.js';
import { createEvidenceMcpServer, SERVER_INSTRUCTIONS, type EvidenceMcpServer } from '../../../src/mcp/server.js';
import { openStorage } from '../../../src/node/openStorage.js';

const REPO = path.resolve(__dirname, '..', '..', '..');
const PKG = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as {
  version: string;
  contributes: {
    languageModelTools: { name: string; displayName: string; modelDescription: string; inputSchema: unknown }[];
  };
};
const sha = (s: string | Uint8Array): string => createHash('sha256').update(s).digest('hex');
/** `seq 1 20000` (108,894 bytes). */
const SEQ = Array.from({ length: 20000 }, (_, i) => `${i + 1}\n`).join('');
const HOW_TO_READ = (h: string): string =>
  `Read more: read_tool_output {"handle":"${h}"} with "pattern" (regex), "offset"/"limit" or "bytes"`;

/** The text of a one-part tool result, and whether it is flagged as an error: one text item, never structuredContent (docs/contracts.md §4.1). */
function textOf(result: unknown): { text: string; isError: boolean } {
  const r = result as { content: { type: string; text: string }[]; isError?: boolean };
  assert.equal('structuredContent' in r, false);
  assert.equal(r.content.length, 1);
  assert.equal(r.content[0]!.type, 'text');
  return { text: r.content[0]!.text, isError: r.isError === true };
}

/** The editor's stores over a layout, opened as services.ts opens them (filesystem blobs). */
async function editorStores(layout: StorageLayout): Promise<{ runs: RunStore; artifacts: ArtifactStore }> {
  for (const d of [layout.logsDir, layout.blobsDir]) mkdirSync(d, { recursive: true });
  // As the editor opens them (openEvidenceStores): reads are recorded by naming their artifact, a key of the same blob store.
  const blobs = await FsBlobStore.open(layout.blobsDir);
  const artifacts = new ArtifactStore({ blobs, tenant: layout.tenant, legacyRoot: layout.artifactsDir });
  const runs = await RunStore.open({ logsDir: layout.logsDir, tenant: layout.tenant, blobs, artifacts });
  return { runs, artifacts };
}

/** Waits for `probe` to answer; `ms` only bounds a wait that would never end (a loaded machine is slow). */
async function until<T>(probe: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The revisions served: the 2026-07-28 one (stateless, `server/discover`) and the 2025-11-25 one (`initialize`). */
const REVISIONS = ['2026-07-28', '2025-11-25'] as const;

/** The client option that makes the v2 client speak `revision`: pinned for the new one, the plain `initialize` for the old. */
function negotiation(revision: (typeof REVISIONS)[number]): {
  versionNegotiation: { mode: 'legacy' | { pin: string } };
} {
  return { versionNegotiation: { mode: revision === '2025-11-25' ? 'legacy' : { pin: revision } } };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Both revisions the server serves, each through the real v2 client: every byte test below runs on each. */
for (const revision of REVISIONS) {
  describe(`MCP server: the editor's tools for agents outside the editor (protocol ${revision})`, () => {
    let tmp: string;
    let storageDir: string;
    let ws: string;
    let layout: StorageLayout;
    let editor: { runs: RunStore; artifacts: ArtifactStore };
    let mcp: EvidenceMcpServer;
    let client: Client;
    const call = async (name: string, args: Record<string, unknown>): Promise<{ text: string; isError: boolean }> =>
      textOf(await client.callTool({ name, arguments: args }));

    before(async () => {
      tmp = mkdtempSync(path.join(os.tmpdir(), 'be-mcp-'));
      // Characters VS Code percent-encodes in a storage URI, so the tenant derivation is really exercised.
      storageDir = path.join(tmp, 'work space+é (1)', 'bounded-evidence.bounded-evidence');
      ws = path.join(tmp, 'ws');
      mkdirSync(path.join(ws, 'sub'), { recursive: true });
      writeFileSync(path.join(ws, 'small.txt'), 'hello\n');
      writeFileSync(path.join(ws, 'big.txt'), Array.from({ length: 2000 }, (_, i) => `line ${i}`).join('\n'));
      writeFileSync(path.join(ws, '.env'), 'SECRET=1\n');
      writeFileSync(path.join(tmp, 'outside.txt'), 'not in the workspace\n');
      symlinkSync(tmp, path.join(ws, 'out-link'));
      mkdirSync(path.join(ws, '.git', 'hooks'), { recursive: true });
      symlinkSync(path.join(ws, '.git'), path.join(ws, 'git-link'));
      assert.match(tmp, /^[A-Za-z0-9._~/-]+$/, 'the temp folder needs no URI encoding for the hand-written URI below');
      const uri = `file://${tmp}/work%20space%2B%C3%A9%20%281%29/bounded-evidence.bounded-evidence`;
      layout = layoutAt(storageDir, uri, false);
      editor = await editorStores(layout);
      mcp = await createEvidenceMcpServer({
        storageDir,
        workspaceFolder: ws,
        progressIntervalMs: 50,
        log: () => undefined,
      });
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      mcp.serve(serverSide);
      client = new Client({ name: 'mcp-test', version: '1.0.0' }, negotiation(revision));
      await client.connect(clientSide);
      assert.equal(client.getNegotiatedProtocolVersion(), revision);
    });

    after(async () => {
      await client?.close();
      await mcp?.close();
      rmSync(tmp, { recursive: true, force: true });
    });

    it("opens the editor's storage folders and its tenant (the one the editor created)", () => {
      assert.deepEqual(
        [
          mcp.storage.root,
          mcp.storage.logsDir,
          mcp.storage.blobsDir,
          mcp.storage.artifactsDir,
          mcp.storage.tenant,
          mcp.storage.tenantSource,
        ],
        [layout.root, layout.logsDir, layout.blobsDir, layout.artifactsDir, layout.tenant, 'existing'],
      );
    });

    it("publishes exactly the editor's four core tools: names, titles, model descriptions and input schemas from package.json", async () => {
      assert.deepEqual(client.getServerVersion(), {
        name: 'bounded-evidence',
        title: 'Bounded Evidence',
        version: PKG.version,
      });
      const { tools } = await client.listTools();
      assert.deepEqual(
        tools.map((t) => t.name),
        ['evidence_runCommand', 'evidence_readFile', 'read_tool_output', 'evidence_search'],
      );
      for (const t of tools) {
        const declared = PKG.contributes.languageModelTools.find((d) => d.name === t.name)!;
        assert.deepEqual(t.inputSchema, declared.inputSchema);
        assert.equal(t.description, declared.modelDescription);
        assert.equal(t.title, declared.displayName);
      }
      // The shapes the brief fixes, spelled out (so a package.json edit cannot pass unnoticed).
      const props = (i: number): string[] => Object.keys((tools[i]!.inputSchema as { properties: object }).properties);
      assert.deepEqual([props(0), tools[0]!.inputSchema.required], [['command', 'cwd', 'timeoutMs'], ['command']]);
      assert.deepEqual([props(1), tools[1]!.inputSchema.required], [['path'], ['path']]);
      assert.deepEqual(
        [props(2), tools[2]!.inputSchema.required],
        [['handle', 'offset', 'limit', 'pattern', 'bytes'], ['handle']],
      );
      assert.deepEqual([props(3), tools[3]!.inputSchema.required], [['pattern', 'tool', 'run', 'limit'], ['pattern']]);
      assert.deepEqual(
        tools.map((t) => t.annotations?.readOnlyHint),
        [false, true, true, true],
      );
    });

    it('evidence_runCommand: 108,894 bytes of stdout become a summary with a handle, recorded where the editor reads it', async () => {
      const { text, isError } = await call('evidence_runCommand', { command: 'seq 1 20000' });
      assert.equal(isError, false);
      const handle = /stdout: [^\n]*handle (out_[a-z2-7]{26})\. Preview:\n/.exec(text)?.[1];
      assert.ok(handle, text.slice(0, 200));
      assert.ok(
        text.startsWith(
          `$ seq 1 20000\nexit code 0\nstdout: 108894 bytes, 20000 lines, handle ${handle}. Preview:\n1\n2\n3\n`,
        ),
      );
      assert.ok(text.endsWith(`19999\n20000\n\nstderr: empty\n${HOW_TO_READ(handle)}`));
      assert.ok(Buffer.byteLength(text) < 8192, `${Buffer.byteLength(text)} bytes`);
      // Recorded as the editor records it: a run of its own, tool evidence_runCommand, stdout kept whole.
      const run = (await editor.runs.listRuns()).find((r) => r.label === 'mcp run: seq 1 20000')!;
      assert.equal(run.status, 'completed');
      // The run says which front end opened it (docs/contracts.md §2.2.1).
      assert.deepEqual(run.source, { kind: 'mcp' });
      const [c] = await editor.runs.report(run.runId);
      const stdout = c!.attachments[0]!;
      assert.deepEqual(
        [c!.tool, c!.status, stdout.name, stdout.handle, stdout.sizeBytes, stdout.stored, stdout.sha256],
        ['evidence_runCommand', 'ok', 'stdout', handle, 108894, 'blob', sha(SEQ)],
      );

      // read_tool_output on it, through the server: a lines window, a pattern, a byte window.
      assert.deepEqual(JSON.parse((await call('read_tool_output', { handle, offset: 19995 })).text), {
        handle,
        binary: false,
        total_size_bytes: 108894,
        total_lines: 20000,
        offset: 19995,
        limit: 200,
        pattern: null,
        total_matches: null,
        returned_lines: 5,
        truncated: false,
        content: '19996\n19997\n19998\n19999\n20000',
        matches: null,
      });
      // A pattern reply leaves out what the call and the observation already said, and the count its matches give (docs/contracts.md §2.5).
      const page = (await call('read_tool_output', { handle, pattern: '^1999[0-9]$', limit: 3 })).text;
      assert.deepEqual(Object.keys(JSON.parse(page) as object), ['total_matches', 'truncated', 'content', 'matches']);
      assert.deepEqual(JSON.parse(page), {
        total_matches: 10,
        truncated: true,
        content: '19990:19990\n19991:19991\n19992:19992',
        matches: [19990, 19991, 19992].map((n) => ({
          line_number: n,
          byte_offset: SEQ.indexOf(`\n${n}\n`) + 1,
          column: 1,
        })),
      });
      assert.equal(
        JSON.parse((await call('read_tool_output', { handle, bytes: { start: 0, end: 10 } })).text).content,
        '1\n2\n3\n4\n5\n',
      );
      assert.deepEqual(await call('read_tool_output', { handle, bytes: { start: 0, end: 4097 } }), {
        text: 'error: artifact range exceeds 4096 bytes',
        isError: true,
      });
      assert.deepEqual(await call('read_tool_output', { handle, pattern: '(' }), {
        text: 'error: pattern is not a valid regular expression: Unterminated group',
        isError: true,
      });
      // The editor's own store reads the handle the server minted, byte for byte.
      assert.equal(
        (await editor.runs.readToolOutput({ handle, bytes: { start: 108888, end: 108894 } })).content,
        '20000\n',
      );
    });

    it('evidence_readFile: a small file whole, a large one as an observation whose range request reads exact bytes', async () => {
      assert.deepEqual(await call('evidence_readFile', { path: 'small.txt' }), { text: 'hello\n', isError: false });
      const big = readFileSync(path.join(ws, 'big.txt'));
      const { text } = await call('evidence_readFile', { path: 'big.txt' });
      assert.ok(text.startsWith('Tool result externalized:\n'));
      const [json, hint, ...rest] = text.slice('Tool result externalized:\n'.length).split('\n');
      const obs = JSON.parse(json!) as Record<string, unknown>;
      const id = `artifact-${sha(big)}`;
      assert.deepEqual(
        [obs.artifact_id, obs.byte_count, obs.sha256, obs.head_range, obs.tail_range],
        [id, 18889, sha(big), [0, 896], [17993, 18889]],
      );
      assert.deepEqual(obs.range_request, { path: `.tool-artifacts/${id}/bytes/0-4096`, tool: 'read_file' });
      const range = await call('evidence_readFile', { path: `.tool-artifacts/${id}/bytes/0-4096` });
      const data = big.subarray(0, 4096).toString('utf8');
      assert.equal(
        range.text,
        `Artifact range:\n{"artifact_id":"${id}","byte_count":4096,"data":${JSON.stringify(data)},"end":4096,"sha256":"${sha(big)}","start":0,"total_byte_count":18889}`,
      );
      // Contract 1.3's refusals, as ordinary results.
      assert.deepEqual(await call('evidence_readFile', { path: `.tool-artifacts/${id}/bytes/0-4097` }), {
        text: 'error: artifact range exceeds 4096 bytes',
        isError: true,
      });
      assert.deepEqual(await call('evidence_readFile', { path: `.tool-artifacts/${id}/bytes/18880-18890` }), {
        text: 'error: artifact range exceeds the stored byte count',
        isError: true,
      });
      assert.deepEqual(await call('evidence_readFile', { path: `.tool-artifacts/${id}/bytes/0-4096\n` }), {
        text: 'error: artifact range path is malformed',
        isError: true,
      });
      assert.deepEqual(
        await call('evidence_readFile', { path: `.tool-artifacts/artifact-${'0'.repeat(64)}/bytes/0-1` }),
        { text: 'error: artifact is not available in this store', isError: true },
      );
      // The local workspace's confinement.
      assert.deepEqual(await call('evidence_readFile', { path: '.env' }), {
        text: 'error: access to secret files is denied',
        isError: true,
      });
      assert.deepEqual(await call('evidence_readFile', { path: 'out-link/outside.txt' }), {
        text: 'error: path leaves the workspace root',
        isError: true,
      });
      // The whole file is the recorded result, with a handle the editor can search by line.
      const run = (await editor.runs.listRuns()).find((r) => r.label === 'mcp read: big.txt')!;
      const [c] = await editor.runs.report(run.runId);
      assert.deepEqual(
        [c!.tool, c!.status, c!.resultBytes, c!.sha256, c!.arguments],
        ['evidence_readFile', 'ok', 18889, sha(big), { path: 'big.txt' }],
      );
      assert.equal((await editor.runs.readToolOutput({ handle: c!.handle!, offset: 1999 })).content, 'line 1999');
      // The editor's hint line, naming that handle, under the observation (one more line, nothing else).
      assert.deepEqual(
        [hint, rest],
        [`Searchable by line or pattern: read_tool_output {"handle":"${c!.handle!}"}`, []],
      );
    });

    it('reads what the editor minted: run handles (re-read on a miss) and artifacts (keys of the tenant in the shared blob store: read at once)', async () => {
      const log = Array.from({ length: 3000 }, (_, i) => `editor line ${i}`).join('\n');
      const run = await editor.runs.startRun({ label: 'editor side' });
      const outcome = await run.recordResult('evidence_invokeTool', { name: 'x' }, log);
      await run.finish();
      assert.deepEqual(
        JSON.parse((await call('read_tool_output', { handle: outcome.handle!, pattern: 'line 2999$' })).text).content,
        '3000:editor line 2999',
      );
      // A window too large for 8 KiB is fitted by the same code as in the editor: the same bytes.
      const wide = await editor.runs.startRun({ label: 'editor wide' });
      const wideOut = await wide.recordResult(
        'evidence_invokeTool',
        { name: 'x' },
        Array.from({ length: 2000 }, (_, i) => `line ${String(i).padStart(5, '0')} ${'y'.repeat(36)}`).join('\n'),
      );
      await wide.finish();
      const fitted = (await call('read_tool_output', { handle: wideOut.handle! })).text;
      assert.equal(
        fitted,
        await readFitted(editor.runs, { handle: wideOut.handle! }, 4096, () => assert.fail('no failure')),
      );
      assert.deepEqual(
        [Buffer.byteLength(fitted), (JSON.parse(fitted) as { returned_lines: number }).returned_lines],
        [5_125, 100],
      );

      const bytes = 'é'.repeat(3000); // 6000 bytes, two per character
      const ref = await editor.artifacts.put(bytes);
      const path1 = `.tool-artifacts/${ref.artifactId}/bytes/0-8`;
      // Stored under this tenant's key: the server reads it at once, with no record to learn it from (docs/contracts.md §2.8).
      assert.equal(
        (await call('evidence_readFile', { path: path1 })).text,
        `Artifact range:\n{"artifact_id":"${ref.artifactId}","byte_count":8,"data":"éééé","end":8,"sha256":"${ref.sha256}","start":0,"total_byte_count":6000}`,
      );
      assert.deepEqual(await call('evidence_readFile', { path: `.tool-artifacts/${ref.artifactId}/bytes/1-3` }), {
        text: 'error: artifact range does not align to UTF-8 text',
        isError: true,
      });
      // Another tenant's artifact in the same blob store is not this tenant's to read.
      const elsewhere = await new ArtifactStore({
        blobs: await FsBlobStore.open(layout.blobsDir),
        tenant: `w${'e'.repeat(32)}`,
      }).put("another tenant's bytes");
      assert.deepEqual(await call('evidence_readFile', { path: `.tool-artifacts/${elsewhere.artifactId}/bytes/0-7` }), {
        text: 'error: artifact is not available in this store',
        isError: true,
      });
      // An artifact an editor of the old layout left in evidence/artifacts/<tenant>/ reads too, moved into the blob store on that read.
      const old = 'kept by an older editor\n'.repeat(40);
      const oldId = `artifact-${sha(old)}`;
      mkdirSync(path.join(layout.artifactsDir, layout.tenant), { recursive: true });
      writeFileSync(path.join(layout.artifactsDir, layout.tenant, oldId), old);
      assert.equal(
        (await call('evidence_readFile', { path: `.tool-artifacts/${oldId}/bytes/0-23` })).text,
        `Artifact range:\n{"artifact_id":"${oldId}","byte_count":23,"data":"kept by an older editor","end":23,"sha256":"${sha(old)}","start":0,"total_byte_count":${old.length}}`,
      );
      assert.deepEqual(readFileSync(path.join(layout.blobsDir, layout.tenant, 'artifacts', sha(old)), 'utf8'), old);
    });

    it('refuses handles of another tenant, forged handles and over-long ones', async () => {
      const other = await RunStore.open({
        logsDir: layout.logsDir,
        tenant: `w${'f'.repeat(32)}`,
        blobs: await FsBlobStore.open(layout.blobsDir),
      });
      const run = await other.startRun();
      const minted = await run.recordResult('x', {}, 'other tenant\n'.repeat(1000));
      await run.finish();
      assert.ok(minted.handle);
      for (const handle of [
        minted.handle,
        'res_0000000000-1',
        `res_${'a'.repeat(26)}`,
        'out_../../etc/passwd',
        '..',
        'a'.repeat(256),
      ]) {
        assert.deepEqual(
          await call('read_tool_output', { handle }),
          { text: 'error: access denied: unknown or expired handle', isError: true },
          handle,
        );
      }
      assert.deepEqual(await call('read_tool_output', { handle: 'a'.repeat(257) }), {
        text: 'error: input does not match the read_tool_output schema: input/handle must NOT have more than 256 characters',
        isError: true,
      });
    });

    it('validates input against the published schema and confines cwd to the workspace folder', async () => {
      const refused = (tool: string, text: string): { text: string; isError: boolean } => ({
        text: `error: input does not match the ${tool} schema: ${text}`,
        isError: true,
      });
      assert.deepEqual(
        await call('evidence_runCommand', { command: 'true', extra: 1 }),
        refused('evidence_runCommand', 'input must NOT have additional properties'),
      );
      assert.deepEqual(
        await call('evidence_runCommand', {}),
        refused('evidence_runCommand', "input must have required property 'command'"),
      );
      assert.deepEqual(
        await call('evidence_runCommand', { command: 'true', timeoutMs: 0 }),
        refused('evidence_runCommand', 'input/timeoutMs must be >= 1'),
      );
      assert.deepEqual(
        await call('evidence_runCommand', { command: '' }),
        refused('evidence_runCommand', 'input/command must NOT have fewer than 1 characters'),
      );
      assert.deepEqual(
        await call('evidence_readFile', { path: 7 }),
        refused('evidence_readFile', 'input/path must be string'),
      );
      assert.deepEqual(
        await call('read_tool_output', { handle: 'h', bytes: { start: 0 } }),
        refused('read_tool_output', "input/bytes must have required property 'end'"),
      );
      // One rule set and one sentence for every front end (docs/contracts.md §5.2); a refused cwd records no run.
      const runsBefore = (await editor.runs.listRuns()).length;
      for (const cwd of [
        '.git',
        '.git/hooks',
        '..',
        'sub/../..',
        tmp,
        path.join(ws, 'sub'),
        'out-link',
        'git-link',
        'git-link/hooks',
      ]) {
        assert.deepEqual(
          await call('evidence_runCommand', { command: 'pwd', cwd }),
          { text: CWD_REFUSED, isError: true },
          cwd,
        );
      }
      assert.equal(
        CWD_REFUSED,
        'error: cwd must be a relative folder inside the workspace folder (no "..", no link leading out, not .git or another secret folder)',
      );
      assert.deepEqual(await call('evidence_runCommand', { command: 'pwd', cwd: 'small.txt' }), {
        text: 'error: cwd is not a folder in the workspace',
        isError: true,
      });
      assert.deepEqual(await call('evidence_runCommand', { command: 'pwd', cwd: 'missing' }), {
        text: 'error: cwd is not a folder in the workspace',
        isError: true,
      });
      assert.equal((await editor.runs.listRuns()).length, runsBefore);
      assert.deepEqual(await call('evidence_runCommand', { command: 'pwd', cwd: 'sub' }), {
        text: `$ pwd\nexit code 0\nstdout: ${Buffer.byteLength(ws) + 5} bytes, 1 line:\n${ws}/sub\n\nstderr: empty`,
        isError: false,
      });
      // The sentence once: the client adds no `MCP error -32602:` prefix of its own, and the server none either.
      await assert.rejects(
        client.callTool({ name: 'evidence_invokeTool', arguments: { name: 'x', input: {} } }),
        (e: { code?: number; message?: string }) =>
          e.code === -32602 && e.message === 'Unknown tool: evidence_invokeTool',
      );
    });

    it('a timeout kills the command; cancelling the request kills its process group; progress flows while it runs', async () => {
      assert.deepEqual(await call('evidence_runCommand', { command: 'sleep 5', timeoutMs: 300 }), {
        text: '$ sleep 5\nkilled: timed out after 300 ms\nstdout: empty\nstderr: empty',
        isError: false,
      });

      // Order, not time: the command ends only once the client has had two progress notifications.
      let progress = 0;
      const waits = 'until [ -e beats ]; do sleep 0.01; done; echo done';
      const slow = textOf(
        await client.callTool(
          { name: 'evidence_runCommand', arguments: { command: waits } },
          {
            onprogress: () => {
              if (++progress === 2) writeFileSync(path.join(ws, 'beats'), '');
            },
          },
        ),
      );
      assert.equal(slow.text, `$ ${waits}\nexit code 0\nstdout: 5 bytes, 1 line:\ndone\n\nstderr: empty`);
      assert.ok(progress >= 2, `${progress} progress notifications`);

      const abort = new AbortController();
      const pending = client.callTool(
        { name: 'evidence_runCommand', arguments: { command: 'sleep 30 & echo $! > sleep.pid; wait' } },
        { signal: abort.signal },
      );
      const pid = await until(async () => {
        try {
          return Number(readFileSync(path.join(ws, 'sleep.pid'), 'utf8')) || undefined;
        } catch {
          return undefined;
        }
      });
      assert.ok(alive(pid));
      abort.abort();
      await assert.rejects(pending);
      await until(async () => (alive(pid) ? undefined : true));
      const status = await until(async () =>
        (await editor.runs.listRuns()).find(
          (r) => r.label?.startsWith('mcp run: sleep 30') && r.status === 'cancelled',
        ),
      );
      assert.equal(status.callCount, 1);
    });
  });
}

describe('MCP server: a large evidence_readFile result is stored once (docs/contracts.md §2.9)', () => {
  it('after one read of a 5 MB file the storage folder holds at most 1.05x its size, and handle and range read the same bytes', async function () {
    this.timeout(60_000);
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'be-mcp-once-'));
    const storageDir = path.join(tmp, 'storage');
    const ws = path.join(tmp, 'ws');
    mkdirSync(ws);
    // 5,000,000 bytes of numbered lines (text, so the whole file is readable by line and pattern).
    const lines: string[] = [];
    for (let i = 0, n = 0; n < 5_000_000; i++) {
      const l = `line ${i} ${'x'.repeat(40)}\n`;
      lines.push(l);
      n += l.length;
    }
    const file = Buffer.from(lines.join('')).subarray(0, 5_000_000);
    writeFileSync(path.join(ws, 'big.log'), file);
    const server = await createEvidenceMcpServer({ storageDir, workspaceFolder: ws, log: () => undefined });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    server.serve(serverSide);
    const client = new Client({ name: 'test', version: '1' });
    await client.connect(clientSide);
    try {
      const { text, isError } = textOf(
        await client.callTool({ name: 'evidence_readFile', arguments: { path: 'big.log' } }),
      );
      assert.equal(isError, false);
      const observation = JSON.parse(text.split('\n')[1]!) as {
        artifact_id: string;
        byte_count: number;
        sha256: string;
      };
      assert.deepEqual([observation.byte_count, observation.sha256], [5_000_000, sha(file)]);
      const stored = folderBytes(path.join(storageDir, 'evidence'));
      assert.ok(stored <= 1.05 * file.length, `storage holds ${stored} bytes for a ${file.length}-byte file`);
      assert.ok(stored >= file.length, 'the bytes are kept');

      // The record names the artifact; the handle reads its bytes through the same verified reader as a range.
      const runs = await RunStore.open({ logsDir: server.storage.logsDir, tenant: server.storage.tenant });
      const [summary] = await runs.listRuns();
      const [call] = await runs.report(summary!.runId);
      assert.deepEqual(
        [call!.stored, call!.artifactId, call!.sha256],
        ['artifact', observation.artifact_id, sha(file)],
      );
      // Retention counts the artifact against the run that names it (docs/contracts.md §2.7): kept once, still budgeted.
      assert.ok(summary!.totalBytes >= file.length, `the run accounts for ${summary!.totalBytes} bytes`);
      const handle = call!.handle!;
      const window = JSON.parse(
        textOf(
          await client.callTool({
            name: 'read_tool_output',
            arguments: { handle, bytes: { start: 2_500_000, end: 2_500_100 } },
          }),
        ).text,
      ) as { content: string };
      assert.equal(window.content, file.subarray(2_500_000, 2_500_100).toString('utf8'));
      const range = textOf(
        await client.callTool({
          name: 'evidence_readFile',
          arguments: { path: `.tool-artifacts/${observation.artifact_id}/bytes/2500000-2500100` },
        }),
      ).text;
      assert.equal((JSON.parse(range.split('\n')[1]!) as { data: string }).data, window.content);
      const found = JSON.parse(
        textOf(await client.callTool({ name: 'read_tool_output', arguments: { handle, pattern: '^line 50000 ' } }))
          .text,
      ) as { total_matches: number; matches: { line_number: number }[] };
      assert.deepEqual([found.total_matches, found.matches[0]!.line_number], [1, 50001]);
      // A byte changed inside the artifact is a digest mismatch by handle, never data.
      const artifactFile = path.join(
        server.storage.blobsDir,
        server.storage.tenant,
        'artifacts',
        (observation.artifact_id as string).slice('artifact-'.length),
      );
      const bytes = readFileSync(artifactFile);
      bytes[2_500_010] = bytes[2_500_010]! ^ 1;
      writeFileSync(artifactFile, bytes);
      assert.deepEqual(
        textOf(
          await client.callTool({
            name: 'read_tool_output',
            arguments: { handle, bytes: { start: 2_500_000, end: 2_500_100 } },
          }),
        ),
        { text: 'error: artifact digest does not match its recorded identity', isError: true },
      );
    } finally {
      await client.close();
      await server.close();
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});

describe('MCP server: evidence_readFile of any size and any encoding (docs/contracts.md §3.3)', () => {
  let tmp: string;
  let server: EvidenceMcpServer;
  let client: Client;
  const call = async (name: string, args: Record<string, unknown>): Promise<{ text: string; isError: boolean }> =>
    textOf(await client.callTool({ name, arguments: args }));

  before(async () => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'be-mcp-anyfile-'));
    mkdirSync(path.join(tmp, 'ws'));
    server = await createEvidenceMcpServer({
      storageDir: path.join(tmp, 'storage'),
      workspaceFolder: path.join(tmp, 'ws'),
      log: () => undefined,
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    server.serve(serverSide);
    client = new Client({ name: 'test', version: '1' });
    await client.connect(clientSide);
  });

  after(async () => {
    await client?.close();
    await server?.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  /** Highest RSS seen while `work` runs (sampled every 2 ms), minus the RSS before it. */
  async function rssGrowth<T>(work: () => Promise<T>): Promise<{ value: T; growth: number }> {
    const before = process.memoryUsage.rss();
    let peak = before;
    const timer = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage.rss());
    }, 2);
    try {
      const value = await work();
      peak = Math.max(peak, process.memoryUsage.rss());
      return { value, growth: peak - before };
    } finally {
      clearInterval(timer);
    }
  }

  const observationOf = (text: string): Record<string, unknown> => {
    const [first, json, hint] = text.split('\n');
    assert.equal(first, 'Tool result externalized:');
    assert.match(hint!, /^Searchable by line or pattern: read_tool_output \{"handle":"[^"]+"\}$/);
    return JSON.parse(json!) as Record<string, unknown>;
  };
  const handleOf = (text: string): string => /"handle":"([^"]+)"/.exec(text.split('\n')[2]!)![1]!;

  it('a 200 MB file is streamed into the store in bounded memory: exact size and sha256, stored once, its middle needle found by pattern', async function () {
    this.timeout(300_000);
    const file = path.join(tmp, 'ws', 'huge.log');
    const size = 200 * 1024 * 1024;
    const needle = 'NEEDLE-9d41c0 found me';
    const hash = createHash('sha256');
    let needleAt = -1;
    let needleLine = 0;
    // Written in 1 MiB pieces of numbered lines, the needle on the line that crosses the middle.
    const fd = openSync(file, 'w');
    try {
      let line = 0;
      for (let written = 0; written < size;) {
        const parts: string[] = [];
        let n = 0;
        while (n < 1024 * 1024) {
          const l = needleAt < 0 && written + n >= size / 2 ? `${needle}\n` : `line ${line++} ${'y'.repeat(50)}\n`;
          if (l.startsWith(needle)) {
            needleAt = written + n;
            needleLine = line + 1;
          }
          parts.push(l);
          n += l.length;
        }
        const piece = Buffer.from(parts.join('')).subarray(0, Math.min(n, size - written));
        writeSync(fd, piece);
        hash.update(piece);
        written += piece.length;
      }
    } finally {
      closeSync(fd);
    }
    assert.equal(statSync(file).size, size);
    writeFileSync(path.join(tmp, 'ws', 'small.log'), Array.from({ length: 2000 }, (_, i) => `small ${i}\n`).join(''));
    try {
      // A small read first: its RSS growth is the baseline the large read is compared with.
      const small = await rssGrowth(() => call('evidence_readFile', { path: 'small.log' }));
      assert.equal(small.value.isError, false);
      const big = await rssGrowth(() => call('evidence_readFile', { path: 'huge.log' }));
      assert.equal(big.value.isError, false, big.value.text);
      assert.ok(
        big.growth - small.growth < 64 * 1024 * 1024,
        `RSS grew ${big.growth} bytes reading 200 MB, ${small.growth} reading a small file`,
      );
      const observation = observationOf(big.value.text);
      assert.deepEqual(
        [observation.byte_count, observation.sha256, observation.artifact_id],
        [size, hash.digest('hex'), `artifact-${observation.sha256 as string}`],
      );
      assert.equal((observation.head_preview as string).startsWith('line 0 yyy'), true);
      const stored = folderBytes(path.join(tmp, 'storage', 'evidence'));
      assert.ok(stored >= size && stored <= 1.05 * size, `storage holds ${stored} bytes for a ${size}-byte file`);
      const handle = handleOf(big.value.text);
      const found = JSON.parse((await call('read_tool_output', { handle, pattern: 'NEEDLE-9d41c0' })).text) as {
        total_matches: number;
        content: string;
        matches: { line_number: number; byte_offset: number }[];
      };
      assert.deepEqual(
        [found.total_matches, found.matches[0]!.line_number, found.matches[0]!.byte_offset, found.content],
        [1, needleLine, needleAt, `${needleLine}:${needle}`],
      );
      const range = await call('evidence_readFile', {
        path: `.tool-artifacts/${observation.artifact_id as string}/bytes/${needleAt}-${needleAt + needle.length}`,
      });
      assert.equal((JSON.parse(range.text.split('\n')[1]!) as { data: string }).data, needle);
    } finally {
      rmSync(file, { force: true });
    }
  });

  it('a Latin-1 file and a .wasm are kept byte for byte, observed as binary (escaped previews, no range request) and searchable by their bytes', async () => {
    const latin1 = Buffer.from(
      Array.from({ length: 400 }, (_, i) => `caf\xe9 r\xe9sum\xe9 ${i}\n`).join('') + 'na\xefve needle\n',
      'latin1',
    );
    writeFileSync(path.join(tmp, 'ws', 'latin1.txt'), latin1);
    const wasmSource = path.join(REPO, 'node_modules', 'playwright-core', 'lib', 'webp_codec.wasm');
    const wasm = readFileSync(wasmSource);
    writeFileSync(path.join(tmp, 'ws', 'codec.wasm'), wasm);
    for (const [name, bytes] of [
      ['latin1.txt', latin1],
      ['codec.wasm', wasm],
    ] as const) {
      const { text, isError } = await call('evidence_readFile', { path: name });
      assert.equal(isError, false, text);
      const o = observationOf(text);
      assert.deepEqual(Object.keys(o), [
        'artifact_id',
        'binary',
        'byte_count',
        'head_preview',
        'head_range',
        'omitted_range',
        'sha256',
        'tail_preview',
        'tail_range',
      ]);
      assert.deepEqual([o.binary, o.byte_count, o.sha256], [true, bytes.length, sha(bytes)]);
      const [, h] = o.head_range as [number, number];
      const [t] = o.tail_range as [number, number];
      assert.ok(h > 0 && t < bytes.length, `previews [0,${h}) and [${t},${bytes.length})`);
      assert.equal(o.head_preview, escapeBinary(bytes.subarray(0, h).toString('latin1')));
      assert.equal(o.tail_preview, escapeBinary(bytes.subarray(t).toString('latin1')));
      // Kept byte for byte: the artifact's file is the file.
      assert.deepEqual(
        readFileSync(
          path.join(
            server.storage.blobsDir,
            server.storage.tenant,
            'artifacts',
            (o.artifact_id as string).slice('artifact-'.length),
          ),
        ),
        bytes,
      );
      // The handle's byte window is a hex dump of the exact bytes.
      const handle = handleOf(text);
      const dump = JSON.parse((await call('read_tool_output', { handle, bytes: { start: 0, end: 32 } })).text) as {
        content: string;
      };
      assert.equal(dump.content, hexDump(bytes.subarray(0, 32), 0));
    }
    const [latinHandle, wasmHandle] = [
      handleOf((await call('evidence_readFile', { path: 'latin1.txt' })).text),
      handleOf((await call('evidence_readFile', { path: 'codec.wasm' })).text),
    ];
    const latinFound = JSON.parse(
      (await call('read_tool_output', { handle: latinHandle, pattern: 'na\\xefve needle' })).text,
    ) as { total_matches: number; content: string; matches: { byte_offset: number }[] };
    assert.deepEqual(
      [latinFound.total_matches, latinFound.matches[0]!.byte_offset, latinFound.content],
      [1, latin1.indexOf('na\xefve', 0, 'latin1'), '401:na\\xefve needle'],
    );
    // A string the .wasm holds (its import or export names), found at its byte offset.
    const word = 'memory';
    const wasmFound = JSON.parse((await call('read_tool_output', { handle: wasmHandle, pattern: word })).text) as {
      total_matches: number;
      matches: { byte_offset: number }[];
    };
    assert.ok(wasmFound.total_matches >= 1);
    assert.equal(wasmFound.matches[0]!.byte_offset, wasm.indexOf(word));
  });
});

/** Bytes of every file under `dir`, recursively. */
/**
 * Bytes kept under a folder, as retention counts them (docs/contracts.md §2.7): the catalog's
 * WAL is left out, it is transient (folded into the database at each checkpoint) and its size
 * depends on how many transactions ran since the last one, not on what is kept.
 */
function folderBytes(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.name.endsWith('.catalog.sqlite-wal')) continue;
    n += e.isDirectory() ? folderBytes(p) : statSync(p).size;
  }
  return n;
}

describe('MCP server: tenant, storage and command line', () => {
  it("spells a storage path as VS Code's Uri.toString() does, and derives the editor's tenant from it", () => {
    const p = "/home/u/.config/Code/User/workspaceStorage/a b+c/é!'()*~_-./bounded-evidence.bounded-evidence";
    const uri =
      'file:///home/u/.config/Code/User/workspaceStorage/a%20b%2Bc/%C3%A9%21%27%28%29%2A~_-./bounded-evidence.bounded-evidence';
    assert.equal(vscodeFileUri(p), uri);
    assert.equal(layoutOfFolder(p, false).tenant, tenantFor(uri, false));
    assert.equal(layoutOfFolder(p, true).tenant, tenantFor(uri, true));
  });

  it('chooses the tenant: explicit, else the one recorded, else the one stored, else derived (then recorded); two stored is a question', async () => {
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'be-mcp-tenant-'));
    try {
      const dir = path.join(tmp, 's');
      const tenantFile = path.join(dir, 'evidence', TENANT_FILE);
      await assert.rejects(openStorage(dir, { tenant: '../x' }), /--tenant must be one safe path segment/);
      const pick = (s: { tenant: string; global: boolean; tenantSource: string }): unknown[] => [
        s.tenant,
        s.global,
        s.tenantSource,
      ];
      const fresh = await openStorage(dir);
      assert.deepEqual([fresh.tenant, fresh.tenantSource], [tenantFor(`file://${dir}`, false), 'derived']);
      assert.equal(readFileSync(tenantFile, 'utf8'), `${fresh.tenant}\n`);
      assert.deepEqual(pick(await openStorage(dir)), [fresh.tenant, false, 'recorded']);
      assert.equal((await openStorage(dir, { global: true })).tenant, tenantFor(`file://${dir}`, true));
      assert.deepEqual(pick(await openStorage(dir, { tenant: 'mine' })), ['mine', false, 'explicit']);
      // An editor's folder made before any tenant was recorded (an editor that activated first).
      rmSync(tenantFile);
      const stored = `w${'1'.repeat(32)}`;
      mkdirSync(path.join(dir, 'evidence', 'logs', stored));
      assert.deepEqual(pick(await openStorage(dir)), [stored, false, 'existing']);
      assert.equal(readFileSync(tenantFile, 'utf8'), `${stored}\n`);
      rmSync(tenantFile);
      mkdirSync(path.join(dir, 'evidence', 'logs', `w${'2'.repeat(32)}`));
      await assert.rejects(openStorage(dir), /^Error: 2 tenants are stored under .*; pass --tenant to choose one$/);
      mkdirSync(path.join(dir, 'evidence', 'logs', fresh.tenant));
      assert.deepEqual(pick(await openStorage(dir)), [fresh.tenant, false, 'derived']);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  it("parses the command line; limits default to the editor's settings and keep their declared ranges", () => {
    assert.deepEqual(parseCommandLine(['--help'], '/cwd'), { help: true });
    // --help names every tool served (from the table: it once listed 3 of 4), and --http with or without a port.
    assert.ok(
      USAGE.replace(/\n/g, ' ').includes(
        `Serves ${MCP_TOOL_NAMES.slice(0, -1).join(', ')} and ${MCP_TOOL_NAMES.at(-1)!} over MCP`,
      ),
      USAGE,
    );
    assert.deepEqual(MCP_TOOL_NAMES, [
      'evidence_runCommand',
      'evidence_readFile',
      'read_tool_output',
      'evidence_search',
    ]);
    assert.deepEqual(parseCommandLine(['--storage', '/s', '--http'], '/cwd'), {
      help: false,
      options: { storageDir: '/s', workspaceFolder: '/cwd', settings: {} },
      http: { port: 0 },
    });
    assert.deepEqual(parseCommandLine(['--http', '8765', '--storage', '/s'], '/cwd'), {
      help: false,
      options: { storageDir: '/s', workspaceFolder: '/cwd', settings: {} },
      http: { port: 8765 },
    });
    assert.deepEqual(parseCommandLine(['--storage', '/s', '--http=9'], '/cwd'), {
      help: false,
      options: { storageDir: '/s', workspaceFolder: '/cwd', settings: {} },
      http: { port: 9 },
    });
    assert.throws(
      () => parseCommandLine(['--storage', '/s', '--http', '65536'], '/cwd'),
      /^Error: --http PORT must be a whole number from 0 to 65535$/,
    );
    assert.deepEqual(
      parseCommandLine(['--storage', '/s', '--max-inline-bytes', '6000', '--preservation', 'required'], '/cwd'),
      {
        help: false,
        options: {
          storageDir: '/s',
          workspaceFolder: '/cwd',
          settings: { maxInlineBytes: 6000, preservation: 'required' },
        },
      },
    );
    assert.deepEqual(parseCommandLine(['--storage', '/s', '--workspace', '/w', '--tenant', 't'], '/cwd'), {
      help: false,
      options: { storageDir: '/s', workspaceFolder: '/w', tenant: 't', settings: {} },
    });
    assert.deepEqual(
      parseCommandLine(['--storage', '/s', '--deny-pattern', '*.secret', '--deny-pattern', 'conf/prod.yml'], '/cwd'),
      {
        help: false,
        options: {
          storageDir: '/s',
          workspaceFolder: '/cwd',
          denyPatterns: ['*.secret', 'conf/prod.yml'],
          settings: {},
        },
      },
    );
    assert.throws(() => parseCommandLine([], '/cwd'), /^Error: --storage <dir> is required$/);
    assert.throws(
      () => parseCommandLine(['--storage', '/s', '--tenant', 't', '--global'], '/cwd'),
      /--tenant and --global exclude each other/,
    );
    assert.throws(
      () => parseCommandLine(['--storage', '/s', '--preview-bytes', '1e3'], '/cwd'),
      /^Error: --preview-bytes must be a whole number$/,
    );
    assert.throws(() => parseCommandLine(['--storage', '/s', '--bogus'], '/cwd'), /Unknown option '--bogus'/);
    const declarations = packageDeclarations();
    assert.deepEqual(resolveSettings(declarations), {
      maxInlineBytes: 4096,
      previewBytes: 896,
      maxRangeBytes: 4096,
      largeResultBytes: 4096,
      captureCapBytes: 0,
      commandTimeoutMs: 600000,
      searchTimeoutMs: 30000,
      preservation: 'best_effort',
    });
    assert.throws(
      () => resolveSettings(declarations, { maxInlineBytes: 6145 }),
      /^Error: --max-inline-bytes must be an integer from 512 to 6144$/,
    );
    assert.throws(
      () => resolveSettings(declarations, { preservation: 'maybe' as 'required' }),
      /^Error: --preservation must be one of best_effort, required$/,
    );
  });
});

describe('MCP server over stdio (node --import tsx src/mcp/main.ts, a separate process)', () => {
  let tmp: string;
  beforeEach(() => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'be-mcp-stdio-'));
  });
  afterEach(() => rmSync(tmp, { recursive: true, force: true }));

  it("handshakes, serves the tools, and its handles and the editor's cross the process boundary both ways", async function () {
    this.timeout(30_000);
    const storageDir = path.join(tmp, 'storage');
    const ws = path.join(tmp, 'ws');
    mkdirSync(ws);
    const editorLayout = layoutAt(storageDir, `file://${storageDir}`, false);
    const editor = await editorStores(editorLayout);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', path.join(REPO, 'src', 'mcp', 'main.ts'), '--storage', storageDir, '--workspace', ws],
      cwd: REPO,
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (b: Buffer) => {
      stderr += b.toString();
    });
    const client = new Client({ name: 'stdio-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      assert.deepEqual(
        (await client.listTools()).tools.map((t) => t.name),
        ['evidence_runCommand', 'evidence_readFile', 'read_tool_output', 'evidence_search'],
      );
      const ran = textOf(await client.callTool({ name: 'evidence_runCommand', arguments: { command: 'seq 1 20000' } }));
      const handle = /stdout: [^\n]*handle (out_[a-z2-7]{26})\./.exec(ran.text)![1]!;
      // Minted in the server process, read by the editor's store in this one.
      assert.equal((await editor.runs.readToolOutput({ handle, offset: 19999 })).content, '20000');
      // Minted here after the server started, read by the server.
      const run = await editor.runs.startRun();
      const mine = await run.recordResult('evidence_invokeTool', {}, SEQ);
      await run.finish();
      assert.deepEqual(
        JSON.parse(
          textOf(await client.callTool({ name: 'read_tool_output', arguments: { handle: mine.handle!, limit: 2 } }))
            .text,
        ).content,
        '1\n2',
      );
      assert.match(stderr, new RegExp(`tenant ${editorLayout.tenant} \\(existing\\)`));
      // One line per client and revision: the plain client negotiated by initialize.
      assert.match(stderr, /\] client stdio-test 1\.0\.0 on protocol 2025-11-25\n/);
    } finally {
      await client.close();
    }
    // The server finished its run when the call ended, and left nothing running.
    const runs = await editor.runs.listRuns();
    assert.deepEqual(runs.map((r) => [r.label ?? '', r.status]).sort(), [
      ['', 'completed'],
      ['mcp run: seq 1 20000', 'completed'],
    ]);
  });

  it('a client that probes with server/discover (as Claude Code does) gets 2026-07-28 from the stdio process, and the same text', async function () {
    this.timeout(30_000);
    mkdirSync(path.join(tmp, 'ws'));
    const client = new Client({ name: 'stdio-auto', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [
        '--import',
        'tsx',
        path.join(REPO, 'src', 'mcp', 'main.ts'),
        '--storage',
        path.join(tmp, 'storage'),
        '--workspace',
        path.join(tmp, 'ws'),
      ],
      cwd: REPO,
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (b: Buffer) => {
      stderr += b.toString();
    });
    await client.connect(transport);
    try {
      assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
      assert.equal(client.getInstructions(), SERVER_INSTRUCTIONS);
      assert.deepEqual(
        textOf(await client.callTool({ name: 'evidence_runCommand', arguments: { command: 'seq 1 3' } })),
        { text: '$ seq 1 3\nexit code 0\nstdout: 6 bytes, 3 lines:\n1\n2\n3\n\nstderr: empty', isError: false },
      );
      // Named once, though it made two requests.
      assert.equal(stderr.match(/\] client stdio-auto 1\.0\.0 on protocol 2026-07-28\n/g)?.length, 1, stderr);
    } finally {
      await client.close();
    }
  });

  it("exits 2 with the usage on a bad command line (--help is parseCommandLine's, above)", async function () {
    this.timeout(30_000);
    const bad = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        ['--import', 'tsx', path.join(REPO, 'src', 'mcp', 'main.ts'), '--workspace', tmp],
        { cwd: REPO },
        (e, stdout, stderr) => {
          resolve({ code: e ? Number((e as { code?: number }).code) : 0, stdout, stderr });
        },
      );
    });
    assert.deepEqual([bad.code, bad.stdout], [2, '']);
    assert.ok(
      bad.stderr.startsWith('--storage <dir> is required\n\nUsage: node dist/mcp.js --storage <dir>'),
      bad.stderr,
    );
  });
});
