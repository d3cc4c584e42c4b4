/**
 * The README's picture of the PR comment is drawn from the real demo and must stay fresh: a change to the
 * comment's rendering shows up here until `npm run comment-picture` is run and the file committed.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PICTURE_FILE, commentSvg, normalise, renderPicture } from '../scripts/comment-picture.js';

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
  });

  it(`is what the demo renders today (${PICTURE_FILE})`, async () => {
    const fresh = await renderPicture();
    expect(fresh, 'run `npm run comment-picture` and commit the picture').toBe(readFileSync(PICTURE_FILE, 'utf8'));
  }, 120_000);
});
