/**
 * The evals' check, `datamodel-ci / evals` (src/pr/facet-checks.ts): written only with `evals: on` and a
 * tenant that has evaluations; `failure` with `fail-on-eval-regression` on a newly failing question or runs
 * not compared; `neutral` for the same without the gate and for flaky questions; `success` only when both
 * sides were compared and nothing newly fails. Independent of the `impact` input.
 */
import { describe, expect, it } from 'vitest';
import type { EvalDelta, EvalSide } from '../src/operations/evals/delta.js';
import { configuredFacets, facetChecks, type FacetOutcome, type FacetSettings } from '../src/pr/facet-checks.js';

const settings = (evalRegression: boolean, more: Partial<FacetSettings> = {}): FacetSettings => ({
  impact: false,
  dataDiff: false,
  personas: false,
  evals: true,
  gates: { breaking: false, dataChange: false, exposure: false, rollupLoss: false, versionSkew: false, evalRegression },
  modelDir: '.',
  ...more,
});
const q = (label: string, passed: boolean) => ({ key: `name:${label}`, label, verdict: passed ? 'pass' : 'fail', passed });
const side = (branch: string, ...qs: ReturnType<typeof q>[]): EvalSide => ({
  compared: true,
  branch,
  runId: '1',
  passed: qs.filter((x) => x.passed).length,
  total: qs.length,
  questions: qs,
});
const ran = (over: Partial<Extract<EvalDelta, { state: 'ran' }>> = {}): EvalDelta => ({
  state: 'ran',
  production: side('main', q('a', true), q('b', true)),
  preview: side('preview-pr-1', q('a', true), q('b', true)),
  compared: true,
  newlyFailing: [],
  newlyPassing: [],
  failOnRegression: false,
  ...over,
});
const evalsOf = (o: FacetOutcome, s: FacetSettings) => {
  const c = facetChecks(o, s).find((x) => x.facet === 'evals');
  return c && `${c.conclusion}: ${c.title}`;
};

describe('the evals check', () => {
  it('nothing newly failing: success, naming both sides', () => {
    expect(evalsOf({ evals: ran() }, settings(false))).toBe('success: No eval question newly failing (production 2/2, this pull request 2/2)');
  });

  it('a newly failing question: neutral, failure with fail-on-eval-regression', () => {
    const failing = ran({
      preview: side('preview-pr-1', q('a', true), q('b', false)),
      newlyFailing: [{ label: 'b', production: 'pass', preview: 'fail', reason: 'Value mismatch' }],
    });
    expect(evalsOf({ evals: failing }, settings(false))).toBe('neutral: 1 eval question newly failing (production 2/2, this pull request 1/2): b');
    expect(evalsOf({ evals: failing }, settings(true))).toBe(
      'failure: 1 eval question newly failing (production 2/2, this pull request 1/2): b (fail-on-eval-regression is true)',
    );
  });

  it('runs not compared: never success; no check without the gate, a failure with it', () => {
    const notCompared = ran({ compared: false, production: { compared: false, branch: 'main', reason: 'run 7 failed' } });
    // Nothing established and nothing gated: no check at all (never a grey one for work not done).
    expect(evalsOf({ evals: notCompared }, settings(false))).toBeUndefined();
    expect(evalsOf({ evals: notCompared }, settings(true))).toBe(
      "failure: The agents' evals were not compared (production not compared, this pull request 2/2): never a pass",
    );
  });

  it('a flaky question is a concern, never a failure', () => {
    const flaky = ran({ flaky: [{ label: 'a', production: ['pass'], preview: ['pass', 'fail'] }] });
    expect(evalsOf({ evals: flaky }, settings(true))).toBe('neutral: 1 flaky question: a');
  });

  it('no check for a tenant without evaluations, nor with evals off; a run that stopped before them fails only when gated', () => {
    expect(evalsOf({ evals: { state: 'absent', line: 'this tenant has no evaluations' } }, settings(true))).toBeUndefined();
    expect(evalsOf({ evals: ran() }, settings(true, { evals: false }))).toBeUndefined();
    expect(evalsOf({ notRun: 'the model is invalid' }, settings(false))).toBeUndefined();
    expect(evalsOf({ notRun: 'the model is invalid' }, settings(true))).toBe("failure: The agents' evals did not run: the model is invalid");
  });

  it('written without the impact input, and listed among the configured facets', () => {
    expect(configuredFacets(settings(false))).toEqual(['evals']);
    expect(configuredFacets(settings(false, { impact: true }))).toEqual(['impact', 'cost', 'evals']);
    expect(facetChecks({ evals: ran() }, settings(false, { evals: false }))).toEqual([]);
  });
});
