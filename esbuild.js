// Builds the extension (Node, CommonJS, `vscode` external), the MCP server (Node,
// CommonJS, dist/mcp.js), the command line (dist/cli.js), the pattern-search worker
// (dist/patternWorker.js) and the inspector webview (browser, IIFE). Flags: --watch,
// --production (minified, no source maps), --tests (also bundles the integration suite
// into out/ for the extension host). Also assembles dist-cli/, the command line's npm package.
const esbuild = require('esbuild');
const path = require('node:path');

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');
const tests = process.argv.includes('--tests');

/** Prints the lines VS Code's esbuild problem matcher looks for. */
const problemMatcher = {
  name: 'problem-matcher',
  setup(build) {
    build.onStart(() => {
      if (watch) console.log('[watch] build started');
    });
    build.onEnd((result) => {
      for (const { text, location } of result.errors) {
        console.error(`✘ [ERROR] ${text}`);
        if (location) console.error(`    ${location.file}:${location.line}:${location.column}:`);
      }
      if (watch) console.log('[watch] build finished');
    });
  },
};

/**
 * Copies the codicon font and stylesheet next to the webview bundle (dist/codicon.*, as
 * .vscodeignore lists them):
 * the inspector may load only from dist/ and media/ (localResourceRoots), never from
 * node_modules, and generated files are not committed.
 */
const copyCodicons = {
  name: 'copy-codicons',
  setup(build) {
    build.onEnd(() => {
      const fs = require('node:fs');
      const from = path.join(__dirname, 'node_modules', '@vscode', 'codicons', 'dist');
      const to = path.join(__dirname, 'dist');
      fs.mkdirSync(to, { recursive: true });
      for (const f of ['codicon.css', 'codicon.ttf']) fs.copyFileSync(path.join(from, f), path.join(to, f));
    });
  },
};

/**
 * The AWS SDK (1.4 MB of the 2.4 MB command line) lives in its own file, dist/aws-s3.js,
 * loaded only when an S3 store is opened: every process parses its whole bundle at start,
 * and the command line starts on every hook-routed agent command (docs/architecture.md §2.4).
 * One copy of the SDK serves the adapter, so its error classes stay one class.
 */
const awsSdkApart = {
  name: 'aws-sdk-apart',
  setup(build) {
    build.onResolve({ filter: /^@aws-sdk\/client-s3$/ }, () => ({ path: './aws-s3.js', external: true }));
  },
};

const common = {
  bundle: true,
  minify: production,
  sourcemap: !production,
  sourcesContent: false,
  logLevel: 'warning',
  plugins: [problemMatcher],
  absWorkingDir: __dirname,
  // jsonc-parser's "main" is a UMD build whose internal requires esbuild cannot follow: bundle its ES modules.
  alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
  // The shim is a real sh file (linted by `sh -n` and ShellCheck); the bundles carry its text (src/core/reach/shim.ts).
  define: {
    BOUNDED_EVIDENCE_SHIM_SH: JSON.stringify(
      require('node:fs').readFileSync(path.join(__dirname, 'src', 'core', 'reach', 'shim.sh'), 'utf8'),
    ),
  },
};

/** The product's Node bundles (extension, MCP server, command line). */
const nodeProduct = {
  ...common,
  platform: 'node',
  format: 'cjs',
  target: 'node22',
  plugins: [problemMatcher, awsSdkApart],
};

