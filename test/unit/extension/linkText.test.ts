import * as assert from 'node:assert/strict';
import {
  callbackLinkParts,
  linkTextParams,
  parseEvidenceLink,
  pastedLinkParams,
} from '../../../src/extension/links/linkText.js';

const handle = 'out_kep5mxcnc5ksulj2bdshergjam';
/** The callback address the served workbench gave for an excerpt link (copied from a real run, port and commit as they were). */
const callback = `http://127.0.0.1:33809/stable-53c2f3253bcf32886706fc023e794bbeb253c90f/callback?vscode-reqid=1&vscode-scheme=code-oss&vscode-authority=bounded-evidence.bounded-evidence&vscode-path=%2Fopen&vscode-query=handle%3D${handle}%26bytes%3D1796-1844`;
/** The callback address with one query parameter replaced (or removed, for `undefined`) or added. */
function withParam(key: string, value: string | undefined, base = callback): string {
  const u = new URL(base);
  if (value === undefined) u.searchParams.delete(key);
  else u.searchParams.set(key, value);
  return u.toString();
}

describe('links into the evidence read back from their text (src/extension/links/linkText.ts, docs/contracts.md §3.4)', () => {
  it("reads the browser workbench's callback address as its callback page does: the link inside, then its parameters", () => {
    assert.deepEqual(callbackLinkParts(callback), {
      scheme: 'code-oss',
      authority: 'bounded-evidence.bounded-evidence',
      path: '/open',
      query: `handle=${handle}&bytes=1796-1844`,
    });
    assert.deepEqual(linkTextParams(callback), { handle, bytes: '1796-1844' });
    // The handle inside is looked up like any handle: the same arguments as the editor's link and a pasted handle.
    assert.deepEqual(parseEvidenceLink(linkTextParams(callback)), { handle, window: { start: 1796, end: 1844 } });
    assert.deepEqual(
      parseEvidenceLink(
        linkTextParams(`code-oss://bounded-evidence.bounded-evidence/open?handle=${handle}&bytes=1796-1844`),
      ),
      { handle, window: { start: 1796, end: 1844 } },
    );
  });

  it('accepts every form a person copies: https, any host and base path, no request id, a line window, the excerpt line as copied', () => {
    const forms = [
      callback.replace('http://127.0.0.1:33809', 'https://evidence.example.org'),
      callback.replace('/stable-53c2f3253bcf32886706fc023e794bbeb253c90f/callback', '/callback'),
      callback.replace('/stable-53c2f3253bcf32886706fc023e794bbeb253c90f/', '/ide/proxy/'),
      callback.replace('vscode-reqid=1&', ''),
      `  ${callback}\n`,
      `<${callback}>`,
      `- open: <${callback}>`,
    ];
    for (const form of forms) assert.deepEqual(pastedLinkParams(form), { handle, bytes: '1796-1844' }, form);
    assert.deepEqual(pastedLinkParams(withParam('vscode-query', `handle=${handle}&line=3-5`)), { handle, line: '3-5' });
    assert.deepEqual(pastedLinkParams(withParam('vscode-scheme', 'vscode')), { handle, bytes: '1796-1844' });
    // The running editor's own scheme is an editor's scheme too.
    assert.deepEqual(pastedLinkParams(withParam('vscode-scheme', 'cursor'), 'cursor'), { handle, bytes: '1796-1844' });
    // The other forms are unchanged.
    assert.deepEqual(
      pastedLinkParams(`vscode-insiders://bounded-evidence.bounded-evidence/open?handle=${handle}&line=7`),
      { handle, line: '7' },
    );
    assert.deepEqual(pastedLinkParams(`${handle}:3–5`), { handle, line: '3-5' });
    assert.deepEqual(pastedLinkParams(`.tool-artifacts/artifact-${'a'.repeat(64)}/bytes/0-4`), {
      path: `.tool-artifacts/artifact-${'a'.repeat(64)}/bytes/0-4`,
    });
  });

  it("refuses forged callbacks, other routes and other hosts' pages with a sentence saying what is wrong", () => {
    const refused: [string, RegExp][] = [
      // Another route of a host (a login page, a proxy, the workbench itself): not a callback address.
      [callback.replace('/callback?', '/login?'), /must be the workbench's \/callback\?vscode-… address/],
      [callback.replace('/callback?', '/callback/x?'), /must be the workbench's \/callback/],
      [callback.replace('/callback?', '/notcallback?'), /must be the workbench's \/callback/],
      [`https://github.com/owner/repo/issues/1?vscode-query=handle%3D${handle}`, /must be the workbench's \/callback/],
      ['http://127.0.0.1:33809/?folder=/work&payload=x', /must be the workbench's \/callback/],
      // A callback for someone else, or for another route of ours.
      [
        withParam('vscode-authority', 'vscode.github-authentication'),
        /only bounded-evidence\.bounded-evidence\/open\?handle=… links are handled/,
      ],
      [withParam('vscode-path', '/exec'), /only bounded-evidence\.bounded-evidence\/open/],
      [withParam('vscode-path', '/open/../exec'), /only bounded-evidence\.bounded-evidence\/open/],
      [withParam('vscode-path', undefined), /only bounded-evidence\.bounded-evidence\/open/],
      [withParam('vscode-scheme', 'file'), /"file:" is not an editor's link scheme/],
      [withParam('vscode-scheme', 'https'), /"https:" is not an editor's link scheme/],
      [withParam('vscode-scheme', undefined), /names no vscode-scheme and vscode-authority/],
      [withParam('vscode-authority', undefined), /names no vscode-scheme and vscode-authority/],
      // Anything the callback page would fold into the link, or read twice.
      [`${callback}&handle=out_other_stdout`, /unknown parameter "handle"/],
      [`${callback}&vscode-query=handle%3Dout_other_stdout`, /"vscode-query" is repeated/],
      [withParam('vscode-fragment', 'x'), /has no fragment/],
      [`${callback}#frag`, /has no #fragment/],
      [withParam('vscode-query', `handle=${handle}&run=1`), /unknown parameter "run"/],
      [withParam('vscode-query', `handle=${handle}&handle=out_other_stdout`), /"handle" is repeated/],
      [withParam('vscode-reqid', 'x1'), /"vscode-reqid" must be a number/],
      // Credentials, another protocol, broken encoding, no address at all.
      [callback.replace('http://', 'http://user:pw@'), /no user name or password/],
      [callback.replace('http://', 'ftp://'), /"ftp:" is not an editor's link scheme/],
      [callback.replace('vscode-path=%2Fopen', 'vscode-path=%E0%A4%A'), /not well-formed percent-encoding/],
      ['http://', /not a well-formed address/],
      ['http://[::1/callback?vscode-scheme=code-oss', /not a well-formed address/],
      ['javascript:alert(1)', /paste a link/],
      ['', /paste a link/],
    ];
    for (const [text, why] of refused) assert.throws(() => pastedLinkParams(text), why, text);
    // A well-formed callback whose handle is not a handle is refused by the same check as any link.
    assert.throws(
      () => parseEvidenceLink(pastedLinkParams(withParam('vscode-query', 'handle=../../etc/passwd'))),
      /the handle is malformed/,
    );
    assert.throws(
      () => parseEvidenceLink(pastedLinkParams(withParam('vscode-query', `handle=${handle}&bytes=9-3`))),
      /"bytes" must be a range START-END with START < END/,
    );
    assert.throws(
      () => parseEvidenceLink(pastedLinkParams(withParam('vscode-query', ''))),
      /exactly one handle or one \.tool-artifacts path/,
    );
  });
});
