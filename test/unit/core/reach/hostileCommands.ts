/** Command texts built from plain and hostile pieces, for the property tests of every route's rewrite. */
import fc from 'fast-check';

const hostile = fc.constantFrom(
  `'`,
  `"`,
  '$(id)',
  '`id`',
  '\n',
  '\\',
  '$HOME',
  '<<EOF\nx\nEOF\n',
  ';',
  '&&',
  '|',
  '*',
  '~',
  '!',
  '#',
  '{a,b}',
  '\t',
  ' ',
  'é',
  '🙂',
  '\u202e',
  '\r',
);

/** Only texts the hook may route: no NUL, no final continuation, nothing that ends the shell or sets errexit. */
export const routableText = fc
  .array(fc.oneof(fc.string({ unit: 'grapheme' }), hostile), { maxLength: 12 })
  .map((p) => p.join(''))
  .filter(
    (s) =>
      s.trim() !== '' &&
      !s.includes('\0') &&
      !/\\\s*$/.test(s) &&
      !/(?:^|[;&|\n{]|\b(?:then|else|do))\s*(?:exec|exit|logout|return)(?=\s|;|&|\||$)/.test(s) &&
      !/set\s+-[A-Za-z]*e|errexit/.test(s) &&
      !s.includes('} 8>>'),
  );