const configs = [
  {
    ...nodeProduct,
    entryPoints: ['src/extension/extension.ts'],
    outfile: 'dist/extension.js',
    external: ['vscode'],
  },
  {
    // The MCP server (stdio) for agents outside the editor: plain Node, no `vscode`, the
    // SDK and package.json's tool declarations bundled in (`node dist/mcp.js --help`).
    ...nodeProduct,
    entryPoints: ['src/mcp/main.ts'],
    outfile: 'dist/mcp.js',
  },
  {
    // The command line (`bounded-evidence`, the package's bin): capture, read, import,
    // list, verify, hook, mcp. Plain Node, no `vscode`; runnable as `node dist/cli.js`.
    ...nodeProduct,
    entryPoints: ['src/cli/main.ts'],
    outfile: 'dist/cli.js',
    banner: { js: '#!/usr/bin/env node' },
  },
  {
    // The hook alone (dist/hook.js, ~20 KB): every agent tool call a hook sees starts it, so it
    // loads no store; the shim and the hook files start it for `hook` (docs/architecture.md §2.4).
    ...nodeProduct,
    entryPoints: ['src/cli/hookMain.ts'],
    outfile: 'dist/hook.js',
    // The agent adapters it dispatches through carry init's half too, which reads TOML; the hook never runs it.
    external: ['smol-toml'],
    banner: { js: '#!/usr/bin/env node' },
  },
  {
    // The AWS SDK's S3 client, required by the bundles above only when an S3 store opens.
    ...common,
    entryPoints: ['src/core/blobs/awsS3.ts'],
    outfile: 'dist/aws-s3.js',
    platform: 'node',
    format: 'cjs',
    target: 'node22',
  },
  {
    // The pattern-search worker (src/core/runs/search/patternWorker.ts), started in a worker
    // thread by the extension and the MCP server: workerPool.ts looks for it beside the
    // bundle that loaded it (docs/contracts.md §2.10).
    ...common,
    entryPoints: ['src/core/runs/search/patternWorker.ts'],
    outfile: 'dist/patternWorker.js',
    platform: 'node',
    format: 'cjs',
    target: 'node22',
  },
  {
    ...common,
    entryPoints: ['webview/main.ts'],
    outfile: 'dist/webview.js',
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
    plugins: [problemMatcher, copyCodicons],
  },
  {
    // The Savings view's page (src/extension/savings/savingsView.ts): plain DOM and a Chart.js canvas.
    ...common,
    entryPoints: ['webview/savings.ts'],
    outfile: 'dist/savings.js',
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
    plugins: [problemMatcher],
  },
];

if (tests) {
  // Each integration test file is its own bundle beside index.js, which finds them at
  // run time: adding a test needs no list to keep in sync.
  const fs = require('node:fs');
  const testFiles = fs.readdirSync(path.join(__dirname, 'test', 'integration')).filter((f) => f.endsWith('.test.ts'));
  configs.push({
    ...common,
    entryPoints: ['test/integration/index.ts', ...testFiles.map((f) => `test/integration/${f}`)],
    outdir: 'out/test/integration',
    platform: 'node',
    format: 'cjs',
    target: 'node22',
    external: ['vscode', 'mocha'],
  });
  // Test bundles that call the core directly find the worker beside them too.
  configs.push({
    ...common,
    entryPoints: ['src/core/runs/search/patternWorker.ts'],
    outfile: 'out/test/integration/patternWorker.js',
    platform: 'node',
    format: 'cjs',
    target: 'node22',
  });
}

/**
 * The command line as an npm package of its own (dist-cli/, gitignored; `npm pack dist-cli` makes the tarball a
 * teammate or CI installs with `npm install -g`): the bundles the command line loads and nothing else (no
 * dependencies: everything is bundled, nothing is downloaded at run time), its own README, the root's version.
 */
function packCli() {
  const fs = require('node:fs');
  const root = require('./package.json');
  const out = path.join(__dirname, 'dist-cli');
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  const files = ['cli.js', 'hook.js', 'aws-s3.js', 'patternWorker.js'];
  for (const f of files) fs.copyFileSync(path.join(__dirname, 'dist', f), path.join(out, f));
  fs.chmodSync(path.join(out, 'cli.js'), 0o755);
  // The bin: the shim with no path in it (src/core/reach/shim.ts `packageShimScript`), so a hook starts hook.js,
  // answers other tools without Node and gives a small output back with sh.
  fs.writeFileSync(path.join(out, 'bounded-evidence'), require(path.join(out, 'cli.js')).packageShimScript(), {
    mode: 0o755,
  });
  fs.copyFileSync(path.join(__dirname, 'src', 'cli', 'npm-README.md'), path.join(out, 'README.md'));
  fs.copyFileSync(path.join(__dirname, 'LICENSE'), path.join(out, 'LICENSE'));
  const manifest = {
    name: 'bounded-evidence',
    version: root.version,
    description:
      'The Bounded Evidence command line: keep every byte of a command, show the model a bounded observation, route agent shells through it.',
    license: root.license,
    bin: { 'bounded-evidence': 'bounded-evidence' },
    engines: { node: root.engines.node },
    files: [...files, 'bounded-evidence', 'README.md', 'LICENSE'],
  };
  fs.writeFileSync(path.join(out, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
}

async function main() {
  const contexts = await Promise.all(configs.map((c) => esbuild.context(c)));
  if (watch) {
    await Promise.all(contexts.map((c) => c.watch()));
    return;
  }
  await Promise.all(contexts.map((c) => c.rebuild()));
  await Promise.all(contexts.map((c) => c.dispose()));
  packCli();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
