// Flat config. The layer table of docs/architecture.md §2 is enforced here, so a wrong import
// fails `npm run lint` instead of surviving review.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const coreForbidden = {
  paths: [{ name: 'vscode', message: 'src/core never imports vscode (docs/architecture.md §2: core is editor-free).' }],
  patterns: [
    { group: ['**/extension/**', '**/extension'], message: 'src/core never imports src/extension.' },
    { group: ['**/webview/**', '**/webview'], message: 'src/core never imports webview.' },
  ],
};

/** The core's folders, lowest first: each may import only the folders before it (§2.1). */
const CORE_LAYERS = [
  'files',
  'integrity',
  'blobs',
  'artifacts',
  'runs',
  'team',
  'workspace',
  'agentLoop',
  'reach',
  'tools',
];
/** The run layer's folders, lowest first; `runs/types.ts` (the API's declarations) sits above `usage/`. */
const RUNS_LAYERS = ['log', 'processes', 'errorLines', 'search', 'recording', 'catalog', 'usage', 'reading', 'store'];
/** Run folders below `runs/types.ts` (and the two files it re-exports), which names the usage report. */
const BELOW_RUN_TYPES = new Set(['log', 'processes', 'errorLines', 'search']);

const sqliteForbidden = {
  name: 'node:sqlite',
  message: 'Only src/core/runs/catalog/ opens SQLite (docs/architecture.md §6): ask the run store.',
};

/** One `no-restricted-imports` zone: the core's own rule plus the folders it must not reach. */
function zone(files, group, message, { sqlite = false } = {}) {
  return {
    files,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [...coreForbidden.paths, ...(sqlite ? [] : [sqliteForbidden])],
          patterns: [...coreForbidden.patterns, ...(group.length > 0 ? [{ group, message }] : [])],
        },
      ],
    },
  };
}

