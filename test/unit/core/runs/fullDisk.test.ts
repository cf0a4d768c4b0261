/**
 * A full disk (docs/contracts.md §5.6). Reads of earlier evidence work, and so does a file
 * already kept read again, while the storage is full (recording the read is best-effort); a capture lost to the
 * full disk is an error result that names the cause and what was kept; a file over the folder limit streamed into a
 * storage that fills midway leaves no partial artifact (§3.3). A real MCP server
 * process over storage on a small tmpfs (mounting needs root: CI runs as root, and the
 * precondition is asserted, never skipped).
 */
import * as assert from 'node:assert/strict';
import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  rmSync,
  statfsSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { handshake, startServer } from '../../mcp/mcpProcess.js';
import { fillDisk, mountTmpfs } from '../../tmpfs.js';

type Reply = { result?: { content: { text: string }[]; isError?: boolean }; error?: unknown };

describe('a full disk', () => {
  let tmp: string;
  let unmount: (() => void) | undefined;
  beforeEach(() => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'be-full-'));
  });
  afterEach(() => {
    unmount?.();
    unmount = undefined;
    rmSync(tmp, { recursive: true, force: true });
  });

  it('reads of earlier evidence work while the storage is full; a lost capture is an error naming the cause', async function () {
    this.timeout(120_000);
    const storage = path.join(tmp, 'storage');
    unmount = mountTmpfs(storage, 16);
    const ws = path.join(tmp, 'ws');
    mkdirSync(ws);
    const body = Array.from({ length: 4000 }, (_, i) => `line ${i} of the file\n`).join('');
    writeFileSync(path.join(ws, 'big.txt'), body);
    const s = startServer(storage, ws);
    let id = 10;
    const call = async (name: string, args: Record<string, unknown>): Promise<{ text: string; isError: boolean }> => {
      const n = id++;
      s.send({ jsonrpc: '2.0', id: n, method: 'tools/call', params: { name, arguments: args } });
      const r = (await s.reply(n)) as Reply;
      assert.ok(r.result, JSON.stringify(r));
      return { text: r.result.content[0]!.text, isError: r.result.isError === true };
    };
    try {
      await handshake(s);
      const first = await call('evidence_readFile', { path: 'big.txt' });
      const artifact = /"artifact_id":"(artifact-[0-9a-f]{64})"/.exec(first.text)?.[1];
      assert.ok(artifact, first.text);
      const ran = await call('evidence_runCommand', { command: 'seq 1 30000' });
      const handle = /stdout: [^\n]*handle (out_[a-z2-7]{26})\./.exec(ran.text)?.[1];
      assert.ok(handle, ran.text);

      const filler = fillDisk(storage);
      // Reads of earlier evidence: exact bytes, although nothing can be recorded.
      const range = await call('evidence_readFile', { path: `.tool-artifacts/${artifact}/bytes/0-40` });
      assert.equal(range.isError, false, range.text);
      assert.ok(range.text.includes(`"data":${JSON.stringify(body.slice(0, 40))}`), range.text);
      // The file already kept, read again whole: the same observation as before, only without a handle.
      const reread = await call('evidence_readFile', { path: 'big.txt' });
      assert.equal(reread.isError, false, reread.text);
      assert.ok(first.text.startsWith(`${reread.text}\n`), reread.text);
      assert.doesNotMatch(reread.text, /out_[a-z2-7]{26}/);
      const lines = await call('read_tool_output', { handle, offset: 29999, limit: 1 });
      assert.equal(lines.isError, false, lines.text);
      assert.equal(JSON.parse(lines.text).content, '30000');
      // A capture that cannot be kept: an error result naming the cause.
      const lost = await call('evidence_runCommand', { command: 'head -c 3000000 /dev/zero | tr "\\0" a' });
      assert.equal(lost.isError, true, lost.text);
      assert.match(lost.text, /^error: .*storage is full \(no space left on device\)/, lost.text);
      assert.match(s.stderr(), /not recorded/);

      // Freed: capturing works again.
      rmSync(filler);
      const again = await call('evidence_runCommand', { command: 'head -c 3000000 /dev/zero | tr "\\0" a' });
      assert.equal(again.isError, false, again.text);
      assert.match(again.text, /stdout: 3000000 bytes/);
    } finally {
      s.proc.kill('SIGKILL');
      await new Promise((r) => s.proc.once('exit', r));
    }
  });

  it('a file over the folder limit, streamed into a storage that fills up midway: the contract error, no partial artifact, and kept once space is freed', async function () {
    this.timeout(120_000);
    const storage = path.join(tmp, 'storage');
    unmount = mountTmpfs(storage, 32);
    const ws = path.join(tmp, 'ws');
    mkdirSync(ws);
    // 20 MiB of text lines: over the MCP server's 16 MiB file limit, so streamed from its descriptor into the store.
    const size = 20 * 1024 * 1024;
    const line = Buffer.from(`${'streamed '.repeat(7)}line\n`);
    const fd = openSync(path.join(ws, 'huge.log'), 'w');
    for (let n = 0; n < size; n += line.length) writeSync(fd, line, 0, Math.min(line.length, size - n));
    closeSync(fd);
    const s = startServer(storage, ws);
    let id = 10;
    const call = async (name: string, args: Record<string, unknown>): Promise<{ text: string; isError: boolean }> => {
      const n = id++;
      s.send({ jsonrpc: '2.0', id: n, method: 'tools/call', params: { name, arguments: args } });
      const r = (await s.reply(n)) as Reply;
      assert.ok(r.result, JSON.stringify(r));
      return { text: r.result.content[0]!.text, isError: r.result.isError === true };
    };
    const free = (): number => {
      const st = statfsSync(storage);
      return st.bavail * st.bsize;
    };
    /** Files under the storage (but the filler) of at least 1 MiB: a kept or partial copy of the file. */
    const large = (dir = storage): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) return large(p);
        return e.name !== 'filler' && statSync(p).size >= 1024 * 1024 ? [path.relative(storage, p)] : [];
      });
    try {
      await handshake(s);
      assert.equal((await call('evidence_runCommand', { command: 'echo ready' })).isError, false);
      // Room for about 6 MiB: the stream starts, and the disk is full before its end.
      const filler = path.join(storage, 'filler');
      const fill = openSync(filler, 'w');
      const mib = Buffer.alloc(1024 * 1024, 1);
      while (free() > 6 * 1024 * 1024) writeSync(fill, mib);
      closeSync(fill);
      const room = free();
      const lost = await call('evidence_readFile', { path: 'huge.log' });
      assert.deepEqual(lost, {
        text: 'error: the file could not be kept: the evidence storage is full (no space left on device)',
        isError: true,
      });
      // Nothing partial is left: no large file, and the space the stream took is given back.
      assert.deepEqual(large(), []);
      assert.ok(free() >= room - 512 * 1024, `free ${free()} bytes after the call, ${room} before`);

      rmSync(filler);
      const kept = await call('evidence_readFile', { path: 'huge.log' });
      assert.equal(kept.isError, false, kept.text);
      assert.match(kept.text, new RegExp(`"byte_count":${size}\\b`), kept.text.slice(0, 400));
      assert.equal(large().length, 1);
    } finally {
      s.proc.kill('SIGKILL');
      await new Promise((r) => s.proc.once('exit', r));
    }
  });
});
