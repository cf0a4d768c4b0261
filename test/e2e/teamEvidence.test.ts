/**
 * Team evidence in a real workbench (docs/contracts.md §7): a "CI machine" (its own home and storage) publishes a
 * failing build with the command line to s3rver on loopback; the editor adds the store with **Add Team Evidence…**
 * (keys in SecretStorage), lists the run under the store's name next to local runs, finds the error line by pattern,
 * copies an excerpt whose provenance names the store, offers no Pin or Delete for it, and refuses a tampered blob with
 * the sentence local tampering gets. A store in the repository's workspace settings is ignored.
 */
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { FrameLocator, Locator } from 'playwright-core';
import { repoRoot } from '../harness/tools.js';
import type { Workbench } from '../harness/workbench.js';
import { startS3Server, type S3Server } from '../unit/core/blobs/s3Fixture.js';
import { closeWorkbench, openWorkbench } from './session.js';

declare const navigator: { clipboard: { readText(): Promise<string>; writeText(t: string): Promise<void> } };

/** The line the failing build prints once, deep inside its log. */
const ERROR_LINE = 'src/app.ts(12345,7): error TS2322: Type "string" is not assignable to type "number".';
/** A build log of 20,000 lines with the error line at line 12,345, then exit 2. */
const BUILD =
  `awk 'BEGIN { for (i = 1; i <= 20000; i++) { if (i == 12345) print "${ERROR_LINE.replace(/"/g, '\\"')}"; ` +
  `else print "compiling module", i, "of 20000 ........................ ok" } }'; exit 2`;
const PREFIX = 'ci/main';
const KEYS = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' };

/** Every file under `dir` whose bytes contain `needle`. */
function filesHolding(dir: string, needle: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    const st = statSync(p, { throwIfNoEntry: false });
    if (st?.isDirectory()) found.push(...filesHolding(p, needle));
    else if (st?.isFile() && st.size < 64 * 1024 * 1024 && readFileSync(p).includes(needle)) found.push(p);
  }
  return found;
}

