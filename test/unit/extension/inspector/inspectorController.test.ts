/**
 * The inspector's host side against a real RunStore and a real filesystem blob store:
 * every reply is checked byte for byte (sizes, handles, sha256, windows, excerpts), bad
 * messages get error replies, and tampered bytes are refused with the contract sentence.
 */
import * as assert from 'node:assert/strict';
import { binaryMatchWindow } from '../../../../src/shared/matchWindow.js';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ErrorText, FsBlobStore, RunStore } from '../../../../src/core/index.js';
import { InspectorController, noStoreMessage } from '../../../../src/extension/inspector/controller.js';
import type { InspectorActions } from '../../../../src/extension/inspector/controllerOptions.js';
import type {
  CompareSideDto,
  ExcerptRangeDto,
  HostToWebview,
  ListQueryDto,
  PageReply,
  WebviewToHost,
} from '../../../../src/shared/protocol.js';

const sha = (b: Uint8Array | string): string => createHash('sha256').update(b).digest('hex');
const enc = new TextEncoder();

/** A multi-line log with one error line in the middle. */
function buildLog(lines: number, errorAt: number): string {
  const out: string[] = [];
  for (let i = 0; i < lines; i++)
    out.push(i === errorAt ? `ERROR: disk quota exceeded at step ${i}` : `step ${i}: ok ${'·'.repeat(i % 7)}`);
  return `${out.join('\n')}\n`;
}

interface Harness {
  controller: InspectorController;
  posted: HostToWebview[];
  clipboard: string[];
  chat: string[];
  compared: [CompareSideDto, CompareSideDto][];
  saved: [string, ExcerptRangeDto][];
  send(m: WebviewToHost | Record<string, unknown>): Promise<HostToWebview>;
}

function harness(store: () => RunStore | undefined, chatAvailable = true, uriScheme?: string): Harness {
  const posted: HostToWebview[] = [];
  const clipboard: string[] = [];
  const chat: string[] = [];
  const compared: [CompareSideDto, CompareSideDto][] = [];
  const saved: [string, ExcerptRangeDto][] = [];
  const actions: InspectorActions = {
    personRead: () => undefined,
    writeClipboard: async (t) => {
      clipboard.push(t);
    },
    sendToChat: async (t) => {
      if (chatAvailable) {
        chat.push(t);
        return 'chat';
      }
      clipboard.push(t);
      return 'clipboard';
    },
    openArtifact: async () => undefined,
    startAction: () => undefined,
    compareWindows: async (l, r) => {
      compared.push([l, r]);
      return `compared ${l.handle} with ${r.handle}`;
    },
    saveExcerpt: async (hd, range) => {
      saved.push([hd, range]);
      return saved.length === 1 ? `saved ${hd}` : undefined;
    },
  };
  const controller = new InspectorController({
    store,
    post: (m) => posted.push(m),
    actions,
    log: { info() {}, warn() {}, error() {} },
    deltaDelayMs: 5,
    ...(uriScheme ? { uriScheme } : {}),
  });
  return {
    controller,
    posted,
    clipboard,
    chat,
    compared,
    saved,
    async send(m) {
      const before = posted.length;
      await controller.receive(m);
      assert.ok(posted.length > before, `no reply to ${JSON.stringify(m).slice(0, 80)}`);
      return posted[posted.length - 1]!;
    },
  };
}

