/**
 * The one deny list of secret files for every front end (docs/contracts.md §5.3). Patterns are segment globs matched
 * case-insensitively against every run of consecutive segments; a setting can add patterns, nothing removes a
 * built-in.
 */

interface BuiltinPattern {
  readonly pattern: string;
  readonly except?: readonly string[];
}

const ENV_TEMPLATES = ['.env.example', '.env.sample', '.env.template', '.env.dist', '.env.defaults'];

/** Extend here; docs/contracts.md lists the kinds. */
const BUILTINS: readonly BuiltinPattern[] = [
  // Templates that by convention hold no values stay readable.
  { pattern: '.env' },
  { pattern: '.env.*', except: ENV_TEMPLATES },
  { pattern: '.envrc' },
  // The whole .git folder: remotes, hooks, config with tokens.
  { pattern: '.git' },
  { pattern: '.git-credentials' },
  { pattern: '.config/git/credentials' },
  { pattern: '.ssh' },
  { pattern: '.gnupg' },
  { pattern: 'id_rsa*' },
  { pattern: 'id_dsa*' },
  { pattern: 'id_ecdsa*' },
  { pattern: 'id_ed25519*' },
  { pattern: '*.pem' },
  { pattern: '*.key' },
  { pattern: '*.p12' },
  { pattern: '*.pfx' },
  { pattern: '*.p8' },
  { pattern: '*.jks' },
  { pattern: '*.keystore' },
  { pattern: '*.kdbx' },
  { pattern: '*.ppk' },
  { pattern: '.password-store' },
  { pattern: '.htpasswd' },
  // Commands typed with tokens in them.
  { pattern: '.bash_history' },
  { pattern: '.zsh_history' },
  { pattern: '.sh_history' },
  { pattern: '.history' },
  { pattern: 'fish_history' },
  { pattern: '.python_history' },
  { pattern: '.node_repl_history' },
  { pattern: '.psql_history' },
  { pattern: '.mysql_history' },
  { pattern: '.sqlite_history' },
  { pattern: '.rediscli_history' },
  { pattern: '.irb_history' },
  { pattern: '.lesshst' },
  { pattern: '.viminfo' },
  // Whether or not this copy holds one: a token cannot be told from a URL safely.
  { pattern: '.npmrc' },
  { pattern: '.yarnrc.yml' },
  { pattern: '.pypirc' },
  { pattern: '.gem/credentials' },
  { pattern: '.cargo/credentials' },
  { pattern: '.cargo/credentials.toml' },
  { pattern: '.m2/settings.xml' },
  { pattern: '.gradle/gradle.properties' },
  { pattern: '.composer/auth.json' },
  { pattern: '.aws' },
  { pattern: '.azure' },
  { pattern: '.config/gcloud' },
  { pattern: '.oci' },
  { pattern: '.kube' },
  { pattern: '.docker' },
  { pattern: '.config/gh/hosts.yml' },
  { pattern: '.config/hub' },
  { pattern: '.config/doctl' },
  { pattern: '.terraform.d/credentials.tfrc.json' },
  { pattern: '*.tfstate' },
  { pattern: '*.tfstate.backup' },
  { pattern: '.vault-token' },
  { pattern: '.boto' },
  { pattern: '.s3cfg' },
  { pattern: '.databrickscfg' },
  { pattern: '.netrc' },
  { pattern: '_netrc' },
  { pattern: '.pgpass' },
  { pattern: '.my.cnf' },
  { pattern: '.dockercfg' },
  // Credential files cloud SDKs and their tutorials write into a project, wherever they are copied.
  { pattern: 'credentials.json' },
  { pattern: 'client_secret*.json' },
  { pattern: 'service-account*.json' },
  { pattern: 'service_account*.json' },
  { pattern: '*-firebase-adminsdk-*.json' },
  { pattern: 'application_default_credentials.json' },
];

export const BUILTIN_DENY_PATTERNS: readonly string[] = BUILTINS.map((b) => b.pattern);

interface CompiledPattern {
  readonly segments: readonly RegExp[];
  readonly except: ReadonlySet<string>;
}

function segmentRegExp(glob: string): RegExp {
  const body = glob
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${body}$`, 'i');
}

function splitPath(p: string): string[] {
  return p.split(/[\\/]/).filter((s) => s !== '' && s !== '.');
}

function compile(b: BuiltinPattern): CompiledPattern | undefined {
  const segments = splitPath(b.pattern.trim());
  if (segments.length === 0) return undefined;
  return { segments: segments.map(segmentRegExp), except: new Set((b.except ?? []).map((e) => e.toLowerCase())) };
}

const COMPILED_BUILTINS: readonly CompiledPattern[] = BUILTINS.map(compile).filter(
  (c): c is CompiledPattern => c !== undefined,
);

export class SecretPathRules {
  private readonly patterns: readonly CompiledPattern[];

  /** Blanks and non-strings are ignored; none can lift a built-in. */
  constructor(extra: readonly unknown[] = []) {
    const added = extra.filter((e): e is string => typeof e === 'string').map((pattern) => compile({ pattern }));
    this.patterns = [...COMPILED_BUILTINS, ...added.filter((c): c is CompiledPattern => c !== undefined)];
  }

  isSecret(relPath: string): boolean {
    const segs = splitPath(relPath);
    return this.patterns.some((p) => matchesRun(p, segs));
  }
}

function matchesRun(p: CompiledPattern, segs: readonly string[]): boolean {
  const n = p.segments.length;
  for (let start = 0; start + n <= segs.length; start++) {
    let all = true;
    for (let i = 0; i < n && all; i++) all = p.segments[i]!.test(segs[start + i]!);
    if (all && !p.except.has(segs[start + n - 1]!.toLowerCase())) return true;
  }
  return false;
}

export const BUILTIN_SECRET_RULES = new SecretPathRules();
