/**
 * The drift watch's words, pure logic: the hidden marker read back (and nothing else taken for
 * it), outside text inert in the issue and the job summary (file names, members, platform messages), long
 * lists cut with a count, and the `--json` result with the contract's fields.
 */
import { describe, expect, it } from 'vitest';
import type { DriftReport } from '../src/operations/drift.js';
import { driftMarker, parseDriftMarker } from '../src/pr/drift-issue.js';
import { driftJson, MAX_ROWS, renderDrift } from '../src/pr/drift-render.js';

const ctx = { deploymentId: 7, modelDir: 'analytics', checkedAt: '2026-01-02T00:00:00.000Z' };
const report = (extra: Partial<DriftReport> = {}): DriftReport => ({
  status: 'drift',
  files: [],
  members: [],
  deployBranch: { name: 'main', deployMode: 'git' },
  notes: [],
  ...extra,
});

describe('the marker', () => {
  it('reads back the deployment and since when, from the first line only', () => {
    const body = `${driftMarker(7, { since: '2026-01-01T00:00:00.000Z' })}\n### text`;
    expect(parseDriftMarker(body)).toEqual({ deploymentId: 7, state: { since: '2026-01-01T00:00:00.000Z' } });
    expect(parseDriftMarker(body.replace(/\n/, '\r\n'))).toEqual({ deploymentId: 7, state: { since: '2026-01-01T00:00:00.000Z' } });
    expect(parseDriftMarker(`quoted:\n${body}`)).toBeUndefined();
    expect(parseDriftMarker('<!-- datamodel-ci:drift deployment=7 state=!!! -->')).toBeUndefined();
    // A state that is not what the watch writes is forgotten, the deployment still named.
    const odd = `<!-- datamodel-ci:drift deployment=7 state=${Buffer.from('{"since":"yesterday"}').toString('base64')} -->`;
    expect(parseDriftMarker(odd)).toEqual({ deploymentId: 7, state: {} });
  });
});

describe('the issue and the summary', () => {
  it('shows outside text inert: names in code spans (a pipe escaped in a table), platform messages escaped', () => {
    const md = renderDrift(
      report({
        files: [{ path: 'model/cubes/a|`b`.yml', change: 'added' }],
        members: [{ member: 'x.y', change: 'changed', detail: 'measure sum → measure avg' }],
        build: { status: 'failed', errorText: 'boom @here <img src=x> [link](https://evil.example)' },
        cause: { kind: 'failed-build', text: 'Likely a build that failed (@here).', evidence: 'build status of main' },
      }),
      ctx,
      'issue',
    );
    expect(md).toContain('| ``model/cubes/a\\|`b`.yml`` | added |');
    expect(md).not.toMatch(/@here/);
    expect(md).not.toMatch(/(^|[^\\])<img/);
    expect(md).not.toContain('](https://evil.example)');
    expect(md).toContain('_Kept by datamodel-ci');
    expect(renderDrift(report({ status: 'in-sync' }), ctx, 'summary')).not.toContain('Kept by');
  });

  it(`lists ${MAX_ROWS} rows of a table at most, and says how many more`, () => {
    const files = Array.from({ length: MAX_ROWS + 10 }, (_, i) => ({ path: `model/cubes/c${i}.yml`, change: 'added' as const }));
    const md = renderDrift(report({ files }), ctx, 'issue');
    expect(md.match(/\| `model\/cubes\/c\d+\.yml` \| added \|/g)).toHaveLength(MAX_ROWS);
    expect(md).toContain('…and 10 more');
  });

  it('says not proven with its reason, and the record compared or why none was', () => {
    const md = renderDrift(
      report({ status: 'not-proven', reason: 'the build is still running' }),
      { ...ctx, recordNote: 'no validation record compared: none yet' },
      'summary',
    );
    expect(md).toContain('❔ Production not proven equal');
    expect(md).toContain('**Not proven:** the build is still running');
    expect(md).toContain('no validation record compared\\: none yet');
  });
});

describe('the --json result', () => {
  it('starts with the contract: status, files, members, reason; then the evidence', () => {
    const r = report({ status: 'not-proven', reason: 'why', files: [{ path: 'a.yml', change: 'removed' }], members: [{ member: 'a.b', change: 'added' }] });
    const json = driftJson(r, ctx);
    expect(Object.keys(json).slice(0, 4)).toEqual(['status', 'files', 'members', 'reason']);
    expect(json).toMatchObject({
      status: 'not-proven',
      files: [{ path: 'a.yml', change: 'removed' }],
      members: [{ member: 'a.b', change: 'added' }],
      reason: 'why',
      deploymentId: 7,
    });
  });
});
