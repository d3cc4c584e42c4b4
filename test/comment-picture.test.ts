/**
 * The README's pictures of the PR comment are drawn from the real demo and must stay fresh: a change to the
 * comment's rendering shows up here until `npm run comment-picture` is run and the files committed. The
 * pictures are PNGs a browser made; each carries the hash of the page it was made from, checked here.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PICTURES, commentHtml, isPictureOf, normalise, renderPictures } from '../scripts/comment-picture.js';
import { pngSize, pngSourceHash, sourceHash, withSourceHash } from '../scripts/png-source.js';

describe('the PR comment picture', () => {
  it('fixes only what changes per run: the emulator address and the update time', () => {
    const comment = '<!-- datamodel-ci:ledger x -->\n### ✅ ready\n[p](https://127.0.0.1:4321/d/1) · **Updated:** 2026-01-02 03:04 UTC';
    expect(normalise({ title: 't', comment, platformUrl: 'https://127.0.0.1:4321', githubUrl: 'https://127.0.0.1:9' })).toBe(
      '### ✅ ready\n[p](https://acme.cubecloud.dev/d/1) · **Updated:** 2026-11-23 09:41 UTC',
    );
  });

  it('is a page with the sanitised HTML inside (no raw tags from outside text) and the script that measures it', () => {
    const html = commentHtml('### a\n\n| x | y |\n|---|---|\n| <img src=x onerror=alert(1)> | `b` |\n\nline<br>two');
    expect(html).toMatch(/^<!doctype html>\n<html lang="en">/);
    expect(html).not.toContain('onerror');
    expect(html).toContain('<code>b</code>');
    expect(html).toContain("dataset.height = String(Math.ceil(document.getElementById('frame').getBoundingClientRect().height))");
  });

  it("keeps the page's hash in a PNG chunk, replacing an older one, the image untouched", () => {
    const png = readFileSync(PICTURES[0]!.file);
    const again = withSourceHash(withSourceHash(png, sourceHash('a')), sourceHash('b'));
    expect(pngSourceHash(again)).toBe(sourceHash('b'));
    expect(again.length).toBe(png.length);
    expect(pngSize(again)).toEqual(pngSize(png));
    expect(() => pngSourceHash(Buffer.from('<svg/>'))).toThrow('not a PNG file');
  });

  it('is what the demo renders today (docs/images/pr-comment-*.png), photographed at two device pixels per CSS pixel', async () => {
    const fresh = await renderPictures();
    expect([...fresh.keys()]).toEqual(PICTURES.map((p) => p.file));
    for (const [file, html] of fresh) {
      const png = readFileSync(file);
      expect(isPictureOf(png, html), `run \`npm run comment-picture\` (it needs Chromium) and commit ${file}`).toBe(true);
      const { width, height } = pngSize(png);
      expect(width, file).toBe(1640);
      // The height is the browser's measure of the comment: at least its header and a few lines.
      expect(height, file).toBeGreaterThan(200);
    }
    // The impact picture shows the semantic-layer section with the report the push breaks.
    expect(fresh.get(PICTURES[0]!.file)).toContain('Revenue by country');
    // The access picture shows who can see what, with a probe's counts.
    expect(fresh.get(PICTURES[4]!.file)).toContain('<td>rows 5,000 → 4,483, counted with orders.count</td>');
    // The cost picture: the distinct count's reports leave production's rollup.
    expect(fresh.get(PICTURES[5]!.file)).toContain('8 changed (8 lost)');
    expect(fresh.get(PICTURES[5]!.file)).toContain('<td>⚠️ lost: reaches the warehouse</td>');
  }, 120_000);
});
