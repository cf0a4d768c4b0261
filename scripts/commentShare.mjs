// Share of comment characters in src/ and webview/, and lines over 120 characters, counted
// with TypeScript's own scanner so that `//` inside strings, templates and regexes is not a comment.
// Usage: node scripts/node24.mjs scripts/commentShare.mjs [--list] [folder…]
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

const K = ts.SyntaxKind;
const args = process.argv.slice(2);
const list = args.includes('--list');
const roots = args.filter((a) => a !== '--list');
if (roots.length === 0) roots.push('src', 'webview');

function* files(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else if (/\.tsx?$/.test(entry.name)) yield path;
  }
}

// After these tokens a `/` divides; elsewhere it opens a regular expression.
const endsExpression = new Set([
  K.Identifier,
  K.NumericLiteral,
  K.BigIntLiteral,
  K.StringLiteral,
  K.RegularExpressionLiteral,
  K.NoSubstitutionTemplateLiteral,
  K.TemplateTail,
  K.CloseParenToken,
  K.CloseBracketToken,
  K.CloseBraceToken,
  K.ThisKeyword,
  K.SuperKeyword,
  K.TrueKeyword,
  K.FalseKeyword,
  K.NullKeyword,
  K.PlusPlusToken,
  K.MinusMinusToken,
]);

// The plain scan (no rescanning) the first measurement used: it loses its place after a
// template with a substitution and undercounts; printed beside the exact count for comparison.
function plainCommentChars(text) {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, text);
  let count = 0;
  for (let kind = scanner.scan(); kind !== K.EndOfFileToken; kind = scanner.scan()) {
    if (kind === K.SingleLineCommentTrivia || kind === K.MultiLineCommentTrivia) {
      count += scanner.getTokenEnd() - scanner.getTokenStart();
    }
  }
  return count;
}

function commentChars(text) {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, text);
  const braces = []; // true where a `{` opened a template substitution
  let previous = K.Unknown;
  let count = 0;
  for (let kind = scanner.scan(); kind !== K.EndOfFileToken; kind = scanner.scan()) {
    if (kind === K.SingleLineCommentTrivia || kind === K.MultiLineCommentTrivia) {
      count += scanner.getTokenEnd() - scanner.getTokenStart();
      continue;
    }
    if (kind === K.WhitespaceTrivia || kind === K.NewLineTrivia) continue;
    if ((kind === K.SlashToken || kind === K.SlashEqualsToken) && !endsExpression.has(previous)) {
      kind = scanner.reScanSlashToken();
    } else if (kind === K.TemplateHead || kind === K.OpenBraceToken || kind === K.DollarBraceToken) {
      braces.push(kind === K.TemplateHead);
    } else if (kind === K.CloseBraceToken && braces.pop() === true) {
      kind = scanner.reScanTemplateToken(false);
      if (kind === K.TemplateMiddle) braces.push(true);
    }
    previous = kind;
  }
  return count;
}

let all = 0;
let comments = 0;
let plain = 0;
const long = [];
for (const root of roots) {
  for (const path of files(root)) {
    const text = readFileSync(path, 'utf8');
    all += text.length;
    comments += commentChars(text);
    plain += plainCommentChars(text);
    text.split('\n').forEach((line, i) => {
      if (line.length > 120) long.push(`${path}:${i + 1} (${line.length})`);
    });
  }
}
const share = (n) => `${((100 * n) / all).toFixed(1)}% (${n} of ${all} characters)`;
console.log(`comment share: ${share(comments)}`);
console.log(`comment share, plain scan: ${share(plain)}`);
console.log(`lines over 120 characters: ${long.length}`);
if (list) for (const line of long) console.log(`  ${line}`);
