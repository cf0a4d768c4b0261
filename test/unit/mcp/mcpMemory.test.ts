/**
 * The MCP server's memory does not grow with a command's output (docs/contracts.md §5.5, memory): a real server
 * process captures 1 GiB through evidence_runCommand and its peak RSS (VmHWM) stays within a bound of what it held
 * before. The bound is generous for a loaded machine; bench/ measures the figures (`npm run bench -- mcpMemory`).
 */
import * as assert from 'node:assert/strict';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SMALL_YOUNG_GENERATION_FLAG } from '../../../src/core/smallYoungGeneration.js';
import { handshake, startServer } from './mcpProcess.js';
import { writerCommand } from '../core/runs/fixtures/captureRss.js';

const MiB = 1 << 20;

/** Peak resident set of a process so far, in bytes. */
function peakRss(pid: number): number {
  return Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;
}

/** Writes a text file of `bytes` bytes of 64-byte lines (an error line among them), one reused megabyte at a time. */
function writeTextFile(file: string, bytes: number): void {
  const b = Buffer.alloc(MiB);
  for (let i = 0; i < b.length; i++) b[i] = i % 64 === 63 ? 10 : 97 + (i % 26);
  b.write('error: a line the error-line scan finds\n', 64 * 100);
  const fd = openSync(file, 'w');
  try {
    for (let n = 0; n < bytes; n += b.length) writeSync(fd, b, 0, Math.min(b.length, bytes - n));
  } finally {
    closeSync(fd);
  }
}

describe('MCP server memory during a large capture', () => {
  let tmp: string;
  beforeEach(() => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'be-mcp-mem-'));
  });
  afterEach(() => rmSync(tmp, { recursive: true, force: true }));

  it('runs with a small young generation and captures 1 GiB within 48 MiB of its peak before', async function () {
    this.timeout(600_000);
    if (process.platform !== 'linux') this.skip();
    const ws = path.join(tmp, 'ws');
    mkdirSync(ws);
    const s = startServer(path.join(tmp, 'storage'), ws);
    try {
      await handshake(s);
      const pid = s.proc.pid!;
      // The same pid restarted itself with the flag (process.execve), so a client's process handle stays valid.
      assert.ok(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(SMALL_YOUNG_GENERATION_FLAG));
      // A first call loads what every call needs; the baseline is taken after it.
      s.send({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'evidence_runCommand', arguments: { command: writerCommand(8 * MiB) } },
      });
      await s.reply(1);
      const before = peakRss(pid);
      s.send({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'evidence_runCommand', arguments: { command: writerCommand(1024 * MiB), timeoutMs: 580_000 } },
      });
      const reply = (await s.reply(2)) as { result?: { isError?: boolean; content?: { text: string }[] } };
      const growth = peakRss(pid) - before;
      const text = reply.result?.content?.[0]?.text ?? '';
      assert.notEqual(reply.result?.isError, true, text);
      assert.match(text, /^stdout: 1073741824 bytes, 16777216 lines, handle out_/m, text.slice(0, 400));
      assert.match(text, /^exit code 0$/m);
      assert.ok(growth < 48 * MiB, `peak RSS grew ${(growth / MiB).toFixed(1)} MiB over ${before / MiB} MiB`);
    } finally {
      s.proc.kill('SIGKILL');
    }
  });

  it('reads a 200 MiB file through evidence_readFile within 32 MiB of its peak before', async function () {
    this.timeout(600_000);
    if (process.platform !== 'linux') this.skip();
    const ws = path.join(tmp, 'ws');
    mkdirSync(ws);
    writeFileSync(path.join(ws, 'small.txt'), 'hi\n');
    // Over the folder's file limit: streamed into the artifact store, then recorded (and scanned for error lines).
    writeTextFile(path.join(ws, 'big.log'), 200 * MiB);
    const s = startServer(path.join(tmp, 'storage'), ws);
    try {
      await handshake(s);
      const pid = s.proc.pid!;
      const read = async (id: number, p: string): Promise<string> => {
        s.send({
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name: 'evidence_readFile', arguments: { path: p } },
        });
        const reply = (await s.reply(id)) as { result?: { isError?: boolean; content?: { text: string }[] } };
        const text = reply.result?.content?.[0]?.text ?? '';
        assert.notEqual(reply.result?.isError, true, text);
        return text;
      };
      // A first read loads what every read needs; the baseline is taken after it.
      assert.equal(await read(1, 'small.txt'), 'hi\n');
      const before = peakRss(pid);
      const text = await read(2, 'big.log');
      const growth = peakRss(pid) - before;
      assert.match(text, new RegExp(`"byte_count":${200 * MiB}\\b`), text.slice(0, 400));
      // The recording scanned every piece: the error lines are told after the observation.
      assert.match(text, /error: a line the error-line scan finds/, text);
      assert.ok(growth < 32 * MiB, `peak RSS grew ${(growth / MiB).toFixed(1)} MiB over ${before / MiB} MiB`);
    } finally {
      s.proc.kill('SIGKILL');
    }
  });
});
