/**
 * Peak RSS of a real MCP server process (src/mcp/main.ts) while evidence_runCommand captures a large stdout and
 * while evidence_readFile keeps a large file, read from /proc (VmHWM). Baseline in the same run: the same server with
 * V8's default young generation (NODE_OPTIONS sets a semi-space size, so the server does not restart itself).
 * Sizes: BENCH_MCP_GIB (default 1,4) GiB captures and one BENCH_MCP_READ_MB (default 200) MB file read.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { report, scratchDir } from './util.js';
import { writerCommand } from '../test/unit/core/runs/fixtures/captureRss.js';

const MiB = 1 << 20;
const REPO = path.resolve(__dirname, '..');

function status(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;
}

interface Peak {
  /** Peak growth over the peak after warm-up. */
  readonly growth: number;
  /** Peak growth from the first quarter of the call to its end (what grows per GiB). */
  readonly late: number;
}

/** One server, one warm-up call, one measured call. */
async function measure(defaultYoung: boolean, dir: string, call: { name: string; arguments: object }): Promise<Peak> {
  const env = { ...process.env };
  if (defaultYoung) env.NODE_OPTIONS = `${env.NODE_OPTIONS ?? ''} --max-semi-space-size=16`.trim();
  const proc = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(REPO, 'src', 'mcp', 'main.ts'), '--storage', path.join(dir, 's'), '--workspace', dir],
    { cwd: REPO, env, stdio: ['pipe', 'pipe', 'ignore'] },
  );
  let out = '';
  const waiting = new Map<number, () => void>();
  proc.stdout.on('data', (b: Buffer) => {
    out += b.toString();
    let nl: number;
    while ((nl = out.indexOf('\n')) >= 0) {
      const m = JSON.parse(out.slice(0, nl)) as { id?: number };
      out = out.slice(nl + 1);
      if (typeof m.id === 'number') waiting.get(m.id)?.();
    }
  });
  const rpc = (id: number, method: string, params: object): Promise<void> =>
    new Promise((resolve) => {
      waiting.set(id, resolve);
      proc.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  try {
    await rpc(0, 'initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'b', version: '1' },
    });
    proc.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    await rpc(1, 'tools/call', { name: 'evidence_runCommand', arguments: { command: writerCommand(8 * MiB) } });
    const pid = proc.pid!;
    const before = status(pid, 'VmHWM');
    const samples: number[] = [];
    const timer = setInterval(() => samples.push(status(pid, 'VmHWM')), 250);
    await rpc(2, 'tools/call', call);
    clearInterval(timer);
    const peak = status(pid, 'VmHWM');
    const quarter = samples[Math.floor(samples.length / 4)] ?? before;
    return { growth: peak - before, late: peak - quarter };
  } finally {
    proc.kill('SIGKILL');
  }
}

async function main(): Promise<void> {
  const mib = (n: number): string => `${(n / MiB).toFixed(1)} MiB`;
  for (const gib of (process.env.BENCH_MCP_GIB ?? '1,4').split(',').map(Number)) {
    const call = {
      name: 'evidence_runCommand',
      arguments: { command: writerCommand(gib * 1024 * MiB), timeoutMs: 3_600_000 },
    };
    const { dir, cleanup } = scratchDir('mcp-mem');
    try {
      const small = await measure(false, dir, call);
      const base = await measure(true, dir, call);
      report(
        `capture ${gib} GiB: peak growth (default young generation)`,
        `${mib(small.growth)} (${mib(base.growth)}), ratio ${(small.growth / base.growth).toFixed(2)}`,
        '< 32 MiB',
      );
      report(
        `capture ${gib} GiB: growth after the first quarter (default)`,
        `${mib(small.late)} (${mib(base.late)})`,
        '~0',
      );
    } finally {
      cleanup();
    }
  }
  const mb = Number(process.env.BENCH_MCP_READ_MB ?? 200);
  const { dir, cleanup } = scratchDir('mcp-mem-read');
  try {
    const line = Buffer.from(`${'r'.repeat(63)}\n`);
    writeFileSync(path.join(dir, 'big.log'), Buffer.concat(Array.from({ length: (mb * 1_000_000) / 64 }, () => line)));
    const call = { name: 'evidence_readFile', arguments: { path: 'big.log' } };
    const small = await measure(false, dir, call);
    const base = await measure(true, dir, call);
    report(
      `readFile ${mb} MB: peak growth (default young generation)`,
      `${mib(small.growth)} (${mib(base.growth)}), ratio ${(small.growth / base.growth).toFixed(2)}`,
      '< 32 MiB',
    );
  } finally {
    cleanup();
  }
}

void main();
