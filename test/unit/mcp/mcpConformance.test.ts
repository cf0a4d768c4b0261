/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance, pinned in
 * scripts/setup-tools.sh) against the Streamable HTTP transport, at both
 * revisions the server serves: the active suite (2025-11-25 wire) and exactly what
 * 2026-07-28 requires. Here, in the unit stage, rather than in test/agents: it is the
 * server's own protocol check, needs no agent and no model, and takes seconds
 * (setup-tools runs before the unit stage in `npm test`).
 *
 * The suite speaks to no server that wants a token, so a relay on loopback adds this
 * start's bearer token and passes everything else (Host and Origin included) through as
 * sent: the suite's DNS-rebinding probes reach the server's own checks.
 *
 * Every scenario the suite runs is named below, as applicable to a server with tools
 * only (all its checks must pass but the few named ones that need the suite's fixture
 * tools) or not, with why; a scenario in neither list fails the test. Every message the
 * server sent in every scenario must be valid per the spec's schema (`wire-schema-valid`).
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { ensureTools, type Tools } from '../../harness/tools.js';
import { serveHttp, type EvidenceHttpServer } from '../../../src/mcp/http.js';
import { createEvidenceMcpServer, type EvidenceMcpServer } from '../../../src/mcp/server.js';

/** Scenarios that apply to a tools-only server: every check passes. */
const APPLICABLE = {
  '2025-11-25': ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'],
  '2026-07-28': [
    'server-stateless',
    'tools-list',
    'server-sse-multiple-streams',
    'dns-rebinding-protection',
    'caching',
    'http-header-validation',
    'input-required-result-unsupported-methods',
    'input-required-result-validate-input',
  ],
} as const;

/**
 * Checks of applicable scenarios that may end other than SUCCESS, each matched by id, status AND the suite's own words
 * (a check that fails for another reason fails the test): what only the suite's fixture tools or features exercise, and
 * what the suite reports about optional features this server does not offer.
 */
const EXEMPT: Record<string, readonly { id: string; status: string; says: RegExp }[]> = {
  // Sessions are optional: the HTTP endpoint is stateless, every request stands alone.
  'server-initialize': [
    { id: 'server-session-id-visible-ascii', status: 'INFO', says: /^Server did not provide an MCP-Session-Id header/ },
  ],
  'server-stateless': [
    ...[
      ['sep-2575-server-rejects-undeclared-capability', 'test_missing_capability'],
      ['sep-2575-missing-capability-http-400', 'test_missing_capability'],
      ['sep-2575-http-server-no-independent-requests-on-stream', 'test_streaming_elicitation'],
      ['sep-2575-server-no-log-without-loglevel', 'test_logging_tool'],
    ].map(([id, tool]) => ({
      id: id!,
      status: 'FAILURE',
      says: new RegExp(`^Not testable: server does not list the diagnostic tool '${tool}' in tools/list`),
    })),
    // The server declares no listChanged capability: its tool list never changes.
    ...['prompts', 'tools'].map((kind) => ({
      id: `sep-2575-server-sends-${kind}-list-changed-on-subscription`,
      status: 'SKIPPED',
      says: new RegExp(`^Server did not declare ${kind}\\.listChanged capability`),
    })),
  ],
  // Cache hints of lists this server does not serve (-32601): it has no prompts and no resources.
  caching: [
    ...['prompts/list', 'resources/list', 'resources/templates/list'].map((method) => ({
      id: `sep-2549-${method.replace(/\//g, '-')}-caching-hints`,
      status: 'FAILURE',
      says: new RegExp(`^${method} returned JSON-RPC error -32601: Method not found$`),
    })),
    { id: 'sep-2549-resources-read-caching-hints', status: 'SKIPPED', says: /^resources\/read was not exercised/ },
  ],
  // SSE streams are optional: this server answers every request with JSON.
  'server-sse-multiple-streams': [
    { id: 'server-sse-streams-functional', status: 'INFO', says: /^Server returned JSON for all requests/ },
  ],
};

/** What the suite says of a check that did not succeed. */
function wordsOf(c: Check): string {
  return c.errorMessage ?? c.details?.message ?? c.details?.note ?? '';
}

