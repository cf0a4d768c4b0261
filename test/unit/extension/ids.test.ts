import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { Ids } from '../../../src/extension/ids.js';

const pkg = JSON.parse(readFileSync(path.join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as {
  contributes: { commands: { command: string }[] };
};

/** Every string of a nested table of ids. */
const idsOf = (table: object): string[] =>
  Object.values(table).flatMap((v: unknown) => (typeof v === 'string' ? [v] : idsOf(v as object)));

describe('command ids', () => {
  it('every command package.json declares is in the one table, Ids.commands', () => {
    const ids = new Set(idsOf(Ids.commands));
    assert.deepEqual(
      pkg.contributes.commands.map((c) => c.command).filter((c) => !ids.has(c)),
      [],
    );
  });

  it('the table holds no command package.json lacks but the two that only code runs', () => {
    const declared = new Set(pkg.contributes.commands.map((c) => c.command));
    assert.deepEqual(
      idsOf(Ids.commands).filter((c) => !declared.has(c)),
      [Ids.commands.outputLineNumbers, Ids.commands.view.showMore],
    );
  });
});
