import * as assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import fc from 'fast-check';
import { makeArtifactRef } from '../../../../src/core/artifacts/artifactRef.js';
import { ArtifactStore } from '../../../../src/core/artifacts/artifacts.js';
import {
  BoundedEvidenceWorkspace,
  buildBinaryObservation,
  buildObservation,
  DEFAULT_EVIDENCE_LIMITS,
  parseRangePath,
  resolveEvidenceLimits,
  type EvidenceLimits,
} from '../../../../src/core/workspace/evidenceWorkspace.js';
import { escapeBinary } from '../../../../src/core/runs/search/patternAnalysis.js';
import {
  artifactFile,
  jsonAfterFirstLine,
  openArtifacts,
  referenceObservation,
  ScriptedWorkspace,
  sha256hex,
  storedArtifacts,
  tempDir,
} from '../evidence/helpers.js';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const readFile = (p: string) => ({ tool: 'read_file', arguments: { path: p } });

describe('evidence workspace: limits (1.2)', () => {
  it('defaults to 512 / 64 / 512', () => {
    assert.deepEqual(DEFAULT_EVIDENCE_LIMITS, { maxInlineBytes: 512, previewBytes: 64, maxRangeBytes: 512 });
    assert.deepEqual(resolveEvidenceLimits(), DEFAULT_EVIDENCE_LIMITS);
    assert.deepEqual(resolveEvidenceLimits({ maxInlineBytes: 4096, previewBytes: undefined }), {
      maxInlineBytes: 4096,
      previewBytes: 64,
      maxRangeBytes: 512,
    });
  });

  it("throws the contract's sentences, checked in order", () => {
    const ws = new ScriptedWorkspace(() => '');
    const make = (l: Partial<EvidenceLimits>) => () => new BoundedEvidenceWorkspace(ws, {} as ArtifactStore, l);
    const positive = /^EvidenceError: evidence limits must be positive integers$/;
    for (const bad of [0, -1, 1.5, Number.NaN, Infinity, 2 ** 53, '600' as unknown as number]) {
      assert.throws(make({ maxInlineBytes: bad }), positive);
      assert.throws(make({ previewBytes: bad }), positive);
      assert.throws(make({ maxRangeBytes: bad }), positive);
    }
    // Positivity first, even when the other rules fail too.
    assert.throws(make({ maxInlineBytes: 100, maxRangeBytes: 0 }), positive);
    assert.throws(
      make({ maxInlineBytes: 511, maxRangeBytes: 3, previewBytes: 600 }),
      /^EvidenceError: maxInlineBytes must be at least 512$/,
    );
    assert.throws(make({ maxRangeBytes: 3, previewBytes: 600 }), /^EvidenceError: maxRangeBytes must be at least 4$/);
    assert.throws(make({ previewBytes: 513 }), /^EvidenceError: previewBytes must not exceed maxInlineBytes$/);
    assert.doesNotThrow(make({ maxInlineBytes: 512, previewBytes: 512, maxRangeBytes: 4 }));
  });
});

