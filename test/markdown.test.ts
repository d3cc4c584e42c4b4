/**
 * Outside text in markdown (src/pr/comment/markdown.ts), checked the way GitHub shows it: rendered as GFM,
 * sanitised, then read back. Whatever goes in comes out as the same visible text, in one paragraph or
 * code span, with no element, link, mention or reference of its own.
 */
import { describe, expect, it } from 'vitest';
import { code, cut, link, plain, text } from '../src/pr/comment/markdown.js';
import { renderGfm } from './support/gfm.js';

const hostile = [
  '-->',
  '<!-- datamodel-ci:comment deployment=x -->',
  '--><script>alert(1)</script><!--',
  '<img src=x onerror=alert(1)>',
  '@octocat @org/team please look',
  '[click](javascript:alert(1))',
  '![pixel](https://evil.example/p.png)',
  '<https://evil.example>',
  'see https://evil.example/path?x=1 and www.evil.example, or mail ops@evil.example',
  '```\ncode\n```',
  '| a | b |\n|---|---|\n| 1 | 2 |',
  '# h1\n## h2\n> quote\n- list\n* list\n1) list\n===\n---',
  '\\*not emphasis\\*',
  '&lt;already escaped&gt; &#64;x',
  'a\u0000b\u001bc\u007fd\u0085e\u2028f\u200Bg',
  'branch"name\'with-->quotes',
  '<details><summary>x</summary>y</details>',
  '$$\\sum$$ :warning: [^1] ~~strike~~ **bold** _it_',
  '3333333 fix #12',
];

/** The visible text a person should read: controls and line breaks as single spaces. */
const expected = (s: string) => plain(s);

describe('text: outside prose', () => {
  it.each(hostile)('%j renders as its own text, with no element or link of its own', (input) => {
    const html = renderGfm(text(input));
    // Mentions and references carry a zero-width space after @ and #: compare without it.
    expect(html.text.replace(/\u200B/g, '').trim()).toBe(expected(input));
    expect(JSON.stringify(html.tree)).not.toMatch(/"tagName":"(?!p"|code")\w+"/);
    expect(html.links).toEqual([]);
    // Outside code (where GitHub resolves nothing), every @ and # is broken.
    const prose = html.codes.reduce((t, c) => t.replace(c, ''), html.text);
    expect(prose).not.toMatch(/(^|[^\u200B])[@#]\w/);
  });

  it('shows URLs and addresses as code: readable, copyable, never a link', () => {
    const html = renderGfm(text('see https://evil.example/path?x=1 and ops@evil.example'));
    expect(html.codes).toEqual(['https://evil.example/path?x=1', 'ops@evil.example']);
    expect(html.links).toEqual([]);
  });

  it('finds a scheme or an address where its run of name characters starts, inside longer runs too', () => {
    const codes = (s: string) => renderGfm(text(s)).codes;
    expect(codes('a1b2http://q.z')).toEqual(['a1b2http://q.z']);
    expect(codes('1abc://x and ab-c.d://e?f')).toEqual(['abc://x', 'ab-c.d://e?f']);
    expect(codes('Error: foo.bar+baz@ex.com, see www.x.com)')).toEqual(['foo.bar+baz@ex.com', 'www.x.com']);
    expect(codes('a.b@c.d@e.f')).toEqual(['a.b@c.d']);
    // A long run of letters (a platform message can hold one) is plain prose, as before.
    expect(codes(`${'a'.repeat(50_000)} x`)).toEqual([]);
  });
});

describe('code: names a person copies', () => {
  it.each(['a`b', '``x``', '`lead', 'trail`', 'feature/x-y', '</code><script>x</script>', 'a|b', 'a\nb'])('%j stays one code span, verbatim', (input) => {
    const html = renderGfm(code(input));
    expect(html.codes).toEqual([plain(input)]);
    expect(html.codes[0]).not.toMatch(/[\u200B&]/);
  });

  it('escapes | inside a table cell so the row keeps its shape', () => {
    const html = renderGfm(`| a | b |\n|---|---|\n| ${code('x|y', { cell: true })} | ok |`);
    expect(html.tables[0]!.rows).toEqual([['x|y', 'ok']]);
  });
});

describe('link', () => {
  it('links our https targets only', () => {
    expect(renderGfm(link('run', 'https://github.com/o/r/actions/runs/1')).links).toEqual([{ href: 'https://github.com/o/r/actions/runs/1', text: 'run' }]);
    expect(renderGfm(link('x', 'javascript:alert(1)')).links).toEqual([]);
  });
});

describe('cut', () => {
  it('cuts to exactly max characters with an ellipsis, never splitting a surrogate pair', () => {
    expect(cut('abc', 3)).toBe('abc');
    expect(cut('abcdef', 4)).toBe('abc…');
    expect(cut('ab😀cd', 4)).toBe('ab…');
  });
});