describe('Team evidence in a real workbench', function () {
  this.timeout(300_000);
  let s3: S3Server;
  let admin: S3Client;
  let ciRoot: string;
  let wb: Workbench;
  let view: FrameLocator;
  let handle = '';
  let uri = '';
  const text = async (l: Locator): Promise<string> => ((await l.textContent()) ?? '').trim();
  const input = (): Locator => wb.page.locator('.quick-input-widget input');

  /** Answers the open input box, after checking it says it is step `step`. */
  async function answer(step: string, value: string): Promise<void> {
    const title = wb.page.locator('.quick-input-title', { hasText: `(${step})` });
    await title.waitFor();
    await input().fill(value);
    await input().press('Enter');
    // Accepted once its box is gone: a key pressed before (F1) would close the box unanswered instead.
    await title.waitFor({ state: 'hidden' });
  }

  /** Runs `command` under `capture --publish` on the CI machine, with the AWS environment a runner has. */
  async function ciCapture(command: string): Promise<{ status?: number; stdout: string; stderr: string }> {
    // Asynchronously: s3rver answers from this process, so a synchronous child would wait on it forever.
    return promisify(execFile)(
      process.execPath,
      [path.join(repoRoot, 'dist', 'cli.js'), 'capture', '--publish', uri, '--shell', command],
      {
        encoding: 'utf8',
        cwd: ciRoot,
        env: {
          PATH: process.env.PATH,
          HOME: path.join(ciRoot, 'home'),
          BOUNDED_EVIDENCE_STORAGE: path.join(ciRoot, 'storage'),
          AWS_ENDPOINT_URL: s3.endpoint,
          AWS_REGION: 'us-east-1',
          ...KEYS,
        },
        maxBuffer: 16 * 1024 * 1024,
      },
    ).then(
      (ok) => ({ status: 0, ...ok }),
      (e: { code?: number; stdout: string; stderr: string }) => ({
        status: e.code,
        stdout: e.stdout,
        stderr: e.stderr,
      }),
    );
  }

  /** The Runs view in the side bar; its container's icon hides the side bar when it is already shown. */
  async function showRunsView(): Promise<void> {
    if (await wb.page.locator('.pane-header[aria-label^="Runs"]').isVisible()) return;
    await wb.page.locator('.activitybar .action-item a[aria-label^="Bounded Evidence"]').click();
    await wb.page.locator('.pane-header[aria-label^="Runs"]').waitFor();
  }

  before(async () => {
    s3 = await startS3Server('team');
    uri = `s3://${s3.bucket}/${PREFIX}`;
    admin = new S3Client({
      endpoint: s3.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: {
        accessKeyId: KEYS.AWS_ACCESS_KEY_ID,
        secretAccessKey: KEYS.AWS_SECRET_ACCESS_KEY,
      },
    });
    // The CI machine: its own home and storage, the AWS environment a runner has.
    ciRoot = mkdtempSync(path.join(os.tmpdir(), 'be-team-ci-'));
    for (const d of ['home', 'storage']) mkdirSync(path.join(ciRoot, d));
    const r = await ciCapture(BUILD);
    // The build's exit code, whatever the publish did.
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /published run-[A-Za-z0-9-]+ to s3:\/\/team\/ci\/main: 1 blob\(s\) uploaded/);
    handle = /out_[a-z2-7]{26}/.exec(r.stdout)![0];
    wb = await openWorkbench({
      label: 'team-evidence',
      colorTheme: 'Default Dark Modern',
      // A repository that names a bucket in its workspace settings: never read.
      workspaceSettings: {
        'boundedEvidence.teamStores': [{ name: 'evil', uri, endpoint: s3.endpoint, credentials: 'default' }],
      },
    });
    view = wb.webview();
  });

  after(async () => {
    await closeWorkbench(wb);
    admin?.destroy();
    await s3?.close();
    if (ciRoot) rmSync(ciRoot, { recursive: true, force: true });
  });

  it('Add Team Evidence… checks each answer, then adds the store with its keys in SecretStorage', async () => {
    await wb.runCommand('Bounded Evidence: Add Team Evidence…');
    await wb.page.locator('.quick-input-title', { hasText: '(1/5)' }).waitFor();
    await input().fill('a b');
    await wb.page
      .locator('.quick-input-message', { hasText: 'A name is 1 to 64 letters, digits, ".", "_" or "-".' })
      .waitFor();
    await answer('1/5', 'ci');
    await wb.page.locator('.quick-input-title', { hasText: '(2/5)' }).waitFor();
    await input().fill('s3://team/../x');
    await wb.page.locator('.quick-input-message', { hasText: 'A team store prefix holds only' }).waitFor();
    await answer('2/5', uri);
    await answer('3/5', s3.endpoint);
    await answer('4/5', '');
    await wb.page.locator('.quick-input-title', { hasText: '(5/5)' }).waitFor();
    await wb.page
      .locator('.quick-input-list .monaco-list-row', { hasText: 'Access keys kept in SecretStorage' })
      .click();
    await answer('5/5: access key id', KEYS.AWS_ACCESS_KEY_ID);
    await wb.page.locator('.quick-input-widget input[type="password"]').waitFor();
    await answer('5/5: secret access key', KEYS.AWS_SECRET_ACCESS_KEY);
    // A headless page has no window focus: the workbench files the message in the notification centre.
    await wb.runCommand('Notifications: Show Notifications');
    await wb.page
      .locator('.notifications-center .notification-list-item', { hasText: 'team store ci added' })
      .first()
      .waitFor();
    await wb.runCommand('Notifications: Hide Notifications');
    // The keys are in the editor's secret storage (the browser's, in a served workbench), not in any file of the
    // server and its extension host: settings, logs, the evidence storage, their home.
    const serverSide = readdirSync(wb.server.runDir)
      .filter((d) => d !== 'tmp')
      .map((d) => path.join(wb.server.runDir, d));
    assert.deepEqual(
      serverSide.flatMap((d) => (statSync(d).isDirectory() ? filesHolding(d, KEYS.AWS_ACCESS_KEY_ID) : [])),
      [],
    );
  });

  it("lists the CI run under the store's name, filterable, and ignores the workspace's store", async () => {
    // A local run beside it (the capture opens the inspector on it).
    await wb.capture('echo a local run');
    await view.locator('#detail-title', { hasText: 'stdout of' }).waitFor({ timeout: 60_000 });
    const run = view.locator('.vlist-row[data-kind="run"]:not([hidden])', {
      has: view.locator('.store-badge', { hasText: 'ci' }),
    });
    await run.waitFor({ timeout: 60_000 });
    const runs = view.locator('.vlist-row[data-kind="run"]:not([hidden])');
    await view.locator('#list-summary', { hasText: /^2 of 2 calls$/ }).waitFor();
    assert.equal(await runs.count(), 2);
    const local = runs.filter({ hasText: 'echo a local run' });
    assert.equal(await local.locator('.store-badge').count(), 0);
    assert.match(await text(run.locator('.c1')), /^ci cli run: awk 'BEGIN/);
    assert.match((await run.locator('.c1').getAttribute('title')) ?? '', /team store ci: read-only/);
    assert.match(await text(run.locator('.c8')), /from team store ci · run run-/);
    const sources = await view.locator('#filter-source vscode-option').allTextContents();
    assert.ok(sources.map((s) => s.trim()).includes('Team store ci'), sources.join(', '));
    assert.ok(!sources.some((s) => s.includes('evil')), sources.join(', '));
    await wb.screenshot('team-evidence-listed');
    // Filtered by the store: its run alone; then every source again.
    await view.locator('#filter-source').click();
    await view.locator('#filter-source li, #filter-source .option', { hasText: 'Team store ci' }).first().click();
    await view.locator('#list-summary', { hasText: /^1 of 2 calls$/ }).waitFor();
    assert.equal(await runs.count(), 1);
    assert.equal(await runs.locator('.store-badge').textContent(), 'ci');
    await view.locator('#filter-source').click();
    await view.locator('#filter-source li, #filter-source .option', { hasText: 'Any source' }).first().click();
    await view.locator('#list-summary', { hasText: /^2 of 2 calls$/ }).waitFor();
  });

  it('finds the error line by pattern and copies an excerpt whose provenance names the store', async () => {
    await view.locator('.vlist-row[data-kind="part"]:not([hidden])', { hasText: handle }).click();
    await view.locator('#id-handle', { hasText: handle }).waitFor();
    await view.locator('vscode-tab-header', { hasText: 'Pattern' }).click();
    await view.locator('#pattern input').fill('error TS\\d+');
    await view.locator('#find').click();
    await view.locator('#match-info', { hasText: 'Match 1 of 1' }).waitFor({ timeout: 60_000 });
    const match = view.locator('.match[aria-selected="true"]');
    assert.equal(await text(match.locator('.ln')), 'line 12,345');
    assert.equal(await text(match.locator('.tx')), ERROR_LINE);
    await view.locator('#window .wline.hit').waitFor();
    await wb.page.evaluate(() => navigator.clipboard.writeText('(empty)'));
    await view.locator('#copy-excerpt').click();
    await view.locator('#action-result', { hasText: 'copied with its provenance' }).waitFor();
    const excerpt = await wb.page.evaluate(() => navigator.clipboard.readText());
    assert.ok(excerpt.includes(`${ERROR_LINE}\n`), excerpt);
    assert.ok(
      excerpt.includes(`- handle: \`${handle}\`\n- team store: \`ci\` (a published run, read-only)\n`),
      excerpt,
    );
    await view.locator('#verify').click();
    await view.locator('#verdict.ok').waitFor({ timeout: 60_000 });
  });

  it('offers no Pin or Delete for the team run in the Runs view, as it does for the local run', async () => {
    await wb.page.locator('.activitybar .action-item a[aria-label^="Bounded Evidence"]').click();
    const rows = wb.page.locator('.pane:has(.pane-header[aria-label^="Runs"]) .monaco-list .monaco-list-row');
    /** The entries of a row's context menu. */
    const menuOf = async (row: Locator): Promise<string[]> => {
      await row.waitFor({ timeout: 30_000 });
      await row.click({ button: 'right' });
      const menu = wb.page.locator('.context-view .monaco-menu');
      await menu.locator('.action-label', { hasText: 'Open in Inspector' }).waitFor();
      const entries = (await menu.locator('.action-label').allTextContents()).map((s) => s.trim()).filter(Boolean);
      await wb.page.keyboard.press('Escape');
      await menu.waitFor({ state: 'detached' });
      return entries;
    };
    const team = await menuOf(rows.filter({ hasText: 'team ci' }));
    assert.ok(!team.some((e) => /Pin|Delete/.test(e)), team.join(', '));
    const local = await menuOf(rows.filter({ hasText: 'echo a local run' }));
    assert.ok(local.includes('Pin Run') && local.includes('Delete Run'), local.join(', '));
  });

  it('refuses a tampered blob with the sentence local tampering gets, and marks the verdict', async () => {
    const listed = await admin.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: `${PREFIX}/blobs/` }));
    const key = listed.Contents![0]!.Key!;
    const got = await admin.send(new GetObjectCommand({ Bucket: s3.bucket, Key: key }));
    const bytes = Buffer.from(await got.Body!.transformToByteArray());
    bytes.write('COMPILING', 0, 'latin1');
    await admin.send(new PutObjectCommand({ Bucket: s3.bucket, Key: key, Body: bytes }));

    await wb.runCommand('Bounded Evidence: Open Inspector');
    await view.locator('.vlist-row[data-kind="part"]:not([hidden])', { hasText: handle }).click();
    await view.locator('#id-handle', { hasText: handle }).waitFor();
    await view.locator('#verify').click();
    const verdict = view.locator('#verdict.error');
    await verdict.waitFor({ timeout: 60_000 });
    assert.match(await text(verdict), /^Verification failed: the stored bytes do not match sha256 [0-9a-f]{12}…\.$/);
    assert.match((await verdict.getAttribute('title'))!, /^sha256 [0-9a-f]{64}$/);
    await view.locator('vscode-tab-header', { hasText: 'Byte range' }).click();
    await view.locator('#bytes-start input').fill('0');
    await view.locator('#bytes-end input').fill('200');
    await view.locator('#fetch-bytes').click();
    const refused = view.locator('#window-error', { hasText: 'artifact digest does not match its recorded identity' });
    await refused.waitFor({ timeout: 60_000 });
    await wb.screenshot('team-evidence-tampered');
  });

  it('lists a run whose published log was changed, marked as refused, and counts team runs apart', async () => {
    const second = await ciCapture('echo second build; exit 1');
    assert.equal(second.status, 1, second.stderr);
    const runId = /published (run-\S+) to/.exec(second.stderr)![1]!;
    const Key = `${PREFIX}/runs/${runId}.jsonl`;
    const got = await admin.send(new GetObjectCommand({ Bucket: s3.bucket, Key }));
    const log = Buffer.from(await got.Body!.transformToByteArray()).toString('utf8');
    assert.ok(log.includes('second build'));
    // Changed after the fact, its recorded sha256 kept.
    const Body = Buffer.from(log.replace('second build', 'SECOND BUILD'));
    await admin.send(new PutObjectCommand({ Bucket: s3.bucket, Key, Body, Metadata: got.Metadata }));

    await wb.runCommand('Bounded Evidence: Refresh Team Evidence');
    await showRunsView();
    const rows = wb.page.locator('.pane:has(.pane-header[aria-label^="Runs"]) .monaco-list .monaco-list-row');
    const refused = rows.filter({ hasText: runId });
    await refused.waitFor({ timeout: 60_000 });
    assert.match(await text(refused), new RegExp(`^${runId}\\s*team ci · tampered: refused$`));
    assert.equal(await refused.getAttribute('aria-label'), `Run ${runId}, team ci · tampered: refused`);
    // Both team runs are counted, apart from this machine's one run and its bytes.
    await wb.page
      .locator('.statusbar-item', { hasText: /\b1 local run · [\d.]+ (bytes|KiB|MiB) · 2 team runs$/ })
      .first()
      .waitFor({ timeout: 30_000 });
    await wb.screenshot('team-evidence-refused-run');
  });

  it('Remove Team Evidence… takes the store out of the settings, the lists and this storage', async () => {
    /** The team stores' local indexes under the server's folders. */
    const indexes = (dir: string): string[] =>
      readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) =>
        /(^|\/)team\/t[0-9a-f]{32}$/.test(f.replaceAll(path.sep, '/')),
      );
    assert.equal(indexes(wb.server.runDir).length, 1);
    await wb.runCommand('Bounded Evidence: Remove Team Evidence…');
    await wb.page.locator('.quick-input-title', { hasText: 'Remove Team Evidence' }).waitFor();
    await input().fill('ci');
    await wb.page.locator('.quick-input-list .monaco-list-row[aria-label="ci"]').waitFor();
    await input().press('Enter');
    const dialog = wb.page.locator('.monaco-dialog-box', { hasText: 'Remove team store ci?' });
    await dialog.waitFor();
    await dialog.locator('.monaco-button', { hasText: /^Remove$/ }).click();
    await showRunsView();
    const rows = wb.page.locator('.pane:has(.pane-header[aria-label^="Runs"]) .monaco-list .monaco-list-row');
    await rows.filter({ hasText: 'echo a local run' }).waitFor();
    await rows.filter({ hasText: 'team ci' }).first().waitFor({ state: 'detached', timeout: 60_000 });
    await wb.page
      .locator('.statusbar-item', { hasText: /\b1 run · [\d.]+ (bytes|KiB|MiB)$/ })
      .first()
      .waitFor();
    assert.deepEqual(indexes(wb.server.runDir), []);
    await wb.runCommand('Bounded Evidence: Remove Team Evidence…');
    await wb.runCommand('Notifications: Show Notifications');
    await wb.page
      .locator('.notifications-center .notification-list-item', {
        hasText: 'no team store is added in your user settings',
      })
      .first()
      .waitFor();
    await wb.runCommand('Notifications: Hide Notifications');
  });
});
