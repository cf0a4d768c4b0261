/**
 * Runs INSIDE the extension host (bundled by bench/host.bench.ts and loaded as the
 * workbench's `extensionTestsPath`, the way the integration suite is run): what an agent
 * meets when a new extension host opens a workspace's storage. From this module's start
 * it pings the host every 100 ms with `setContext` (a command the workbench executes: a
 * round trip host → workbench → host, so a busy extension-host event loop delays it)
 * and records the timer's lateness, the longest round trip and the peak RSS of this
 * process (the extension host); meanwhile it activates the extension, asks
 * `read_tool_output` for a known handle through `vscode.lm.invokeTool` (as an agent's
 * tool call arrives), then times further hits and misses (through the tool and through the
 * extension API's `read`, the core runner alone), and again through the tool after `seconds`
 * (later in start-up: retention and the store's checks may still run). Then it writes its
 * figures to `<out>/<phase>.json` and waits for the bench to reload the window.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { BoundedEvidenceApi } from '../src/extension/api/api.js';

/** The config file's path, baked in at bundling (bench/host.bench.ts). */
declare const BENCH_HOST_CONFIG: string;

/** What host.bench.ts asks of one extension host. */
export interface ProbeConfig {
  phase: string;
  /** Known handles: the first is the first tool call, the rest are timed hits. */
  handles: string[];
  /** Handles nobody minted (timed misses). */
  misses: string[];
  /** How long to ping from this module's start. */
  seconds: number;
  out: string;
  /** Also write `<out>/<phase>.cpuprofile` (this process, from the probe's start to the end of pinging). */
  profile?: boolean;
}

/** What one extension host measured (milliseconds, bytes). */
export interface ProbeResult {
  phase: string;
  /** Extension host process start → this module loaded. */
  hostUptimeMs: number;
  /** This module loaded → `activate()` resolved. */
  activateMs: number;
  /** `activate()` resolved → first `read_tool_output` answer. */
  firstAnswerMs: number;
  firstAnswer: string;
  hitsMs: number[];
  missesMs: number[];
  /** The same reads through the extension's API (`read`): the core runner without the tool round trip. */
  apiHitsMs: number[];
  apiMissesMs: number[];
  /** The tool's hits and misses again at the end of the window (`seconds` after the start). */
  lateHitsMs: number[];
  lateMissesMs: number[];
  missAnswer: string;
  /** Largest lateness of the 100 ms ping timer and largest `setContext` round trip. */
  worstLateMs: number;
  worstRoundTripMs: number;
  /** When (after this module's start) the worst round trip began. */
  worstAtMs: number;
  /** Every ping over 50 ms late or round trip over 100 ms: [at, late, round trip]. */
  slow: [number, number, number][];
  /** When (after this module's start) the CPU profile began, to place the slow pings in it. */
  profiledFrom?: number;
  pings: number;
  peakRss: number;
  startRss: number;
}

const EXTENSION_ID = 'bounded-evidence.bounded-evidence';

async function read(handle: string): Promise<string> {
  const r = await vscode.lm.invokeTool('read_tool_output', {
    input: { handle, limit: 5 },
    toolInvocationToken: undefined,
  });
  return r.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
}

function post(session: Session, method: string, params?: object): Promise<unknown> {
  return new Promise((resolve, reject) => session.post(method, params ?? {}, (e, r) => (e ? reject(e) : resolve(r))));
}

/** Entry point the extension host awaits. */
export async function run(): Promise<void> {
  const t0 = performance.now();
  const cfg = JSON.parse(readFileSync(BENCH_HOST_CONFIG, 'utf8')) as ProbeConfig;
  const res: ProbeResult = {
    phase: cfg.phase,
    hostUptimeMs: process.uptime() * 1000,
    activateMs: 0,
    firstAnswerMs: 0,
    firstAnswer: '',
    hitsMs: [],
    missesMs: [],
    apiHitsMs: [],
    apiMissesMs: [],
    lateHitsMs: [],
    lateMissesMs: [],
    missAnswer: '',
    slow: [],
    worstLateMs: 0,
    worstRoundTripMs: 0,
    worstAtMs: 0,
    pings: 0,
    peakRss: process.memoryUsage().rss,
    startRss: process.memoryUsage().rss,
  };
  let stop = false;
  const pinging = (async () => {
    let due = performance.now() + 100;
    for (let n = 0; !stop; n++) {
      await new Promise((r) => setTimeout(r, Math.max(0, due - performance.now())));
      const sent = performance.now();
      res.worstLateMs = Math.max(res.worstLateMs, sent - due);
      await vscode.commands.executeCommand('setContext', 'boundedEvidence.benchPing', n);
      const rtt = performance.now() - sent;
      if (sent - due > 50 || rtt > 100) res.slow.push([Math.round(sent - t0), Math.round(sent - due), Math.round(rtt)]);
      if (rtt > res.worstRoundTripMs) {
        res.worstRoundTripMs = rtt;
        res.worstAtMs = sent - t0;
      }
      res.pings++;
      res.peakRss = Math.max(res.peakRss, process.memoryUsage().rss);
      due = Math.max(due + 100, performance.now());
    }
  })();
  const session = cfg.profile ? new Session() : undefined;
  if (session) {
    session.connect();
    await post(session, 'Profiler.enable');
    await post(session, 'Profiler.setSamplingInterval', { interval: 1000 });
    await post(session, 'Profiler.start');
    res.profiledFrom = performance.now() - t0;
  }
  const ext = vscode.extensions.getExtension<BoundedEvidenceApi>(EXTENSION_ID);
  if (!ext) throw new Error('extension under test is not loaded');
  const api = await ext.activate();
  const tAct = performance.now();
  res.activateMs = tAct - t0;
  const [first, ...hits] = cfg.handles;
  if (first) {
    res.firstAnswer = (await read(first)).slice(0, 200);
    res.firstAnswerMs = performance.now() - tAct;
  }
  const time = async (into: number[], fn: () => Promise<unknown>): Promise<void> => {
    const t = performance.now();
    await fn();
    into.push(performance.now() - t);
  };
  for (const h of hits) await time(res.hitsMs, () => read(h));
  for (const h of cfg.misses)
    await time(res.missesMs, async () => {
      res.missAnswer = (await read(h)).slice(0, 200);
    });
  for (const h of hits) await time(res.apiHitsMs, () => api.read({ handle: h, limit: 5 }));
  for (const h of cfg.misses)
    await time(res.apiMissesMs, () => api.read({ handle: h, limit: 5 }).catch(() => undefined));
  await new Promise((r) => setTimeout(r, Math.max(0, t0 + cfg.seconds * 1000 - performance.now())));
  for (const h of hits) await time(res.lateHitsMs, () => read(h));
  for (const h of cfg.misses) await time(res.lateMissesMs, () => read(h));
  stop = true;
  await pinging;
  if (session) {
    const { profile } = (await post(session, 'Profiler.stop')) as { profile: unknown };
    writeFileSync(path.join(cfg.out, `${cfg.phase}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  }
  writeFileSync(path.join(cfg.out, `${cfg.phase}.json`), JSON.stringify(res, null, 2));
  // Returning would end the test run, after which the workbench stops taking input; the
  // bench still drives this window (a capture, a reload), and the reload ends this host.
  await new Promise(() => undefined);
}
