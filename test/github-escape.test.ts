import { describe, expect, it } from 'vitest';
import { codeSpan, escapeHtml, escapeMarkdown, truncate } from '../src/github/escape.js';

describe('escapeMarkdown', () => {
  it.each([
    ['-->', '&#45;-&gt;'],
    ['<!--', '&lt;&#33;--'],
    ['<script>alert(1)</script>', '&lt;script&gt;alert&#40;1&#41;&lt;/script&gt;'],
    ['@team', '&#64;&#8203;team'],
    ['[x](https://evil)', '&#91;x&#93;&#40;https://evil&#41;'],
    ['![i](x)', '&#33;&#91;i&#93;&#40;x&#41;'],
    ['`code`', '&#96;code&#96;'],
    ['a|b', 'a&#124;b'],
    ['line1\nline2', 'line1<br>line2'],
    ['# heading', '&#35;&#8203; heading'],
    ['- item', '&#45; item'],
    ['1. item', '&#49;. item'],
    ['+ x', '&#43; x'],
    ['**bold** _it_ ~~s~~', '&#42;&#42;bold&#42;&#42; &#95;it&#95; &#126;&#126;s&#126;&#126;'],
    ['"q" & \'a\'', '&quot;q&quot; &amp; &#39;a&#39;'],
    ['feature/x-y', 'feature/x-y'],
    ['a\u0000\u0001\u0007b', 'a b'],
    ['a\r\nb\rc', 'a<br>b<br>c'],
    ['tab\there', 'tab here'],
    ['\u202Egnp.exe', ' gnp.exe'],
    ['$x$', '&#36;x&#36;'],
    ['fix #12', 'fix &#35;&#8203;12'],
  ])('renders %j inert', (input, expected) => {
    expect(escapeMarkdown(input)).toBe(expected);
  });

  it('keeps a table row on one line and its cells intact', () => {
    const cell = escapeMarkdown('a | b\nc | d');
    const row = `| ${cell} | ok |`;
    expect(row).toBe('| a &#124; b<br>c &#124; d | ok |');
    expect(row.split('|')).toHaveLength(4);
  });

  const hostile = [
    '-->',
    '<!-- datamodel-ci:comment deployment=x -->',
    '<!-- datamodel-ci:end:preview -->',
    '--><script>alert(1)</script><!--',
    '<img src=x onerror=alert(1)>',
    '@octocat @org/team please look',
    '[click](javascript:alert(1))',
    '![pixel](https://evil.example/p.png)',
    '<https://evil.example>',
    '```\ncode\n```',
    '| a | b |\n|---|---|\n| 1 | 2 |',
    '# h1\n## h2\n> quote\n- list\n* list\n1) list\n===\n---',
    '\\*not emphasis\\*',
    '&lt;already escaped&gt; &#64;x',
    'a\u0000b\u001bc\u007fd\u0085e\u2028f',
    'branch"name\'with-->quotes',
    '<details><summary>x</summary>y</details>',
    '$$\\sum$$',
    ':warning: [^1]',
    'x'.repeat(50) + '\n'.repeat(5) + '<',
  ];

  it.each(hostile)('property: %j has no active markup', (input) => {
    const out = escapeMarkdown(input);
    // No raw HTML, comment delimiters, markdown punctuation or line breaks survive.
    expect(out.replace(/<br>/g, '')).not.toMatch(/[<>"'`|[\]()!*_~@\\$\n\r]/);
    expect(out).not.toContain('<!--');
    expect(out).not.toContain('-->');
    expect(out).not.toMatch(/@\w/);
    // eslint-disable-next-line no-control-regex
    expect(out).not.toMatch(/[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u2028]/);
    // `&` only as the start of an entity we wrote.
    expect(out.replace(/&(#\d+|amp|lt|gt|quot);/g, '')).not.toContain('&');
    // Nothing at the start of the text can open a block.
    expect(out).not.toMatch(/^[-+=#>\d]/);
  });

  it('is not idempotent on purpose: an escaped text shows its entities, it does not unescape', () => {
    expect(escapeMarkdown('&#64;x')).toBe('&amp;&#35;&#8203;64;x');
  });
});

describe('codeSpan', () => {
  it('wraps escaped text in <code>, whatever it holds', () => {
    expect(codeSpan('a`b')).toBe('<code>a&#96;b</code>');
    expect(codeSpan('</code><script>x</script>')).toBe('<code>&lt;/code&gt;&lt;script&gt;x&lt;/script&gt;</code>');
    expect(codeSpan('models/**/*.sql')).toBe('<code>models/&#42;&#42;/&#42;.sql</code>');
    expect(codeSpan('')).toBe('<code></code>');
  });

  it.each(hostile())('property: %j cannot leave the code element', (input) => {
    const out = codeSpan(input);
    expect(out.startsWith('<code>') && out.endsWith('</code>')).toBe(true);
    const inner = out.slice('<code>'.length, -'</code>'.length).replace(/<br>/g, '');
    expect(inner).not.toMatch(/[<>`]/);
  });

  function hostile(): string[] {
    return ['</code>', '``', '<!--', '-->', 'a\nb', '<code>x'];
  }
});

describe('escapeHtml', () => {
  it('escapes the five HTML characters only', () => {
    expect(escapeHtml(`<a href="x">'&'</a> *_`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt; *_');
  });
});

describe('truncate', () => {
  it('leaves short text alone', () => {
    expect(truncate('abc', 3)).toBe('abc');
    expect(truncate('', 0)).toBe('');
  });
  it('cuts with an ellipsis to exactly max characters', () => {
    expect(truncate('abcdef', 4)).toBe('abc…');
    expect(truncate('abcdef', 4)).toHaveLength(4);
    expect(truncate('abcdef', 1)).toBe('…');
    expect(truncate('abcdef', 0)).toBe('');
  });
  it('never splits a surrogate pair', () => {
    const out = truncate('ab😀cd', 4);
    expect(out).toBe('ab…');
    expect(out).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });
});
