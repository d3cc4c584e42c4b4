/**
 * The README's pictures of the PR comment are drawn from the real demo and must stay fresh: a change to the
 * comment's rendering shows up here until `npm run comment-picture` is run and the file committed.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PICTURES, commentSvg, normalise, renderPictures } from '../scripts/comment-picture.js';

describe('the PR comment picture', () => {
  it('fixes only what changes per run: the emulator address and the update time', () => {
    const comment = '<!-- datamodel-ci:ledger x -->\n### ✅ ready\n[p](https://127.0.0.1:4321/d/1) · **Updated:** 2026-01-02 03:04 UTC';
    expect(normalise({ title: 't', comment, platformUrl: 'https://127.0.0.1:4321', githubUrl: 'https://127.0.0.1:9' })).toBe(
      '### ✅ ready\n[p](https://acme.cubecloud.dev/d/1) · **Updated:** 2026-11-23 09:41 UTC',
    );
  });

  it('is well-formed XML with the sanitised HTML inside (no raw tags from outside text)', () => {
    const svg = commentSvg('### a\n\n| x | y |\n|---|---|\n| <img src=x onerror=alert(1)> | `b` |\n\nline<br>two');
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" width="820" height="\d+"/);
    expect(svg).not.toContain('onerror');
    expect(svg).toContain('<br />');
    expect(svg).toContain('<code>b</code>');
    // No bare boolean attribute (XML has none): a collapsible section keeps `open="open"`.
    expect(commentSvg('<details open><summary>s</summary>\n\nx\n\n</details>')).toContain('<details open="open">');
  });

  it('is what the demo renders today (docs/images/pr-comment-*.svg)', async () => {
    const fresh = await renderPictures();
    expect([...fresh.keys()]).toEqual(PICTURES.map((p) => p.file));
    for (const [file, svg] of fresh) expect(svg, `run \`npm run comment-picture\` and commit ${file}`).toBe(readFileSync(file, 'utf8'));
    // The impact picture shows the semantic-layer section with the report the push breaks.
    expect(fresh.get(PICTURES[0]!.file)).toContain('Revenue by country');
    // The access picture shows who can see what, with a probe's counts.
    expect(fresh.get(PICTURES[4]!.file)).toContain('<td>rows 5,000 → 4,483, counted with orders.count</td>');
    // The cost picture: the distinct count's reports leave production's rollup.
    expect(fresh.get(PICTURES[5]!.file)).toContain('8 changed (8 lost)');
    expect(fresh.get(PICTURES[5]!.file)).toContain('<td>⚠️ lost: reaches the warehouse</td>');
  }, 120_000);
});
