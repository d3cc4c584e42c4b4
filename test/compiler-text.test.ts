/**
 * The one rewriter of the compiler's text (src/model/compiler-text.ts) and its three consumers: the
 * annotation's and the terminal's line (`annotationText`), and the comment's error list. The messages are
 * Cube's own, as its compiler wrote them for the broken-model corpus (test/fixtures/broken-models/).
 */
import { describe, expect, it } from 'vitest';
import { compilerLine, compilerMarkdown, rewriteCompilerText } from '../src/model/compiler-text.js';
import { annotationText } from '../src/pr/check-run.js';
import { renderPreview } from '../src/pr/comment/render-preview.js';
import type { PreviewView } from '../src/pr/comment/view.js';
import { renderGfm } from './support/gfm.js';

/** 01-yml-measure-bad-type: `type: summ` makes Joi try another kind of measure, which says `sql` "is not allowed". */
const SUMM =
  'orders cube: "measures.total.type" must be one of [count, number, string, boolean, time, sum, avg, min, max, countDistinct, countDistinctApprox]. "measures.total.sql" is not allowed\n' +
  'Possible reasons (one of):\n\t* (measures.total.type = summ) must be one of [count, number, string, boolean, time, sum, avg, min, max, countDistinct, countDistinctApprox]\n\t* (measures.total.sql = () => `amount`) is not allowed';
/** 108-vendor-member-key-misspelled: the misspelled key is the mistake, whichever kind of dimension was meant. */
const PRIMERY =
  'users cube: "dimensions.id" does not match any of the allowed types\nPossible reasons (one of):\n\t* (dimensions.id.case) is required\n\t* (dimensions.id.sql = () => `id`) is not allowed\n' +
  '\t* (dimensions.id.primeryKey = true) is not allowed\n\t* (dimensions.id.latitude) is required\n\t* (dimensions.id.longitude) is required\n\t* (dimensions.id.type = number) must be [time]';
/** 05-yml-dimension-missing-sql: which key is missing depends on the kind of dimension meant: every reason stays. */
const AMBIGUOUS =
  'orders cube: "dimensions.note" does not match any of the allowed types\nPossible reasons (one of):\n\t* (dimensions.note.case) is required\n\t* (dimensions.note.latitude) is required\n' +
  '\t* (dimensions.note.longitude) is required\n\t* (dimensions.note.sql) is required\n\t* (dimensions.note.type = string) must be [time]';

describe('the rewriter', () => {
  it('type: summ: the mistake with a near miss, no false second cause, no reasons', () => {
    expect(rewriteCompilerText(SUMM)).toEqual({
      message: 'orders cube: "measures.total.type" must be one of 11 allowed values',
      given: 'summ',
      suggestion: 'sum',
    });
    expect(compilerLine(SUMM)).toBe('orders cube: "measures.total.type" must be one of 11 allowed values, not `summ`. Did you mean `sum`?');
  });

  it('a misspelled key stands alone; a reason that depends on the kind meant leaves the message whole', () => {
    expect(compilerLine(PRIMERY)).toBe('users cube: (dimensions.id.primeryKey = true) is not allowed');
    expect(compilerLine(AMBIGUOUS)).toBe(AMBIGUOUS);
  });

  it('a first line of several claims and no reasons: each is an error of its own, all kept', () => {
    const two = 'orders cube: "measures.a.sql" is required. "measures.b.type" is required';
    expect(compilerLine(two)).toBe(two);
  });

  it('a value with its path: the list shortened, the near miss suggested, the value not said twice', () => {
    expect(
      compilerLine(
        'orders cube: (joins[0].relationship = manyToFew) must be one of [belongsTo, belongs_to, many_to_one, manyToOne, hasMany, has_many, one_to_many, oneToMany, hasOne, has_one, one_to_one, oneToOne]',
      ),
    ).toBe('orders cube: (joins[0].relationship = manyToFew) must be one of 12 allowed values. Did you mean `manyToOne`?');
    expect(compilerLine('x: (joins[0].relationship = manyToFew) must be one of [belongsTo, hasMany, hasOne]')).toBe(
      'x: (joins[0].relationship = manyToFew) must be one of [belongsTo, hasMany, hasOne]',
    );
  });

  it('strips the terminal colours the compiler may send and keeps other messages as they are', () => {
    expect(compilerLine("\u001b[31morders cube: Cube users doesn't exist\u001b[39m")).toBe("orders cube: Cube users doesn't exist");
  });
});

describe('its consumers say the same', () => {
  it('the annotation and the terminal line: the rewritten message, then the notes', () => {
    expect(annotationText({ message: SUMM, file: 'model/orders.yml', line: 13, precision: 'exact' })).toBe(compilerLine(SUMM));
    const withEcho = annotationText({
      message: SUMM,
      file: 'model/orders.yml',
      line: 13,
      precision: 'exact',
      echoes: [{ message: 'line_items cube: orders cube not found', file: 'model/line_items.yml', line: 4 }],
    });
    expect(withEcho.split('\n')[0]).toBe(compilerLine(SUMM));
    expect(withEcho).not.toMatch(/is not allowed|Possible reasons/);
  });

  it('the comment: the same words, the given value and the suggestion as code', () => {
    const view: PreviewView = {
      state: 'invalid',
      headSha: 'a'.repeat(40),
      runId: 1,
      repoUrl: 'https://github.com/o/r',
      updatedAt: '2026-12-06T12:00:00.000Z',
      branch: 'preview-pr-12',
      validation: { valid: false, errorCount: 1, errors: [{ file: 'model/orders.yml', line: 13, message: SUMM }] },
    };
    const md = renderPreview(view, { target: 'comment' });
    const html = renderGfm(md);
    expect(html.text).toContain('orders cube: "measures.total.type" must be one of 11 allowed values, not summ. Did you mean sum?');
    expect(html.codes).toEqual(expect.arrayContaining(['summ', 'sum']));
    expect(html.text).not.toMatch(/is not allowed|Possible reasons/);
    expect(
      compilerMarkdown(
        SUMM,
        (m) => m,
        (s) => `<${s}>`,
      ),
    ).toBe('orders cube: "measures.total.type" must be one of 11 allowed values, not <summ>. Did you mean <sum>?');
  });
});
