/**
 * The README's pictures of the PR comment are drawn from the real demo and must stay fresh: a change to the
 * comment's rendering shows up here until `npm run comment-picture` is run and the file committed.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { PICTURES, commentSvg, normalise, renderPictures } from '../scripts/comment-picture.js';
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

  it('is well-formed XML with the sanitised HTML inside (no raw tags from outside text)', () => {
    const svg = commentSvg('### a\n\n| x | y |\n|---|---|\n| <img src=x onerror=alert(1)> | `b` |\n\nline<br>two');
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" width="820" height="\d+"/);
    expect(svg).not.toContain('onerror');
    expect(svg).toContain('<br />');
    expect(svg).toContain('<code>b</code>');
    // No bare boolean attribute (XML has none): a collapsible section keeps `open="open"`.
    expect(commentSvg('<details open><summary>s</summary>\n\nx\n\n</details>')).toContain('<details open="open">');
  });

  it('is what the demo renders today (docs/images/pr-comment-*.svg)', () => {
    expect([...fresh.keys()]).toEqual(PICTURES.map((p) => p.file));
    for (const [file, svg] of fresh) expect(svg, `run \`npm run comment-picture\` and commit ${file}`).toBe(readFileSync(file, 'utf8'));
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
