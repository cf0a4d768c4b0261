import * as assert from 'node:assert/strict';
import { nodeVersionProblem } from '../../../src/core/nodeVersion.js';

describe('the Node the product needs (src/core/nodeVersion.ts, package.json engines.node)', () => {
  it('accepts 22.14 and newer, and refuses older ones in one line naming both', () => {
    for (const v of ['22.14.0', '22.20.1', '23.0.0', '24.22.3', '30.1.0'])
      assert.equal(nodeVersionProblem(v), undefined, v);
    assert.equal(nodeVersionProblem('22.13.1'), 'bounded-evidence needs Node 22.14 or newer (this is v22.13.1)');
    assert.equal(nodeVersionProblem('20.19.8'), 'bounded-evidence needs Node 22.14 or newer (this is v20.19.8)');
    assert.equal(nodeVersionProblem('18.0.0'), 'bounded-evidence needs Node 22.14 or newer (this is v18.0.0)');
  });

  it('agrees with package.json engines.node', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const pkg = require('../../../package.json') as { engines: { node: string } };
    assert.equal(pkg.engines.node, '>=22.14');
    assert.equal(nodeVersionProblem(process.versions.node), undefined, 'the tests run on a Node the product supports');
  });
});
