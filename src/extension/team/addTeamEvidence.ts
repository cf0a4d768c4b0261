/**
 * **Add Team Evidence…** (docs/contracts.md §7.3): asks a name, the `s3://` address, an optional endpoint and
 * region, and how requests are signed (the AWS default chain, a named profile, or access keys kept in
 * SecretStorage), each answer checked as it is typed; then adds the store to the user's settings. Keys go to
 * SecretStorage only, never to a settings file. An argument object of the same fields (tests, other extensions)
 * skips the questions.
 */
import * as vscode from 'vscode';
import { Ids } from '../ids.js';
import { SettingKeys } from '../settings.js';
import type { Log } from '../log.js';
import {
  checkAccessKeyId,
  checkEntry,
  checkSecretAccessKey,
  checkTeamEndpoint,
  checkTeamName,
  checkTeamProfile,
  checkTeamRegion,
  checkTeamUri,
  teamSecretKey,
  type TeamCredentialChoice,
  type TeamStoreSetting,
} from './teamSettings.js';

/** The setting's key under the section. */
export const TEAM_STORES_KEY = SettingKeys.teamStores;

/** What the command takes instead of asking. */
interface AddTeamArgs {
  readonly name?: unknown;
  readonly uri?: unknown;
  readonly endpoint?: unknown;
  readonly region?: unknown;
  readonly pathStyle?: unknown;
  readonly credentials?: unknown;
  readonly profile?: unknown;
  readonly accessKeyId?: unknown;
  readonly secretAccessKey?: unknown;
}

const title = 'Bounded Evidence: Add Team Evidence';

/** Runs the command; the added entry, or undefined when cancelled or refused (the reason is shown). */
export async function addTeamEvidence(
  secrets: vscode.SecretStorage,
  log: Log,
  given?: AddTeamArgs,
): Promise<TeamStoreSetting | undefined> {
  const config = vscode.workspace.getConfiguration(Ids.configSection);
  const current = config.inspect<unknown[]>(TEAM_STORES_KEY)?.globalValue;
  const existing = Array.isArray(current) ? current : [];
  const taken = existing.flatMap((e) =>
    typeof e === 'object' && e !== null && typeof (e as { name?: unknown }).name === 'string'
      ? [(e as { name: string }).name]
      : [],
  );
  const answers = given ? fromArgs(given) : await ask(taken);
  if (!answers) return undefined;
  const checked = checkEntry(answers.entry, taken, {});
  if (typeof checked === 'string') {
    void vscode.window.showErrorMessage(`${title}: ${checked}. Nothing was added.`);
    return undefined;
  }
  if (answers.entry.credentials === 'secretStorage') {
    const keyError = checkAccessKeyId(answers.accessKeyId ?? '') ?? checkSecretAccessKey(answers.secretAccessKey ?? '');
    if (keyError) {
      void vscode.window.showErrorMessage(`${title}: ${keyError} Nothing was added.`);
      return undefined;
    }
    await secrets.store(
      teamSecretKey(checked.setting.name),
      JSON.stringify({ accessKeyId: answers.accessKeyId, secretAccessKey: answers.secretAccessKey }),
    );
  }
  await config.update(TEAM_STORES_KEY, [...existing, checked.setting], vscode.ConfigurationTarget.Global);
  log.info(`team store ${checked.setting.name} added (${checked.setting.credentials} credentials)`);
  void vscode.window.showInformationMessage(
    `Bounded Evidence: team store ${checked.setting.name} added. Its runs appear in the inspector and the Runs view.`,
  );
  return checked.setting;
}

interface Answers {
  readonly entry: TeamStoreSetting;
  readonly accessKeyId?: string;
  readonly secretAccessKey?: string;
}

function fromArgs(a: AddTeamArgs): Answers {
  const s = (v: unknown): string => (typeof v === 'string' ? v.trim() : '');
  return {
    entry: {
      name: s(a.name),
      uri: s(a.uri),
      ...(s(a.endpoint) !== '' && { endpoint: s(a.endpoint) }),
      ...(s(a.region) !== '' && { region: s(a.region) }),
      ...(a.pathStyle === true && { pathStyle: true }),
      credentials: (typeof a.credentials === 'string' ? a.credentials : 'default') as TeamCredentialChoice,
      ...(s(a.profile) !== '' && { profile: s(a.profile) }),
    },
    accessKeyId: s(a.accessKeyId),
    secretAccessKey: typeof a.secretAccessKey === 'string' ? a.secretAccessKey : '',
  };
}

/** One question; undefined when the person pressed Escape. */
function question(
  step: string,
  prompt: string,
  validate: (v: string) => string | undefined,
  extra: Partial<vscode.InputBoxOptions> = {},
): Thenable<string | undefined> {
  return vscode.window
    .showInputBox({
      title: `${title} (${step})`,
      prompt,
      ignoreFocusOut: true,
      validateInput: (v) => validate(v.trim()),
      ...extra,
    })
    .then((v) => v?.trim());
}

async function ask(taken: readonly string[]): Promise<Answers | undefined> {
  const name = await question('1/5', 'A name for the store, shown on its runs (e.g. ci)', (v) =>
    checkTeamName(v, taken),
  );
  if (name === undefined) return undefined;
  const uri = await question('2/5', 'Where the runs are published: s3://BUCKET/PREFIX', checkTeamUri, {
    placeHolder: 's3://my-team-bucket/evidence',
  });
  if (uri === undefined) return undefined;
  const endpoint = await question(
    '3/5',
    'S3-compatible endpoint, http(s)://HOST[:PORT] (empty: AWS)',
    checkTeamEndpoint,
  );
  if (endpoint === undefined) return undefined;
  const region = await question('4/5', 'Region (empty: the AWS environment, else us-east-1)', checkTeamRegion);
  if (region === undefined) return undefined;
  const picked = await vscode.window.showQuickPick(
    [
      {
        label: 'Default AWS credential chain',
        detail: 'Environment, AWS_PROFILE, SSO, instance roles',
        value: 'default',
      },
      { label: 'A named AWS profile', detail: 'From ~/.aws/config and ~/.aws/credentials', value: 'profile' },
      {
        label: 'Access keys kept in SecretStorage',
        detail: "Kept by the editor's secret storage, never in a settings file",
        value: 'secretStorage',
      },
    ] as const,
    { title: `${title} (5/5)`, placeHolder: 'How requests to the bucket are signed', ignoreFocusOut: true },
  );
  if (!picked) return undefined;
  const base = {
    name,
    uri,
    ...(endpoint !== '' && { endpoint }),
    ...(region !== '' && { region }),
    credentials: picked.value,
  };
  if (picked.value === 'profile') {
    const profile = await question('5/5: profile', 'AWS profile name', checkTeamProfile);
    return profile === undefined ? undefined : { entry: { ...base, profile } };
  }
  if (picked.value === 'secretStorage') {
    const accessKeyId = await question('5/5: access key id', 'Access key id', checkAccessKeyId);
    if (accessKeyId === undefined) return undefined;
    const secretAccessKey = await question(
      '5/5: secret access key',
      'Secret access key (kept in SecretStorage)',
      checkSecretAccessKey,
      {
        password: true,
      },
    );
    return secretAccessKey === undefined ? undefined : { entry: base, accessKeyId, secretAccessKey };
  }
  return { entry: base };
}