describe('inspector controller over a real RunStore', () => {
  let dir: string;
  let store: RunStore;
  let blobRoot: string;
  const log = buildLog(60_000, 31_337);
  const logBytes = enc.encode(log);
  let handle: string;
  let runId: string;
  let callId: string;

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'inspector-'));
    blobRoot = path.join(dir, 'blobs');
    store = await RunStore.open({
      logsDir: path.join(dir, 'logs'),
      tenant: 'tenant-a',
      blobs: await FsBlobStore.open(blobRoot),
    });
    const run = await store.startRun({ label: 'build' });
    const out = await run.recordResult('shell', { command: 'make' }, log);
    await run.recordResult('echo', { text: 'hi' }, 'small result');
    await run.recordResult('dump', {}, Uint8Array.from([0, 1, 2, 0xff, 0xfe, 10, 0x41, ...new Array(20_000).fill(7)]));
    await run.finish();
    assert.ok(out.handle);
    handle = out.handle;
    runId = run.runId;
    callId = out.callId;
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('answers ready with init alone, then pages of calls with exact size, handle and sha256', async () => {
    const h = harness(() => store);
    await h.controller.receive({ type: 'ready' });
    // Nothing is pushed: the page asks for what it shows.
    assert.deepEqual(
      h.posted.map((m) => m.type),
      ['init'],
    );
    const init = h.posted[0]!;
    assert.ok(init.type === 'init' && init.storeAvailable && init.limits.maxWindowBytes === 65536);
    const page = (await h.send({
      type: 'page',
      id: 1,
      offset: 0,
      limit: 100,
      query: { order: 'newest' },
      facets: true,
    })) as PageReply;
    assert.deepEqual(
      [page.type, page.id, page.offset, page.total, page.all, page.tools, page.sources],
      ['page', 1, 0, 3, 3, ['dump', 'echo', 'shell'], ['tool']],
    );
    assert.deepEqual(
      page.runs.map((r) => [r.runId, r.label, r.callCount]),
      [[runId, 'build', 3]],
    );
    const calls = page.calls;
    assert.deepEqual(
      calls.map((c) => c.tool),
      ['dump', 'echo', 'shell'],
    );
    assert.equal(calls[2]!.argsSummary, '{"command":"make"}');
    const c = calls.find((x) => x.callId === callId)!;
    assert.deepEqual(
      [c.tool, c.status, c.result.handle, c.result.sizeBytes, c.result.sha256, c.result.stored, c.result.lineCount],
      ['shell', 'ok', handle, logBytes.length, sha(logBytes), 'blob', 60_000],
    );
    const small = calls.find((x) => x.tool === 'echo')!;
    assert.deepEqual(
      [small.result.handle, small.result.sizeBytes, small.result.sha256],
      [undefined, 12, sha('small result')],
    );
  });

  it('details a call with its preview split at the recorded byte ranges', async () => {
    const h = harness(() => store);
    const r = await h.send({ type: 'detail', id: 1, ref: { runId, callId, part: 'result' } });
    assert.ok(r.type === 'detail');
    const p = r.preview;
    assert.ok(p.head !== undefined && p.tail !== undefined && p.headEnd !== undefined && p.tailStart !== undefined);
    assert.equal(p.head, new TextDecoder().decode(logBytes.subarray(0, p.headEnd)));
    assert.equal(p.tail, new TextDecoder().decode(logBytes.subarray(p.tailStart)));
    assert.ok(p.headEnd > 0 && p.tailStart < logBytes.length);
    const bad = await h.send({ type: 'detail', id: 2, ref: { runId, callId: 'nope', part: 'result' } });
    assert.deepEqual(bad, { type: 'error', id: 2, message: 'that call or output is not in this run' });
  });

  it('fetches exact byte windows, and answers a cut character with the contract sentence', async () => {
    const h = harness(() => store);
    const start = 123_457;
    const r = await h.send({ type: 'fetchBytes', id: 3, handle, start, end: start + 16384, snap: false });
    assert.ok(r.type === 'window' && r.id === 3);
    assert.equal(r.window.text, new TextDecoder().decode(logBytes.subarray(start, start + 16384)));
    assert.deepEqual(
      [r.window.start, r.window.end, r.window.totalBytes, r.window.encoding],
      [start, start + 16384, logBytes.length, 'text'],
    );
    assert.equal(
      r.window.firstLine,
      log.slice(0, new TextDecoder().decode(logBytes.subarray(0, start)).length).split('\n').length - 1,
    );
    // '·' is two bytes: find one and cut through it.
    const dot = logBytes.indexOf(0xc2);
    const cut = await h.send({ type: 'fetchBytes', id: 4, handle, start: dot + 1, end: dot + 10, snap: false });
    assert.deepEqual(cut, { type: 'error', id: 4, message: ErrorText.rangeNotUtf8 });
    const past = await h.send({
      type: 'fetchBytes',
      id: 5,
      handle,
      start: logBytes.length - 1,
      end: logBytes.length + 1,
      snap: false,
    });
    assert.deepEqual(past, {
      type: 'error',
      id: 5,
      message: `byte ${(logBytes.length + 1).toLocaleString('en-US')} is past the end: the output holds ${logBytes.length.toLocaleString('en-US')} bytes`,
    });
    const tooBig = await h.send({ type: 'fetchBytes', id: 6, handle, start: 0, end: 65537, snap: false });
    assert.deepEqual(tooBig, { type: 'error', id: 6, message: 'a window may cover at most 65536 bytes' });
  });

  it('answers the next pages of a pattern from the block read with the first (the same matches a direct read gives, no second scan)', async () => {
    let reads = 0;
    const counting = new Proxy(store, {
      get: (t, k) =>
        k === 'readToolOutput'
          ? (...a: Parameters<RunStore['readToolOutput']>) => {
              reads++;
              return t.readToolOutput(...a);
            }
          : Reflect.get(t, k),
    });
    const c = harness(() => counting as RunStore);
    const pages: HostToWebview[] = [];
    const offsets = [0, 50, 100, 500, 900, 950, 1000];
    for (const offset of offsets)
      pages.push(
        await c.send({ type: 'findPattern', id: 40 + offset, handle, pattern: 'step \\d*5: ok', offset, limit: 50 }),
      );
    // 0 … 950 come from the first block of 1,000 (~22,000 characters: more than a model's
    // 10,000-character reply, so the block is read with a larger cap); 1000 starts another.
    assert.equal(reads, 2);
    for (const [i, offset] of offsets.entries()) {
      const direct = await store.readToolOutput({ handle, pattern: 'step \\d*5: ok', offset, limit: 50 });
      const p = pages[i]!;
      assert.ok(p.type === 'matches');
      assert.equal(p.totalMatches, direct.total_matches);
      assert.equal(p.truncated, direct.truncated);
      assert.deepEqual(
        p.matches.map((m) => [m.lineNumber, m.byteOffset]),
        (direct.matches ?? []).map((m) => [m.line_number, m.byte_offset]),
      );
      assert.deepEqual(p.matches.map((m) => `${m.lineNumber}:${m.text}`).join('\n'), direct.content);
    }
  });

  it("answers a page of matches with the asked match's lines window, exactly what fetchLines gives for it (one round trip)", async () => {
    const h = harness(() => store);
    const r = await h.send({
      type: 'findPattern',
      id: 50,
      handle,
      pattern: 'step \\d*5: ok',
      offset: 50,
      limit: 50,
      window: { index: 53, context: 3 },
    });
    assert.ok(r.type === 'matches' && r.window, JSON.stringify(r).slice(0, 200));
    const line = r.matches[3]!.lineNumber - 1;
    const w = await h.send({ type: 'fetchLines', id: 51, handle, offset: line - 3, count: 7 });
    assert.ok(w.type === 'window');
    assert.equal(r.windowIndex, 53);
    assert.deepEqual(r.window, w.window);
    assert.equal(r.window.text.split('\n')[3], `step ${line}: ok ${'·'.repeat(line % 7)}`);
    // No window asked, or a match past the end: none carried.
    const plain = await h.send({
      type: 'findPattern',
      id: 52,
      handle,
      pattern: 'step \\d*5: ok',
      offset: 50,
      limit: 50,
    });
    assert.ok(plain.type === 'matches' && plain.window === undefined && plain.windowIndex === undefined);
    const past = await h.send({
      type: 'findPattern',
      id: 53,
      handle,
      pattern: '^ERROR',
      offset: 0,
      limit: 50,
      window: { index: 1, context: 3 },
    });
    assert.ok(past.type === 'matches' && past.totalMatches === 1 && past.window === undefined);
    // The host still checks it: a window outside the page, or a context past the lines cap, is refused.
    const outside = await h.send({
      type: 'findPattern',
      id: 54,
      handle,
      pattern: 'step',
      offset: 50,
      limit: 50,
      window: { index: 100, context: 3 },
    });
    assert.ok(outside.type === 'error' && outside.id === 54 && /index/.test(outside.message), JSON.stringify(outside));
    const wide = await h.send({
      type: 'findPattern',
      id: 55,
      handle,
      pattern: 'step',
      offset: 0,
      limit: 50,
      window: { index: 0, context: 10_000 },
    });
    assert.ok(wide.type === 'error' && /context/.test(wide.message));
    const extra = await h.send({
      type: 'findPattern',
      id: 56,
      handle,
      pattern: 'step',
      offset: 0,
      limit: 50,
      window: { index: 0, context: 3, lines: 9 },
    } as Record<string, unknown>);
    assert.ok(extra.type === 'error' && /unexpected field "lines"/.test(extra.message));
  });

  it('finds the error line by pattern with its line number, and shows its lines window with byte positions', async () => {
    const h = harness(() => store);
    const r = await h.send({ type: 'findPattern', id: 7, handle, pattern: '^ERROR', offset: 0, limit: 50 });
    assert.ok(r.type === 'matches');
    assert.deepEqual(
      [r.totalMatches, r.matches],
      [
        1,
        [
          {
            lineNumber: 31_338,
            byteOffset: enc.encode(log.slice(0, log.indexOf('ERROR'))).length,
            text: 'ERROR: disk quota exceeded at step 31337',
          },
        ],
      ],
    );
    const w = await h.send({ type: 'fetchLines', id: 8, handle, offset: 31_337, count: 1 });
    assert.ok(w.type === 'window');
    const startByte = enc.encode(log.slice(0, log.indexOf('ERROR'))).length;
    assert.deepEqual(
      [w.window.start, w.window.end, w.window.text, w.window.firstLine],
      [startByte, startByte + 41, 'ERROR: disk quota exceeded at step 31337\n', 31_337],
    );
    const bad = await h.send({ type: 'findPattern', id: 9, handle, pattern: '([', offset: 0, limit: 5 });
    assert.ok(bad.type === 'error' && bad.id === 9 && bad.message.length > 0 && !bad.message.includes(dir));
  });

  it('searches every output for a pattern with exact line and byte offset, and cancels a search', async () => {
    const h = harness(() => store);
    const r = await h.send({ type: 'searchOutputs', id: 30, pattern: '^ERROR', limit: 100 });
    assert.ok(r.type === 'searchResults' && r.id === 30, JSON.stringify(r).slice(0, 200));
    const startByte = enc.encode(log.slice(0, log.indexOf('ERROR'))).length;
    assert.deepEqual(
      [r.totalMatches, r.outputsMatched, r.truncated, r.matches],
      [
        1,
        1,
        false,
        [
          {
            handle,
            tool: 'shell',
            runId,
            lineNumber: 31_338,
            byteOffset: startByte,
            column: 1,
            text: 'ERROR: disk quota exceeded at step 31337',
          },
        ],
      ],
    );
    // Scoped to a tool without that line: searched, nothing found.
    const none = await h.send({ type: 'searchOutputs', id: 31, pattern: '^ERROR', limit: 5, tool: 'echo' });
    assert.ok(none.type === 'searchResults');
    assert.deepEqual([none.totalMatches, none.matches.length], [0, 0]);
    // The reply is bounded: 60,000 matching lines, `limit` returned, the total honest.
    const many = await h.send({ type: 'searchOutputs', id: 32, pattern: '^step', limit: 3 });
    assert.ok(many.type === 'searchResults');
    assert.deepEqual(
      [many.totalMatches, many.matches.length, many.truncated, many.matches.map((m) => m.lineNumber)],
      [59_999, 3, true, [1, 2, 3]],
    );
    // Cancel while it runs: the reply is the cancellation sentence.
    const pending = h.controller.receive({ type: 'searchOutputs', id: 33, pattern: 'step [0-9]+5:', limit: 100 });
    await h.controller.receive({ type: 'cancelSearch', searchId: 33 });
    await pending;
    const last = h.posted[h.posted.length - 1]!;
    assert.deepEqual(last, { type: 'error', id: 33, message: 'pattern search cancelled' });
  });

  it('copies an excerpt whose provenance re-verifies, and sends the same text to chat', async () => {
    const h = harness(() => store);
    const start = enc.encode(log.slice(0, log.indexOf('ERROR'))).length;
    const range = { kind: 'lines' as const, offset: 31_337, count: 1 };
    const r = await h.send({ type: 'copyExcerpt', id: 10, handle, range });
    assert.deepEqual(r, { type: 'done', id: 10, message: 'Excerpt of 41 bytes copied with its provenance.' });
    const md = h.clipboard[0]!;
    const bytes = logBytes.subarray(start, start + 41);
    assert.equal(
      md,
      [
        '```text',
        'ERROR: disk quota exceeded at step 31337',
        '```',
        '',
        'Evidence excerpt (exact text):',
        `- handle: \`${handle}\``,
        `- range: bytes [${start}, ${start + 41}), line 31338`,
        `- excerpt: 41 bytes, sha256 ${sha(bytes)}`,
        `- artifact: ${logBytes.length} bytes, sha256 ${sha(logBytes)}`,
        `- open: <vscode://bounded-evidence.bounded-evidence/open?handle=${handle}&bytes=${start}-${start + 41}>`,
        '',
      ].join('\n'),
    );
    const c = await h.send({ type: 'sendToChat', id: 11, handle, range: { kind: 'bytes', start, end: start + 41 } });
    assert.deepEqual(c, { type: 'done', id: 11, message: 'Excerpt placed in the chat input (not sent).' });
    assert.equal(h.chat[0], md);
    const fallback = harness(() => store, false);
    const f = await fallback.send({ type: 'sendToChat', id: 12, handle, range });
    assert.ok(f.type === 'done' && f.message.includes('copied to the clipboard instead'));
    assert.equal(fallback.clipboard[0], md);
    // Insiders and OSS builds open other schemes: the link uses the editor's own (vscode.env.uriScheme).
    const insiders = harness(() => store, true, 'vscode-insiders');
    await insiders.send({ type: 'copyExcerpt', id: 13, handle, range });
    assert.equal(insiders.clipboard[0], md.replace('- open: <vscode://', '- open: <vscode-insiders://'));
  });

  it('opens the diff on two checked windows, and says what opened next to the button', async () => {
    const h = harness(() => store);
    const r = await h.send({
      type: 'compareWindows',
      id: 20,
      left: { handle, start: 0, end: 10 },
      right: { handle: 'out_other', start: 5, end: 9 },
    });
    assert.deepEqual(r, { type: 'done', id: 20, message: `compared ${handle} with out_other` });
    assert.deepEqual(h.compared, [
      [
        { handle, start: 0, end: 10 },
        { handle: 'out_other', start: 5, end: 9 },
      ],
    ]);
    const bad = await h.send({
      type: 'compareWindows',
      id: 21,
      left: { handle, start: 0, end: 70000 },
      right: { handle, start: 0, end: 1 },
    });
    assert.deepEqual(bad, { type: 'error', id: 21, message: 'a window may cover at most 65536 bytes' });
    assert.equal(h.compared.length, 1);
  });

  it('saves the window on screen through Save Excerpt As… (the person picks where), and says so or that nothing was saved', async () => {
    const h = harness(() => store);
    const range = { kind: 'bytes', start: 0, end: 10 } as const;
    assert.deepEqual(await h.send({ type: 'saveExcerpt', id: 30, handle, range }), {
      type: 'done',
      id: 30,
      message: `saved ${handle}`,
    });
    assert.deepEqual(await h.send({ type: 'saveExcerpt', id: 31, handle, range }), {
      type: 'done',
      id: 31,
      message: 'Not saved.',
    });
    assert.deepEqual(h.saved, [
      [handle, range],
      [handle, range],
    ]);
    // An unknown handle is refused before anything is asked.
    const unknown = await h.send({ type: 'saveExcerpt', id: 32, handle: 'out_nope00000-1_stdout', range });
    assert.equal(unknown.type, 'error');
    assert.equal(h.saved.length, 2);
  });

  it('shows binary content as a hex dump and refuses lines for it', async () => {
    const h = harness(() => store);
    const page = await h.send({ type: 'page', id: 12, offset: 0, limit: 10, query: { order: 'newest', tool: 'dump' } });
    const bin = (page as PageReply).calls[0]!;
    assert.equal(bin.result.binary, true);
    const r = await h.send({ type: 'fetchBytes', id: 13, handle: bin.result.handle!, start: 0, end: 7, snap: true });
    assert.ok(r.type === 'window');
    assert.deepEqual(
      [r.window.encoding, r.window.text],
      ['hex', '00000000  00 01 02 ff fe 0a 41                              |......A|'],
    );
    const l = await h.send({ type: 'fetchLines', id: 14, handle: bin.result.handle!, offset: 0, count: 1 });
    assert.deepEqual(l, {
      type: 'error',
      id: 14,
      message: 'binary content has no lines: use a byte window (shown as hex)',
    });
  });

  it('finds a pattern in binary content by byte offset and answers with the byte window around it, as fetchBytes gives it', async () => {
    const h = harness(() => store);
    const page = await h.send({ type: 'page', id: 60, offset: 0, limit: 10, query: { order: 'newest', tool: 'dump' } });
    const bin = (page as PageReply).calls[0]!.result.handle!;
    const r = await h.send({
      type: 'findPattern',
      id: 61,
      handle: bin,
      pattern: 'A',
      offset: 0,
      limit: 50,
      window: { index: 0, context: 3 },
    });
    assert.ok(r.type === 'matches', JSON.stringify(r));
    assert.deepEqual([r.binary, r.totalMatches, r.matches.map((m) => m.byteOffset), r.windowIndex], [true, 1, [6], 0]);
    // The match's text is the reader's escaped bytes from the match on (docs/contracts.md §2.10), as a model gets it.
    const read = await store.readToolOutput({ handle: bin, pattern: 'A', offset: 0, limit: 50 });
    assert.equal(`${r.matches[0]!.lineNumber}:${r.matches[0]!.text}`, read.content);
    assert.ok(r.matches[0]!.text.startsWith('A\\x07\\x07'), r.matches[0]!.text.slice(0, 40));
    const direct = await h.send({ type: 'fetchBytes', id: 62, handle: bin, start: 0, end: 256, snap: false });
    assert.ok(direct.type === 'window');
    assert.deepEqual(r.window, direct.window);
    assert.deepEqual([r.window!.encoding, r.window!.start, r.window!.end], ['hex', 0, 256]);
    // The window starts on a 16-byte row up to 64 bytes before the match, and stops at the output's end.
    assert.deepEqual(
      [binaryMatchWindow(1000, 20_007), binaryMatchWindow(20_000, 20_007), binaryMatchWindow(0, 1)],
      [
        { start: 928, end: 1184 },
        { start: 19_936, end: 20_007 },
        { start: 0, end: 1 },
      ],
    );
  });

  it('refuses a handle the store never minted as access denied, naming nothing', async () => {
    const h = harness(() => store);
    const forged = handle.replace(/.$/, (c) => (c === '0' ? '1' : '0'));
    const r = await h.send({ type: 'fetchBytes', id: 15, handle: forged, start: 0, end: 10, snap: false });
    assert.deepEqual(r, { type: 'error', id: 15, message: 'access denied: unknown or expired handle' });
  });

  it('answers malformed messages with an error reply and never throws', async () => {
    const h = harness(() => store);
    for (const m of [
      null,
      42,
      'ready',
      { type: 'fetchBytes', id: 'x' },
      { type: 'verify', id: 16, handle: 7 },
      { type: 'evil', id: 17 },
    ]) {
      const r = await h.send(m as Record<string, unknown>);
      assert.equal(r.type, 'error');
    }
    assert.deepEqual(
      h.posted.map((m) => (m.type === 'error' ? m.id : 'x')),
      [null, null, null, null, 16, 17],
    );
  });

  it('says so when no store is open', async () => {
    const h = harness(() => undefined);
    await h.controller.receive({ type: 'ready' });
    assert.deepEqual(h.posted, [
      {
        type: 'init',
        limits: {
          maxWindowBytes: 65536,
          maxLines: 1000,
          maxMatches: 1000,
          maxPatternChars: 1024,
          maxHandleChars: 256,
          maxSearchMatches: 100,
        },
        storeAvailable: false,
      },
    ]);
    assert.deepEqual(await h.send({ type: 'page', id: 17, offset: 0, limit: 10, query: { order: 'newest' } }), {
      type: 'error',
      id: 17,
      message: noStoreMessage,
    });
    assert.deepEqual(await h.send({ type: 'verify', id: 18, handle }), {
      type: 'error',
      id: 18,
      message: noStoreMessage,
    });
  });

  it('answers pages sorted and filtered host-side with exact totals, and finds a call by its whole handle', async () => {
    const h = harness(() => store);
    const page = async (query: Record<string, unknown>, offset = 0, limit = 100): Promise<PageReply> => {
      const r = await h.send({ type: 'page', id: 30, offset, limit, query: { order: 'newest', ...query } });
      assert.equal(r.type, 'page', JSON.stringify(r));
      return r as PageReply;
    };
    const tools = (p: PageReply): string[] => p.calls.map((c) => c.tool);
    assert.deepEqual(tools(await page({ order: 'largest' })), ['shell', 'dump', 'echo']);
    assert.deepEqual([(await page({}, 1, 1)).total, tools(await page({}, 1, 1))], [3, ['echo']]);
    const byTool = await page({ tool: 'echo' });
    assert.deepEqual([byTool.total, byTool.all, tools(byTool)], [1, 3, ['echo']]);
    assert.deepEqual([(await page({ run: runId })).total, (await page({ run: 'run-nope' })).total], [3, 0]);
    assert.deepEqual(
      [
        (await page({ outcome: 'ok' })).total,
        (await page({ outcome: 'failed' })).total,
        (await page({ source: 'tool' })).total,
        (await page({ source: 'mcp' })).total,
      ],
      [3, 0, 3, 0],
    );
    assert.deepEqual(tools(await page({ text: 'DUM' })), ['dump']);
    // A whole handle: exactly its call, even when other call ids contain this one's.
    const named = await page({ text: handle });
    assert.deepEqual([named.total, named.calls.map((c) => c.callId)], [1, [callId]]);
    assert.equal((await page({ text: handle, tool: 'echo' })).total, 0);
    // The run picker and locate.
    const runs = await h.send({ type: 'pickRuns', id: 31, text: 'buil', limit: 5 });
    assert.ok(runs.type === 'runs' && runs.runs.some((r) => r.runId === runId && r.label === 'build'));
    assert.deepEqual(await h.send({ type: 'locate', id: 32, handle }), {
      type: 'located',
      id: 32,
      ref: { runId, callId, part: 'result' },
    });
    const newest = (await page({ run: runId }, 0, 1)).calls[0]!;
    assert.deepEqual(await h.send({ type: 'locate', id: 33, runId }), {
      type: 'located',
      id: 33,
      ref: { runId, callId: newest.callId, part: 'result' },
    });
    // With the list's query: where the call is in that list (as the pages give it), or that the filters hide it.
    const ref = { runId, callId, part: 'result' };
    const queries: Partial<ListQueryDto>[] = [
      {},
      { order: 'largest' },
      { tool: 'dump' },
      { text: 'DUM' },
      { text: handle },
      { run: runId, order: 'largest' },
      { tool: 'echo' },
      { text: handle, tool: 'echo' },
      { outcome: 'failed' },
    ];
    for (const query of queries) {
      const q: ListQueryDto = { order: 'newest', ...query };
      const listed = (await page({ ...q }, 0, 100)).calls.map((c) => c.callId);
      const at = listed.indexOf(callId);
      assert.deepEqual(
        await h.send({ type: 'locate', id: 34, handle, query: q }),
        { type: 'located', id: 34, ref, ...(at < 0 ? { hidden: true } : { index: at }) },
        JSON.stringify(q),
      );
    }
    // The shell call was recorded first (last of three, newest first) and is the largest.
    assert.deepEqual(await h.send({ type: 'locate', id: 35, handle, query: { order: 'newest' } }), {
      type: 'located',
      id: 35,
      ref,
      index: 2,
    });
    assert.deepEqual(await h.send({ type: 'locate', id: 35, handle, query: { order: 'largest' } }), {
      type: 'located',
      id: 35,
      ref,
      index: 0,
    });
    assert.deepEqual(await h.send({ type: 'locate', id: 36, handle, query: { order: 'newest', tool: 'echo' } }), {
      type: 'located',
      id: 36,
      ref,
      hidden: true,
    });
  });

  it('forwards live records as batched changes, and only while the page listens', async () => {
    const h = harness(() => store);
    await h.controller.receive({ type: 'ready' });
    h.posted.length = 0;
    const run = await store.startRun({ label: 'live' });
    await run.recordResult('grep', { pattern: 'x' }, 'y'.repeat(10_000));
    // The finished call is the last record: the delta carrying it (with its run) is the last batch.
    const changes = (): Extract<HostToWebview, { type: 'changed' }>[] =>
      h.posted.filter((m): m is Extract<HostToWebview, { type: 'changed' }> => m.type === 'changed');
    const carried = (): boolean =>
      changes().some((d) => d.calls.some((c) => c.status !== 'running') && d.runs.some((r) => r.label === 'live'));
    for (const end = Date.now() + 30_000; !carried() && Date.now() < end;) await new Promise((r) => setTimeout(r, 10));
    const deltas = changes();
    // Batching depends on timing (one or two batches); what they carry does not.
    assert.ok(deltas.length >= 1 && deltas.length <= 3, `${deltas.length} batches`);
    const calls = deltas.flatMap((d) => d.calls);
    const finished = calls.filter((c) => c.status !== 'running');
    assert.deepEqual(
      finished.map((c) => [c.tool, c.status, c.result.sizeBytes, c.result.sha256]),
      [['grep', 'ok', 10_000, sha('y'.repeat(10_000))]],
    );
    assert.ok(deltas.some((d) => d.runs.some((r) => r.label === 'live')));
    const count = h.posted.length;
    h.controller.webviewGone();
    await run.finish();
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(h.posted.length, count);
    h.controller.dispose();
  });

  it('verifies, and reports tampered bytes as the contract digest mismatch', async () => {
    const h = harness(() => store);
    const ok = await h.send({ type: 'verify', id: 19, handle });
    assert.ok(ok.type === 'verified' && ok.ok && ok.sha256 === sha(logBytes) && ok.byteCount === logBytes.length);
    const file = path.join(blobRoot, 'tenant-a', runId, callId);
    const original = readFileSync(file);
    const tampered = Buffer.from(original);
    tampered[200_000] = tampered[200_000]! ^ 1;
    writeFileSync(file, tampered);
    try {
      const h2 = harness(() => store);
      const bad = await h2.send({ type: 'verify', id: 20, handle });
      assert.ok(bad.type === 'verified' && bad.ok === false);
      const w = await h2.send({ type: 'fetchBytes', id: 21, handle, start: 199_990, end: 200_010, snap: false });
      assert.deepEqual(w, { type: 'error', id: 21, message: ErrorText.digestMismatch });
    } finally {
      writeFileSync(file, original);
    }
  });
});
