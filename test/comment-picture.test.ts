/**
 * The README's pictures of the PR comment are drawn from the real demo and must stay fresh: a change to the
 * comment's rendering shows up here until `npm run comment-picture` is run and the files committed. The
 * pictures are PNGs a browser made; each carries the hash of the page it was made from, checked here.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { PICTURES, commentHtml, isPictureOf, normalise, renderPictures } from '../scripts/comment-picture.js';
import { pngSize, pngSourceHash, sourceHash, withSourceHash } from '../scripts/png-source.js';
import { ACCESS_PUSH, type DemoEvent } from '../scripts/demo.js';
import { ROLLUP_PUSH } from '../scripts/demo-rollup.js';
import { COMMENT_LIMIT } from '../src/pr/comment/ledger.js';

// The demo plays once: the pictures and the comments' checks read the same events.
const events: DemoEvent[] = [];
let fresh: Map<string, string>;
beforeAll(async () => {
  fresh = await renderPictures(events);
}, 120_000);

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

  it('is what the demo renders today (docs/images/pr-comment-*.png), photographed at two device pixels per CSS pixel', () => {
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
  });
});

describe("the demo's comments, read in ten seconds", () => {
  /** The comment a reader sees of an event (hidden comments out). */
  const shown = (title: string) => {
    const e = events.find((x) => x.title === title);
    if (!e) throw new Error(`the demo has no event "${title}"`);
    return normalise(e);
  };

  it('each fits GitHub, with a lean ledger (the facts, not the view)', () => {
    expect(events.length).toBeGreaterThanOrEqual(12);
    for (const e of events) {
      expect(e.comment.length, e.title).toBeLessThanOrEqual(COMMENT_LIMIT);
      const ledger = e.comment.match(/<!-- datamodel-ci:ledger (\S+) -->/)?.[1] ?? '';
      expect(ledger.length, e.title).toBeGreaterThan(0);
      expect(ledger.length, e.title).toBeLessThan(1_500);
    }
    // The longest was 20,719 characters, two thirds of them the ledger.
    expect(Math.max(...events.map((e) => e.comment.length))).toBeLessThan(12_000);
  });

  it('a ready preview says what it does in one line under the heading', () => {
    const lines = (title: string) => shown(title).split('\n');
    expect(lines('5. A push removes a member a report uses').slice(0, 3)).toEqual([
      '### ✅ Data-model preview · ready',
      '',
      '**2 breaking · 1 report, 1 dashboard and 1 notification hit**',
    ]);
    expect(lines('4. A push changes how a measure is computed')[2]).toBe('**numbers move on 2 reports, 1 dashboard and 1 notification**');
    expect(lines(ACCESS_PUSH)[2]).toContain('`analyst` sees 517 fewer rows of `orders`');
    expect(lines(ROLLUP_PUSH)[2]).toContain('8 key queries leave their rollup');
    expect(lines('1. The pull request is opened')[2]).toBe('✅ valid · nothing breaks · 2 added');
  });

  it('a broken push leads with its errors; nothing above them says staging runs', () => {
    const md = shown('2. A push breaks the model');
    const lines = md.split('\n');
    expect(lines[0]).toBe('### ❌ Data-model preview · 1 error in 1 file');
    expect(lines[2]).toBe('**Errors**');
    expect(md.indexOf('Did you mean `sum`?')).toBeLessThan(md.indexOf('| Step | Result |'));
    expect(md).not.toContain('✅ running');
  });

  it('the cost table has one row per rollup, not one per key query; the numbers say whose they are; moving content is named', () => {
    const cost = shown(ROLLUP_PUSH);
    const rows = cost.split('\n').filter((l) => l.startsWith('| `orders.orders_by_status` →'));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toContain('| ⚠️ lost: reaches the warehouse | 8 key queries: ');
    expect(cost).toContain('as a user with no groups (empty security context)');
    const moved = shown('4. A push changes how a measure is computed');
    expect(moved).toContain('<details open><summary>Content whose numbers move (4)</summary>');
    expect(moved).not.toContain('no content affected');
    expect(shown(ACCESS_PUSH)).toMatch(/Moving with them: measures `orders\.count`/);
  });
});