const FIXTURE_TOOLS = "calls a fixture tool of the suite's reference server (test_*), which this server does not have";
/** Scenarios that do not apply, and why (for the closing note). */
const NOT_APPLICABLE: Record<string, string> = {
  'logging-set-level': "the logging capability: not declared (the server's log is stderr)",
  'completion-complete': 'completions: the server has no prompts or resource templates to complete',
  'tools-call-simple-text': FIXTURE_TOOLS,
  'tools-call-image': FIXTURE_TOOLS,
  'tools-call-audio': FIXTURE_TOOLS,
  'tools-call-embedded-resource': FIXTURE_TOOLS,
  'tools-call-mixed-content': FIXTURE_TOOLS,
  'tools-call-error': FIXTURE_TOOLS,
  'tools-call-with-progress': FIXTURE_TOOLS,
  'tools-call-with-logging': FIXTURE_TOOLS,
  'json-schema-2020-12': FIXTURE_TOOLS,
  'tools-call-sampling': "sampling from a fixture tool: this server never asks the client's model",
  'tools-call-elicitation': 'elicitation from a fixture tool: this server never asks the user',
  'elicitation-sep1034-defaults': 'elicitation from a fixture tool: this server never asks the user',
  'elicitation-sep1330-enums': 'elicitation from a fixture tool: this server never asks the user',
  'resources-list': 'resources: none served',
  'resources-read-text': 'resources: none served',
  'resources-read-binary': 'resources: none served',
  'resources-templates-read': 'resources: none served',
  'resources-subscribe': 'resources: none served',
  'resources-unsubscribe': 'resources: none served',
  'sep-2164-resource-not-found':
    'resources: none served (resources/read is -32601, not the -32602 of a server with resources)',
  'prompts-list': 'prompts: none served',
  'prompts-get-simple': 'prompts: none served',
  'prompts-get-with-args': 'prompts: none served',
  'prompts-get-embedded-resource': 'prompts: none served',
  'prompts-get-with-image': 'prompts: none served',
  'http-custom-header-server-validation': 'needs a tool with x-mcp-header annotations (a pending scenario, not scored)',
  // Only at 2025-11-25 (the 2026-07-28 run checks the streams of a stateless server).
  'server-session-lifecycle':
    'the 2025-11-25 HTTP endpoint is stateless (no MCP-Session-Id): there is no session lifecycle to check',
  'server-sse-multiple-streams@2025-11-25':
    'the 2025-11-25 scenario needs a session id to open several streams; the endpoint is stateless',
  ...Object.fromEntries(
    [
      'basic-elicitation',
      'basic-sampling',
      'basic-list-roots',
      'request-state',
      'multiple-input-requests',
      'multi-round',
      'missing-input-response',
      'non-tool-request',
      'result-type',
      'tampered-state',
      'capability-check',
      'ignore-extra-params',
    ].map((s) => [
      `input-required-result-${s}`,
      'input_required rounds of fixture tools (test_input_required_result_*): no tool of this server needs input from the client',
    ]),
  ),
  ...Object.fromEntries(
    [
      'lifecycle',
      'capability-negotiation',
      'wire-fields',
      'request-state-removal',
      'mrtr-input',
      'request-headers',
      'dispatch-and-envelope',
      'status-notifications',
      'required-task-error',
      'mrtr-composition',
    ].map((s) => [`tasks-${s}`, 'the tasks extension (not scored for 2026-07-28): not offered']),
  ),
};

interface Check {
  id: string;
  status: string;
  errorMessage?: string;
  details?: { message?: string; note?: string };
}

/** Runs the suite against `url` with `flags` (not spawnSync: the server answers from this process); the checks of each scenario it ran, by scenario name. */
async function runSuite(
  node: string,
  suite: string,
  url: string,
  flags: readonly string[],
  out: string,
): Promise<Map<string, Check[]>> {
  const proc = spawn(node, [suite, 'server', '--url', url, '-o', out, ...flags], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (b: Buffer) => {
    stdout += b.toString();
  });
  proc.stderr.on('data', (b: Buffer) => {
    stderr += b.toString();
  });
  const code = await new Promise<number | null>((resolve) => proc.once('exit', resolve));
  assert.ok(stdout.includes('=== SUMMARY ==='), `the suite did not finish (exit ${code}): ${stderr.slice(-2000)}`);
  const byScenario = new Map<string, Check[]>();
  for (const dir of readdirSync(out)) {
    const name = /^server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$/.exec(dir)?.[1];
    assert.ok(name, dir);
    byScenario.set(name, JSON.parse(readFileSync(path.join(out, dir, 'checks.json'), 'utf8')) as Check[]);
  }
  return byScenario;
}