/** A zone for every folder of src/core and of src/core/runs (later zones win over `src/core/**`). */
function coreZones() {
  const barrel = ['../index*', '../../index*', '../../../index*', '../stores*', '../../stores*', '../../../stores*'];
  const above = (list, i) => list.slice(i + 1);
  return [
    zone(
      ['src/core/**/*.ts'],
      barrel,
      'Nothing in src/core imports its barrel or stores.ts: import the module itself.',
    ),
    ...CORE_LAYERS.map((folder, i) =>
      zone(
        [`src/core/${folder}/**/*.ts`],
        [
          ...barrel,
          ...above(CORE_LAYERS, i).flatMap((f) => [`**/${f}`, `**/${f}/**`]),
          // The storage layout names files and integrity: they sit below it.
          ...(i < CORE_LAYERS.indexOf('blobs') ? ['../storageLayout*'] : []),
        ],
        `src/core/${folder}/ imports only ${CORE_LAYERS.slice(0, i).join(', ') || 'the root helpers'} (docs/architecture.md §2.1).`,
      ),
    ),
    ...RUNS_LAYERS.map((folder, i) =>
      zone(
        [`src/core/runs/${folder}/**/*.ts`],
        [
          ...barrel,
          ...above(CORE_LAYERS, CORE_LAYERS.indexOf('runs')).flatMap((f) => [`**/${f}`, `**/${f}/**`]),
          ...above(RUNS_LAYERS, i).flatMap((f) => [`../${f}`, `../${f}/**`]),
          ...(BELOW_RUN_TYPES.has(folder) ? ['../types*', '../listingTypes*', '../readingTypes*'] : []),
        ],
        `src/core/runs/${folder}/ imports, of the run layer, only: ${
          [...RUNS_LAYERS.slice(0, i), ...(BELOW_RUN_TYPES.has(folder) ? [] : ['types.ts'])].join(', ') || 'nothing'
        } (docs/architecture.md §2.1).`,
        { sqlite: folder === 'catalog' },
      ),
    ),
  ];
}

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      'dist/**',
      'out/**',
      'dist-package/**',
      '.tools/**',
      '.test-runs/**',
      '.bench-runs/**',
      'test-output/**',
      '**/*.js',
      '!esbuild.js',
      'test/integration/fixtures/**/dist/**',
      'demo/src/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'off',
    },
  },
  // Subsystems of the core as folders (docs/architecture.md §2.1), each importing only downwards:
  // a folder may import the ones listed before it (and the core's root helpers: errors, utf8, json),
  // never one after it, nor the barrel (index.ts) or stores.ts. A wrong import fails lint.
  ...coreZones(),
  {
    files: ['src/extension/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/webview/**', '**/webview'], message: 'src/extension never imports webview.' }] },
      ],
      // One LogOutputChannel: shipped code never writes to the console.
      'no-console': 'error',
    },
  },
  {
    files: ['webview/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'vscode', message: 'The webview runs in a browser: no vscode API.' }],
          patterns: [
            {
              group: ['**/core/**', '**/core', '**/extension/**', '**/extension'],
              message: 'webview imports only src/shared (types).',
            },
            {
              group: ['node:*', 'fs', 'path', 'crypto', 'child_process', 'os'],
              message: 'webview has no Node built-ins.',
            },
          ],
        },
      ],
      'no-console': 'error',
      // Tool output is text, always: no markup parsing anywhere in the page (docs/contracts.md §3.4).
      'no-restricted-properties': [
        'error',
        ...[
          'innerHTML',
          'outerHTML',
          'insertAdjacentHTML',
          'srcdoc',
          'createContextualFragment',
          'setHTMLUnsafe',
          'parseHTMLUnsafe',
        ].map((property) => ({
          property,
          message: 'Never parse markup in the webview: build elements and set textContent (webview/dom.ts).',
        })),
        { object: 'document', property: 'write', message: 'Never parse markup in the webview.' },
        { object: 'document', property: 'writeln', message: 'Never parse markup in the webview.' },
      ],
      'no-restricted-globals': ['error', { name: 'DOMParser', message: 'Never parse markup in the webview.' }],
      'no-implied-eval': 'error',
      'no-new-func': 'error',
      'no-eval': 'error',
    },
  },
  {
    // The MCP server is a layer of its own: the core and the protocol, never the editor or the page.
    files: ['src/mcp/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'vscode', message: 'src/mcp runs outside the editor: no vscode API.' }],
          patterns: [
            {
              group: ['**/extension/**', '**/extension'],
              message: 'src/mcp never imports src/extension (share code through src/core).',
            },
            { group: ['**/webview/**', '**/webview'], message: 'src/mcp never imports webview.' },
          ],
        },
      ],
      // stdout is the MCP stdio channel: one stray console.log corrupts the protocol. Log to stderr.
      'no-console': 'error',
    },
  },
  {
    // What the two front ends outside the editor share (package.json's declarations, the
    // settings from them, the storage choice): the core only, never a front end.
    files: ['src/node/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'vscode', message: 'src/node runs outside the editor: no vscode API.' }],
          patterns: [
            {
              group: ['**/extension/**', '**/extension', '**/webview/**', '**/webview', '**/shared/**'],
              message: 'src/node imports only src/core.',
            },
            { group: ['**/mcp/**', '**/mcp', '**/cli/**', '**/cli'], message: 'src/node never imports a front end.' },
          ],
        },
      ],
      'no-console': 'error',
      // package.json is required statically so that esbuild inlines it (src/node/packageJson.ts).
      '@typescript-eslint/no-require-imports': ['error', { allow: ['/package\\.json$'] }],
    },
  },
  {
    // The command line is a front end outside the editor, like the MCP server (which it
    // serves as `mcp`): the core, src/node (the storage and settings it shares with the
    // server) and src/mcp, never the editor or the page.
    files: ['src/cli/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'vscode', message: 'src/cli runs outside the editor: no vscode API.' }],
          patterns: [
            {
              group: ['**/extension/**', '**/extension'],
              message: 'src/cli never imports src/extension (share code through src/core).',
            },
            { group: ['**/webview/**', '**/webview'], message: 'src/cli never imports webview.' },
            {
              group: ['**/shared/**', '!**/shared/bytes.js', '!**/shared/savedWords.js'],
              message: 'src/cli has no use for the webview protocol (only the byte formatter and the saved sentence).',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/shared/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/core/**', '**/extension/**', '**/webview/**', 'vscode', 'node:*'],
              message: 'src/shared is the protocol: it imports nothing at run time.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.mjs'],
    languageOptions: {
      globals: {
        console: 'readonly',
        process: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        URL: 'readonly',
        fetch: 'readonly',
      },
    },
  },
  {
    files: ['esbuild.js'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { require: 'readonly', __dirname: 'readonly', process: 'readonly', console: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