describe('evidence workspace: execute and observations (1.2)', () => {
  let t: ReturnType<typeof tempDir>;
  let store: ArtifactStore;
  beforeEach(async () => {
    t = tempDir('evidence');
    store = await openArtifacts(t.dir);
  });
  afterEach(() => t.cleanup());

  function bounded(result: string | ((a: unknown) => string), limits: Partial<EvidenceLimits> = {}) {
    const inner = new ScriptedWorkspace(typeof result === 'string' ? () => result : result);
    return { inner, ws: new BoundedEvidenceWorkspace(inner, store, limits) };
  }

  it('delegates policy, tools and modified files unchanged', () => {
    const { inner, ws } = bounded('x');
    assert.equal(ws.policy, inner.policy);
    assert.equal(ws.availableTools, inner.availableTools);
    assert.equal(ws.modifiedFiles, inner.modifiedFiles);
  });

  it('passes the action and call id through and returns a small result unchanged, storing nothing', async () => {
    const { inner, ws } = bounded('small result ✓');
    assert.equal(await ws.execute({ tool: 'list_files', arguments: { path: '.' } }, 'call-7'), 'small result ✓');
    assert.deepEqual(inner.calls, [{ action: { tool: 'list_files', arguments: { path: '.' } }, toolCallId: 'call-7' }]);
    assert.deepEqual(storedArtifacts(t.dir), []);
  });

  it('returns an error result unchanged however large, storing nothing', async () => {
    const big = `error: ${'é'.repeat(5000)}`;
    const { ws } = bounded(big);
    assert.equal(await ws.execute(readFile('a')), big);
    assert.deepEqual(storedArtifacts(t.dir), []);
    // "error:" must start the result: a large result that mentions it later is externalized.
    const { ws: ws2 } = bounded(` error: ${'x'.repeat(600)}`);
    assert.match(await ws2.execute(readFile('a')), /^Tool result externalized:\n/);
  });

  for (const [name, ch, size] of [
    ['1-byte', 'a', 1],
    ['2-byte', 'é', 2],
    ['3-byte', '€', 3],
    ['4-byte', '😀', 4],
  ] as const) {
    it(`measures UTF-8 bytes at the inline boundary with ${name} characters`, async () => {
      const fill = (bytes: number): string => ch.repeat(Math.floor(bytes / size)) + 'a'.repeat(bytes % size);
      const atLimit = fill(512);
      assert.equal(enc(atLimit).length, 512);
      const { ws } = bounded(atLimit);
      assert.equal(await ws.execute(readFile('a')), atLimit);
      assert.deepEqual(storedArtifacts(t.dir), []);

      const over = `${fill(512)}b`;
      assert.equal(enc(over).length, 513);
      const { ws: ws2 } = bounded(over);
      const obs = await ws2.execute(readFile('a'));
      assert.equal(obs, referenceObservation(enc(over), DEFAULT_EVIDENCE_LIMITS));
      assert.ok(Buffer.byteLength(obs) <= 512);
      const o = jsonAfterFirstLine(obs);
      assert.equal(o.byte_count, 513);
      const [, h] = o.head_range as [number, number];
      assert.equal(h % size, 0, 'the head is cut between characters');
      assert.ok(!(o.head_preview as string).includes('\uFFFD') && !(o.tail_preview as string).includes('\uFFFD'));
      assert.deepEqual(
        storedArtifacts(t.dir).map((r) => r.byteCount),
        [513],
      );
    });
  }

  it('counts a lone surrogate as the 3 bytes of U+FFFD it is stored as', async () => {
    const text = `${'a'.repeat(509)}\uD83D`; // 509 + 3 = 512 bytes: inline, unchanged
    const { ws } = bounded(text);
    assert.equal(await ws.execute(readFile('a')), text);
    const { ws: ws2 } = bounded(`${text}b`);
    const o = jsonAfterFirstLine(await ws2.execute(readFile('a')));
    assert.equal(o.byte_count, 513);
    assert.equal(o.tail_preview, `${'a'.repeat((o.tail_preview as string).length - 2)}\uFFFDb`);
  });

  it('prints the observation exactly: sorted keys, compact, non-ASCII as itself', async () => {
    const result = `${'α'.repeat(300)}\n"quoted"\t${'x'.repeat(400)}🎉`;
    const bytes = enc(result);
    const sha = sha256hex(bytes);
    const { ws } = bounded(result, { maxInlineBytes: 700 });
    const obs = await ws.execute(readFile('log'));
    const head = 'α'.repeat(32);
    const tail = `${'x'.repeat(60)}🎉`;
    assert.equal(bytes.length, 600 + 10 + 400 + 4);
    assert.equal(
      obs,
      'Tool result externalized:\n' +
        `{"artifact_id":"artifact-${sha}","byte_count":1014,"head_preview":"${head}","head_range":[0,64],"omitted_range":[64,950],` +
        `"range_request":{"path":".tool-artifacts/artifact-${sha}/bytes/0-512","tool":"read_file"},"sha256":"${sha}",` +
        `"tail_preview":"${tail}","tail_range":[950,1014]}`,
    );
  });

  it('lowers L one byte at a time: the default limits leave 24-byte previews of a 1000-byte result', async () => {
    const result = 'x'.repeat(1000);
    const sha = sha256hex(result);
    const { ws } = bounded(result);
    const obs = await ws.execute(readFile('a'));
    assert.equal(
      obs,
      'Tool result externalized:\n' +
        `{"artifact_id":"artifact-${sha}","byte_count":1000,"head_preview":"${'x'.repeat(24)}","head_range":[0,24],"omitted_range":[24,976],` +
        `"range_request":{"path":".tool-artifacts/artifact-${sha}/bytes/0-512","tool":"read_file"},"sha256":"${sha}",` +
        `"tail_preview":"${'x'.repeat(24)}","tail_range":[976,1000]}`,
    );
    assert.equal(Buffer.byteLength(obs), 512); // L = 25 would make it 514
  });

  it('keeps previews between code points: a 4-byte character that does not fit is left out whole', async () => {
    // Head: 62 ASCII bytes then an emoji across the 64-byte budget; tail: an emoji across N - 64.
    const result = `${'h'.repeat(62)}😀${'m'.repeat(1000)}😀${'t'.repeat(62)}`;
    const { ws } = bounded(result, { maxInlineBytes: 700 });
    const o = jsonAfterFirstLine(await ws.execute(readFile('a')));
    assert.equal(o.head_preview, 'h'.repeat(62));
    assert.deepEqual(o.head_range, [0, 62]);
    assert.equal(o.tail_preview, 't'.repeat(62));
    assert.deepEqual(o.tail_range, [1070, 1132]);
    assert.deepEqual(o.omitted_range, [62, 1070]);
  });

  it('advertises E, the largest end <= min(maxRangeBytes, N) that decodes, with 2/3/4-byte characters', async () => {
    for (const [ch, expected] of [
      ['é', 512],
      ['€', 510],
      ['😀', 512],
      ['a😀', 511],
    ] as const) {
      const result = ch.repeat(400);
      const { ws } = bounded(result);
      const o = jsonAfterFirstLine(await ws.execute(readFile('a')));
      const req = o.range_request as { path: string; tool: string };
      assert.equal(req.path, `.tool-artifacts/${o.artifact_id as string}/bytes/0-${expected}`, ch);
      const back = jsonAfterFirstLine(await ws.execute({ tool: req.tool, arguments: { path: req.path } }));
      assert.deepEqual(enc(back.data as string), enc(result).subarray(0, expected));
    }
    // maxRangeBytes beyond N: E = N.
    const { ws } = bounded('z'.repeat(700), { maxRangeBytes: 5000 });
    const o = jsonAfterFirstLine(await ws.execute(readFile('a')));
    assert.match((o.range_request as { path: string }).path, /\/bytes\/0-700$/);
  });

  it('throws when even empty previews do not fit the metadata', () => {
    // Only a petabyte-sized artifact has enough digits; the builder reads just its windows.
    const sha = 'a'.repeat(64);
    const window = (s: number, e: number): Uint8Array => new Uint8Array(e - s).fill(0x61);
    const huge = makeArtifactRef(`artifact-${sha}`, 1e15, sha);
    assert.throws(
      () => buildObservation(huge, window, { maxInlineBytes: 512, previewBytes: 64, maxRangeBytes: 1e15 }),
      /^EvidenceError: evidence observation limit is too small for artifact metadata$/,
    );
    const obs = buildObservation(huge, window, { maxInlineBytes: 512, previewBytes: 64, maxRangeBytes: 512 });
    assert.equal(Buffer.byteLength(obs), 512);
    assert.match(obs, /"head_range":\[0,\d+\]/);
  });

  it('stores the exact bytes of the whole result', async () => {
    const result = `${'ü'.repeat(1000)}\r\n\u0000end`;
    const { ws } = bounded(result);
    const o = jsonAfterFirstLine(await ws.execute(readFile('a')));
    assert.deepEqual(new Uint8Array(await fsp.readFile(artifactFile(t.dir, o.artifact_id as string))), enc(result));
    assert.equal(o.sha256, sha256hex(result));
  });

  it('for arbitrary Unicode results and limits: fits, previews exact, ranges agree, the advertised request returns its bytes (property)', async function () {
    this.timeout(60_000);
    const unit = fc.oneof(
      fc.constantFrom('a', 'é', '€', '😀', '"', '\\', '\n', '\u0001', '\u2028', '\uFEFF', '\uD800', '\uDC00'),
      fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
    );
    const results = fc.array(unit, { minLength: 0, maxLength: 900 }).map((u) => u.join(''));
    const limits = fc
      .record({
        maxInlineBytes: fc.integer({ min: 512, max: 1200 }),
        previewFraction: fc.double({ min: 0, max: 1, noNaN: true }),
        maxRangeBytes: fc.integer({ min: 4, max: 1500 }),
      })
      .map(({ maxInlineBytes, previewFraction, maxRangeBytes }) => ({
        maxInlineBytes,
        maxRangeBytes,
        previewBytes: Math.max(1, Math.floor(previewFraction * maxInlineBytes)),
      }));
    await fc.assert(
      fc.asyncProperty(results, limits, async (result, lim) => {
        const { inner, ws } = bounded(result, lim);
        const out = await ws.execute(readFile('r'));
        const bytes = enc(result);
        if (bytes.length <= lim.maxInlineBytes) {
          assert.equal(out, result);
          return;
        }
        assert.equal(out, referenceObservation(bytes, lim));
        assert.ok(Buffer.byteLength(out) <= lim.maxInlineBytes);
        const o = jsonAfterFirstLine(out);
        const [h0, h] = o.head_range as [number, number];
        const [oh, ot] = o.omitted_range as [number, number];
        const [t, n] = o.tail_range as [number, number];
        assert.deepEqual([h0, oh, ot, n], [0, h, t, bytes.length]);
        assert.deepEqual(enc(o.head_preview as string), bytes.subarray(0, h));
        assert.deepEqual(enc(o.tail_preview as string), bytes.subarray(t));
        const req = o.range_request as { path: string; tool: string };
        const back = await ws.execute({ tool: req.tool, arguments: { path: req.path } });
        assert.match(back, /^Artifact range:\n/);
        const r = jsonAfterFirstLine(back);
        const e = r.end as number;
        assert.deepEqual(enc(r.data as string), bytes.subarray(0, e));
        assert.equal(r.byte_count, e);
        assert.ok(e <= Math.min(lim.maxRangeBytes, bytes.length) && e > Math.min(lim.maxRangeBytes, bytes.length) - 4);
        assert.equal(inner.calls.length, 1, 'the range read never reaches the wrapped workspace');
      }),
      { numRuns: 250 },
    );
  });

  it('builds the same observation as the literal contract for any bytes of text and limits (property, no I/O)', () => {
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.constantFrom('a', 'é', '€', '😀', '"', '\\', '\n', '\u001f', '\t', '\u007f'),
          minLength: 200,
          maxLength: 900,
        }),
        fc.integer({ min: 512, max: 1500 }),
        fc.integer({ min: 0, max: 700 }),
        fc.integer({ min: 4, max: 2000 }),
        (result, maxInlineBytes, preview, maxRangeBytes) => {
          const bytes = enc(result);
          if (bytes.length <= maxInlineBytes) return;
          const lim = { maxInlineBytes, previewBytes: Math.max(1, Math.min(preview, maxInlineBytes)), maxRangeBytes };
          const sha = sha256hex(bytes);
          const ref = makeArtifactRef(`artifact-${sha}`, bytes.length, sha);
          assert.equal(
            buildObservation(ref, (s, e) => bytes.subarray(s, e), lim),
            referenceObservation(bytes, lim),
          );
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe('evidence workspace: virtual range reads (1.3)', () => {
  let t: ReturnType<typeof tempDir>;
  let store: ArtifactStore;
  let inner: ScriptedWorkspace;
  let ws: BoundedEvidenceWorkspace;
  const text = `${'€'.repeat(100)}😀${'line\n'.repeat(300)}`; // 300 + 4 + 1500 bytes
  let id: string;
  const read = (p: string) => ws.execute(readFile(p));
  beforeEach(async () => {
    t = tempDir('ranges');
    store = await openArtifacts(t.dir, { chunkSize: 256 });
    inner = new ScriptedWorkspace(() => 'wrapped');
    ws = new BoundedEvidenceWorkspace(inner, store);
    id = (await store.put(text)).artifactId;
  });
  afterEach(() => {
    assert.equal(inner.calls.length, 0, 'no virtual read reaches the wrapped workspace');
    t.cleanup();
  });

  it('returns the verified bytes exactly as the contract prints them', async () => {
    const sha = sha256hex(text);
    assert.equal(
      await read(`.tool-artifacts/${id}/bytes/297-307`),
      `Artifact range:\n{"artifact_id":"${id}","byte_count":10,"data":"€😀lin","end":307,"sha256":"${sha}","start":297,"total_byte_count":1804}`,
    );
    // Exactly maxRangeBytes is allowed.
    const r = jsonAfterFirstLine(await read(`.tool-artifacts/${id}/bytes/304-816`));
    assert.equal(r.byte_count, 512);
    assert.equal(r.data, 'line\n'.repeat(102) + 'li');
  });

  it('answers a malformed path, exactly, for anything but the one form', async () => {
    const malformed = 'error: artifact range path is malformed';
    const good = `.tool-artifacts/${id}/bytes/0-3`;
    for (const p of [
      '.tool-artifacts/',
      `.tool-artifacts/${id}`,
      `.tool-artifacts/${id}/bytes/`,
      `.tool-artifacts/${id}/bytes/0`,
      `.tool-artifacts/${id}/bytes/0-`,
      `${good}\n`,
      `${good} `,
      `${good}/`,
      `${good}?x`,
      `.tool-artifacts//${id}/bytes/0-3`,
      `.tool-artifacts/${id}/bytes/-1-3`,
      `.tool-artifacts/${id}/bytes/+0-3`,
      `.tool-artifacts/${id}/bytes/0x0-3`,
      `.tool-artifacts/${id}/bytes/0-3.0`,
      `.tool-artifacts/${id}/bytes/1e2-3`,
      `.tool-artifacts/${id.toUpperCase()}/bytes/0-3`,
      `.tool-artifacts/${id.slice(0, -1)}/bytes/0-3`,
      `.tool-artifacts/${id}0/bytes/0-3`,
      `.tool-artifacts/${id}/lines/0-3`,
      `.tool-artifacts/../${id}/bytes/0-3`,
      `.tool-artifacts/${id}/bytes/٣-٤`,
      // Bounds beyond any safe integer, including ones that round to a safe-looking double.
      `.tool-artifacts/${id}/bytes/0-9007199254740992`,
      `.tool-artifacts/${id}/bytes/9007199254740993-9007199254740994`,
      `.tool-artifacts/${id}/bytes/0-${'9'.repeat(400)}`,
      `.tool-artifacts/${id}/bytes/${'1'.repeat(30)}-${'1'.repeat(30)}`,
    ]) {
      assert.equal(await read(p), malformed, JSON.stringify(p));
    }
    // Leading zeros are decimal integers too.
    assert.match(await read(`.tool-artifacts/${id}/bytes/000-003`), /^Artifact range:\n/);
  });

  it('checks the rows in order: size limit, order, availability, digest, stored count, UTF-8', async () => {
    const unknown = `artifact-${sha256hex('unknown')}`;
    assert.equal(await read(`.tool-artifacts/${unknown}/bytes/0-513`), 'error: artifact range exceeds 512 bytes');
    assert.equal(
      await read(`.tool-artifacts/${id}/bytes/9007199254740000-9007199254740991`),
      'error: artifact range exceeds 512 bytes',
    );
    assert.equal(
      await read(`.tool-artifacts/${unknown}/bytes/5-5`),
      'error: artifact range must satisfy 0 <= start < end',
    );
    assert.equal(
      await read(`.tool-artifacts/${unknown}/bytes/9-5`),
      'error: artifact range must satisfy 0 <= start < end',
    );
    assert.equal(await read(`.tool-artifacts/${unknown}/bytes/0-4`), 'error: artifact is not available in this store');
    assert.equal(
      await read(`.tool-artifacts/${id}/bytes/1800-1805`),
      'error: artifact range exceeds the stored byte count',
    );
    assert.equal(await read(`.tool-artifacts/${id}/bytes/1-4`), 'error: artifact range does not align to UTF-8 text');
    assert.equal(
      await read(`.tool-artifacts/${id}/bytes/300-302`),
      'error: artifact range does not align to UTF-8 text',
    );
    // Damage: the size check comes before the stored count.
    const file = artifactFile(t.dir, id);
    await fsp.appendFile(file, 'x');
    assert.equal(
      await read(`.tool-artifacts/${id}/bytes/1800-1805`),
      'error: artifact digest does not match its recorded identity',
    );
    assert.equal(
      await read(`.tool-artifacts/${id}/bytes/0-3`),
      'error: artifact digest does not match its recorded identity',
    );
  });

  it('uses its own maxRangeBytes in the message, and allows exactly that many bytes', async () => {
    ws = new BoundedEvidenceWorkspace(inner, store, { maxRangeBytes: 1000 });
    assert.equal(await read(`.tool-artifacts/${id}/bytes/304-1305`), 'error: artifact range exceeds 1000 bytes');
    assert.equal(jsonAfterFirstLine(await read(`.tool-artifacts/${id}/bytes/304-1304`)).byte_count, 1000);
  });

  it('never returns a tampered byte inside the range; a tamper outside it is not an error for this range', async () => {
    const file = artifactFile(t.dir, id);
    const bytes = await fsp.readFile(file);
    bytes[1000] = 'L'.charCodeAt(0); // chunk 3 (768..1024)
    await fsp.writeFile(file, bytes);
    assert.equal(
      await read(`.tool-artifacts/${id}/bytes/990-1010`),
      'error: artifact digest does not match its recorded identity',
    );
    assert.equal(
      await read(`.tool-artifacts/${id}/bytes/800-805`),
      'error: artifact digest does not match its recorded identity',
    );
    assert.equal(jsonAfterFirstLine(await read(`.tool-artifacts/${id}/bytes/1099-1109`)).data, 'line\nline\n');
  });

  it('refuses invalid UTF-8 of a binary artifact, whatever the range', async () => {
    const bin = await store.put(Uint8Array.of(0x61, 0xff, 0x62, 0xc3, 0x28));
    assert.equal(
      await read(`.tool-artifacts/${bin.artifactId}/bytes/0-5`),
      'error: artifact range does not align to UTF-8 text',
    );
    assert.equal(
      await read(`.tool-artifacts/${bin.artifactId}/bytes/3-5`),
      'error: artifact range does not align to UTF-8 text',
    );
    assert.equal(jsonAfterFirstLine(await read(`.tool-artifacts/${bin.artifactId}/bytes/2-3`)).data, 'b');
  });

  it('errors never contain the root path, another id or stored bytes', async () => {
    const other = await store.put('SECRET-CONTENT '.repeat(50));
    await fsp.writeFile(artifactFile(t.dir, other.artifactId), 'SECRET-CONTENT tampered');
    const answers = [
      await read(`.tool-artifacts/${other.artifactId}/bytes/0-14`),
      await read(`.tool-artifacts/${id}/bytes/1-4`),
      await read(`.tool-artifacts/${id}/bytes/0-9999`),
      await read(`.tool-artifacts/${id}/bytes/1800-1900`),
    ];
    for (const a of answers) {
      assert.match(a, /^error: /);
      assert.ok(
        !a.includes(t.dir) &&
          !a.includes(other.artifactId.slice(9)) &&
          !a.includes(id) &&
          !a.includes('SECRET') &&
          !a.includes('line'),
        a,
      );
    }
  });

  it('never passes any path after ".tool-artifacts/" to the wrapped workspace (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'binary', maxLength: 200 }), async (rest) => {
        const out = await read(`.tool-artifacts/${rest}`);
        assert.match(out, /^(error: |Artifact range:\n)/);
      }),
      { numRuns: 1000 },
    );
    // A read_file whose path only resembles the prefix is an ordinary read.
    for (const p of ['./.tool-artifacts/x', '.tool-artifacts', 'x/.tool-artifacts/y']) {
      assert.equal(await read(p), 'wrapped');
    }
    assert.equal(inner.calls.length, 3);
    inner.calls.length = 0;
  });

  it('parses range paths exactly (property)', () => {
    const junk = fc.string({ minLength: 1, maxLength: 3 }).filter((j) => /[^0-9]/.test(j));
    fc.assert(
      fc.property(
        fc.nat({ max: Number.MAX_SAFE_INTEGER }),
        fc.nat({ max: Number.MAX_SAFE_INTEGER }),
        junk,
        (s, e, j) => {
          assert.deepEqual(parseRangePath(`.tool-artifacts/${id}/bytes/${s}-${e}`), {
            artifactId: id,
            start: s,
            end: e,
          });
          assert.equal(parseRangePath(`.tool-artifacts/${id}/bytes/${s}-${e}${j}`), undefined);
          assert.equal(parseRangePath(`${j}.tool-artifacts/${id}/bytes/${s}-${e}`), undefined);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('evidence workspace: the binary observation (docs/contracts.md §3.3)', () => {
  /** The contract's binary observation for budget L, written out independently of the code under test. */
  function expected(ref: ReturnType<typeof makeArtifactRef>, bytes: Buffer, l: number): string {
    const h = l;
    const t = Math.max(h, bytes.length - l);
    return `Tool result externalized:\n${JSON.stringify({
      artifact_id: ref.artifactId,
      binary: true,
      byte_count: bytes.length,
      head_preview: escapeBinary(bytes.subarray(0, h).toString('latin1')),
      head_range: [0, h],
      omitted_range: [h, t],
      sha256: ref.sha256,
      tail_preview: escapeBinary(bytes.subarray(t).toString('latin1')),
      tail_range: [t, bytes.length],
    })}`;
  }

  it('escapes whole bytes, has no range_request, and takes the largest preview budget that fits maxInlineBytes', () => {
    for (const bytes of [
      Buffer.alloc(1000, 0),
      Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 37) % 256)),
      Buffer.from('caf\xe9 '.repeat(50), 'latin1'),
    ]) {
      const sha = sha256hex(bytes);
      const ref = makeArtifactRef(`artifact-${sha}`, bytes.length, sha);
      for (const limits of [
        { maxInlineBytes: 512, previewBytes: 64, maxRangeBytes: 512 },
        { maxInlineBytes: 4096, previewBytes: 1024, maxRangeBytes: 4096 },
      ]) {
        const text = buildBinaryObservation(ref, (s, e) => bytes.subarray(s, e), limits);
        const l = (JSON.parse(text.split('\n')[1]!) as { head_range: [number, number] }).head_range[1];
        assert.equal(text, expected(ref, bytes, l));
        assert.ok(Buffer.byteLength(text) <= limits.maxInlineBytes);
        // Largest: one more byte of budget would not fit, unless the budget was already previewBytes (or the whole output).
        if (l < Math.min(limits.previewBytes, bytes.length))
          assert.ok(
            Buffer.byteLength(expected(ref, bytes, l + 1)) > limits.maxInlineBytes,
            `budget ${l} is not the largest`,
          );
      }
    }
  });
});