describe('the official MCP conformance suite against mcp --http', function () {
  this.timeout(300_000);
  let tmp: string;
  let mcp: EvidenceMcpServer;
  let http: EvidenceHttpServer;
  let relay: Server;
  let relayUrl: string;
  // Installed before the unit stage by `npm test`'s setup step; here only when missing (in `before`, not while mocha loads files).
  let tools: Tools;

  before(async () => {
    tools = ensureTools();
    assert.ok(existsSync(tools.mcpConformance), tools.mcpConformance);
    tmp = mkdtempSync(path.join(os.tmpdir(), 'be-mcp-conformance-'));
    mkdirSync(path.join(tmp, 'ws'));
    mcp = await createEvidenceMcpServer({
      storageDir: path.join(tmp, 'storage'),
      workspaceFolder: path.join(tmp, 'ws'),
      log: () => undefined,
    });
    http = await serveHttp(mcp, { port: 0, storageDir: path.join(tmp, 'storage') });
    const port = new URL(http.url).port;
    relay = createServer((req, res) => {
      const up = request(
        {
          host: '127.0.0.1',
          port,
          path: req.url,
          method: req.method,
          headers: { ...req.headers, authorization: `Bearer ${http.token}` },
        },
        (answer) => {
          res.writeHead(answer.statusCode!, answer.headers);
          answer.pipe(res);
        },
      );
      up.on('error', () => res.destroy());
      req.pipe(up);
    });
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
    relayUrl = `http://127.0.0.1:${(relay.address() as AddressInfo).port}/mcp`;
  });

  after(async () => {
    relay?.closeAllConnections();
    await new Promise((resolve) => relay?.close(resolve));
    await http?.close();
    await mcp?.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  for (const [revision, flags] of [
    ['2025-11-25', []],
    ['2026-07-28', ['--requirements', '2026-07-28']],
  ] as const) {
    it(`${revision}: every scenario that applies to a tools-only server passes; each other one is named with why`, async () => {
      const results = await runSuite(
        tools.node24,
        tools.mcpConformance,
        relayUrl,
        flags,
        path.join(tmp, `out-${revision}`),
      );
      const applicable: readonly string[] = APPLICABLE[revision];
      const why = (scenario: string): string | undefined =>
        NOT_APPLICABLE[`${scenario}@${revision}`] ?? NOT_APPLICABLE[scenario];
      const unknown = [...results.keys()].filter((s) => !applicable.includes(s) && why(s) === undefined);
      assert.deepEqual(unknown, [], 'scenarios neither applicable nor explained');
      for (const s of applicable) assert.ok(results.has(s), `the suite did not run ${s}`);
      const counts = { passed: 0, failed: 0, notTestable: 0 };
      for (const [scenario, checks] of results) {
        for (const c of checks.filter((k) => k.id === 'wire-schema-valid'))
          assert.equal(c.status, 'SUCCESS', `${scenario}: ${c.errorMessage ?? ''}`);
        if (!applicable.includes(scenario)) continue;
        // A scenario that ran no check of its own did not pass: it is not applicable, and must say why above.
        assert.ok(
          checks.some((c) => c.status === 'SUCCESS'),
          `${scenario} ran no check that passed: ${checks.map((c) => `${c.id} ${c.status}`).join(', ')}`,
        );
        for (const c of checks) {
          if (c.status === 'SUCCESS') {
            counts.passed++;
            continue;
          }
          const exempt = EXEMPT[scenario]?.some(
            (e) => e.id === c.id && e.status === c.status && e.says.test(wordsOf(c)),
          );
          if (exempt) counts.notTestable++;
          else {
            // Warnings, skips and notes count as much as failures: each one is either fixed or exempted with why.
            counts.failed++;
            assert.fail(`${scenario} / ${c.id}: ${c.status} ${wordsOf(c)}`);
          }
        }
      }
      // For the closing note: checks passed in the applicable scenarios, and the scenarios that do not apply.
      process.stdout.write(
        `      conformance ${revision}: ${applicable.length} applicable scenarios, ${counts.passed} checks passed, ${counts.failed} failed, ${counts.notTestable} not testable; ${results.size - applicable.length} scenarios not applicable\n`,
      );
      assert.ok(counts.passed > 0);
    });
  }
});
