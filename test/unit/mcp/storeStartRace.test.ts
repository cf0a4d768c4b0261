/**
 * Many processes starting at once on one new storage folder (docs/contracts.md §2.6): the
 * editor, a routed command's `keep`, an MCP server and the command line start together, and
 * a first start is when the database is created. Every start must succeed (opening waits
 * for another process holding the database for a moment), choose the one tenant, and read
 * every other start's handle; a capture started with the others prints its command's output and is listed.
 */
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { openSession } from '../../../src/cli/session.js';

const RACER = path.join(__dirname, 'fixtures', 'startRacer.ts');
const PROCESSES = 8;
const ROUNDS = 20;
const CAPTURE_ROUNDS = 3;
const MAIN = path.join(__dirname, '..', '..', '..', 'src', 'cli', 'main.ts');
const TSX = pathToFileURL(path.join(__dirname, '..', '..', '..', 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;

type Started = { tenant: string; handle: string; label: string } | { error: string };

/** A racer process: `open(dir)` makes it open the stores of `dir` and resolves to what it says. */
function racer(name: string): { open(dir: string): Promise<Started>; child: ChildProcess } {
  const child = spawn(process.execPath, ['--import', 'tsx', RACER, name], { stdio: ['pipe', 'pipe', 'inherit'] });
  const waiting: ((s: Started) => void)[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => waiting.shift()?.(JSON.parse(line) as Started));
  child.once('exit', (code) => {
    for (const w of waiting.splice(0)) w({ error: `the racer exited (${code})` });
  });
  return {
    child,
    open: (dir) =>
      new Promise((resolve) => {
        waiting.push(resolve);
        child.stdin.write(`${dir}\n`);
      }),
  };
}

describe('processes starting together on a new storage folder', () => {
  let tmp: string;
  let racers: ReturnType<typeof racer>[] = [];
  beforeEach(() => {
    tmp = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'be-start-race-')));
    mkdirSync(path.join(tmp, 'real'));
    symlinkSync(path.join(tmp, 'real'), path.join(tmp, 'link'));
  });
  afterEach(() => {
    for (const r of racers) r.child.kill();
    racers = [];
    rmSync(tmp, { recursive: true, force: true });
  });

  it(`${PROCESSES} processes open one new folder at once (one through a symlinked path), ${ROUNDS} rounds: all start, one tenant, every handle read through either path`, async function () {
    this.timeout(20 * 60_000);
    racers = Array.from({ length: PROCESSES }, (_, i) => racer(String(i)));
    const problems: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const real = path.join(tmp, 'real', `storage-${round}`);
      const viaLink = path.join(tmp, 'link', `storage-${round}`);
      // Every process is told at once (the first round is each process's own start).
      const results = await Promise.all(racers.map((r, i) => r.open(i === 0 ? viaLink : real)));
      const started = results.flatMap((r, i) => {
        if ('error' in r) {
          problems.push(`round ${round}, process ${i}: ${r.error}`);
          return [];
        }
        return [r];
      });
      const tenants = [...new Set(started.map((s) => s.tenant))];
      if (tenants.length !== 1) problems.push(`round ${round}: tenants ${tenants.join(', ')}`);
      const folders = readdirSync(path.join(real, 'evidence', 'logs'));
      if (folders.length !== 1) problems.push(`round ${round}: tenant folders ${folders.join(', ')}`);
      for (const dir of [real, viaLink]) {
        const session = await openSession(dir);
        try {
          for (const s of started) {
            const text = await session.runs.readToolOutput({ handle: s.handle, limit: 1 }).then(
              (r) => r.content.trimEnd(),
              (e: Error) => `error: ${e.message}`,
            );
            if (text !== `racer ${s.label}`) problems.push(`round ${round}: ${s.handle} through ${dir}: ${text}`);
          }
        } finally {
          session.runs.close();
        }
      }
    }
    assert.deepEqual(problems, []);
  });
  it(`${PROCESSES} captures start at once on one new folder (one through a symlinked path), ${CAPTURE_ROUNDS} rounds: each prints its command's output whole, exits with its code, and is listed`, async function () {
    this.timeout(20 * 60_000);
    const capture = (storage: string, i: number): Promise<{ code: number | null; stdout: string; stderr: string }> =>
      new Promise((resolve) => {
        const child = spawn(
          process.execPath,
          [
            '--import',
            TSX,
            MAIN,
            'capture',
            '--storage',
            storage,
            '--shell',
            `echo out ${i}; echo err ${i} >&2; exit ${i}`,
          ],
          { stdio: ['ignore', 'pipe', 'pipe'] },
        );
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
        child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
        child.on('close', (code) => resolve({ code, stdout, stderr }));
      });
    const problems: string[] = [];
    for (let round = 0; round < CAPTURE_ROUNDS; round++) {
      const real = path.join(tmp, 'real', `captures-${round}`);
      const viaLink = path.join(tmp, 'link', `captures-${round}`);
      const results = await Promise.all(
        Array.from({ length: PROCESSES }, (_, i) => capture(i === 0 ? viaLink : real, i)),
      );
      for (const [i, r] of results.entries()) {
        // The observation of a small output holds it whole.
        const command = `echo out ${i}; echo err ${i} >&2; exit ${i}`;
        const seen = `$ ${command}\nexit code ${i}\nstdout: 6 bytes, 1 line:\nout ${i}\n\nstderr: 6 bytes, 1 line:\nerr ${i}\n`;
        if (r.code !== i || r.stdout !== seen || r.stderr !== '')
          problems.push(
            `round ${round}, capture ${i}: exit ${r.code}, ${JSON.stringify(r.stdout)}, ${JSON.stringify(r.stderr)}`,
          );
      }
      const session = await openSession(real);
      try {
        const runs = await session.runs.listRuns();
        if (runs.length !== PROCESSES) problems.push(`round ${round}: ${runs.length} runs listed`);
      } finally {
        session.runs.close();
      }
    }
    assert.deepEqual(problems, []);
  });
});
