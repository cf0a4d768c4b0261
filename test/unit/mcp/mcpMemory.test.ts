/**
 * The MCP server's memory does not grow with a command's output (docs/contracts.md §5.5, memory): a real server
 * process captures 1 GiB through evidence_runCommand and its peak RSS (VmHWM) stays within a bound of what it held
 * before. The bound is generous for a loaded machine; bench/ measures the figures (`npm run bench -- mcpMemory`).
 */
import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SMALL_YOUNG_GENERATION_FLAG } from '../../../src/core/smallYoungGeneration.js';
import { handshake, startServer } from './mcpProcess.js';

const MiB = 1 << 20;

/** Peak resident set of a process so far, in bytes. */
function peakRss(pid: number): number {
  return Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;
}

/** A command writing `bytes` bytes of 64-byte text lines to stdout, as fast as the pipe takes them. */
function writer(bytes: number): string {
  const js = `const b=Buffer.alloc(1<<20);for(let i=0;i<b.length;i++)b[i]=i%64===63?10:97+(i%26);let n=${bytes};const w=()=>{while(n>0){const k=Math.min(n,b.length);n-=k;if(!process.stdout.write(k===b.length?b:b.subarray(0,k))){process.stdout.once('drain',w);return}}};w()`;
  return `${JSON.stringify(process.execPath)} -e ${JSON.stringify(js)}`;
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
        params: { name: 'evidence_runCommand', arguments: { command: writer(8 * MiB) } },
      });
      await s.reply(1);
      const before = peakRss(pid);
      s.send({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'evidence_runCommand', arguments: { command: writer(1024 * MiB), timeoutMs: 580_000 } },
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
});
