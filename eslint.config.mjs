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
  {
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          ...coreForbidden,
          paths: [
            ...coreForbidden.paths,
            {
              name: 'node:sqlite',
              message: 'Only src/core/runs/catalog/ opens SQLite (docs/architecture.md §6): ask the run store.',
            },
          ],
        },
      ],
    },
  },
  {
    // The run catalog (docs/architecture.md §6): an index the run store uses, never the other way round.
    files: ['src/core/runs/catalog/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          ...coreForbidden,
          patterns: [
            ...coreForbidden.patterns,
            {
              group: [
                '../runStore*',
                '../run',
                '../run.js',
                '../runCommand*',
                '../callPage*',
                '../../tools/**',
                '../../stores*',
              ],
              message: 'The catalog indexes the logs; it never imports the run store, the recorder or the tools.',
            },
          ],
        },
      ],
    },
  },
  // Subsystems of the core as folders (docs/architecture.md §2.1), each importing only downwards:
  // files ← integrity ← artifacts / runs (search ← reader ← store) ← tools. A wrong import fails lint.
  ...[
    [
      'src/core/files/**/*.ts',
      ['../*', '../*/**', '!../errors*', '!../utf8*'],
      'src/core/files/ is the bottom: file identity and confined opening, no other subsystem.',
    ],
    [
      'src/core/integrity/**/*.ts',
      ['../*/**', '!../files/**', '../stores*', '../storageLayout*', '../index*'],
      'src/core/integrity/ builds and checks manifests over files: it imports only src/core/files/ (and errors, utf8).',
    ],
    [
      'src/core/artifacts/**/*.ts',
      ['../runs/**', '../tools/**', '../workspace/**', '../reach/**', '../stores*'],
      'Artifacts sit on blobs and integrity: never the runs, the tools or the workspaces.',
    ],
    [
      'src/core/runs/search/**/*.ts',
      ['../runStore*', '../run', '../run.js', '../runCommand*', '../catalog/**', '../../tools/**', '../../stores*'],
      'The pattern search reads verified bytes: it never imports the run store, the recorder, the catalog or the tools.',
    ],
  ].map(([files, group, message]) => ({
    files: [files],
    rules: {
      'no-restricted-imports': [
        'error',
        { ...coreForbidden, patterns: [...coreForbidden.patterns, { group, message }] },
      ],
    },
  })),
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
      // package.json is required statically so that esbuild inlines it (src/mcp/manifest.ts).
      '@typescript-eslint/no-require-imports': ['error', { allow: ['/package\\.json$'] }],
    },
  },
  {
    // The command line is a front end outside the editor, like the MCP server (which it
    // serves as `mcp` and whose storage and settings opening it shares): the core and
    // src/mcp, never the editor or the page.
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
              group: ['**/shared/**', '!**/shared/bytes.js'],
              message: 'src/cli has no use for the webview protocol (only the byte formatter).',
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
