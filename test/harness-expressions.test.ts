/** The runner harness's `${{ }}` evaluation (test/harness/expressions.ts): contexts, functions, errors, `if:`. */
import { describe, expect, it } from 'vitest';
import { evaluateCondition, evaluateTemplate, evaluateTemplateValue, parseTemplate } from './harness/expressions.js';

describe('expressions', () => {
  const contexts = {
    github: { event_name: 'pull_request', event: { pull_request: { number: 7, draft: false, labels: [{ name: 'a' }, { name: 'b' }] } } },
    env: { NAME: 'x' },
    inputs: { 'dry-run': 'true', count: '3' },
    steps: { s1: { outputs: { branch: 'preview-pr-7' }, outcome: 'success', conclusion: 'success' } },
  };

  it('reads contexts (case-insensitively, dashes in names) and mixes literal text', () => {
    expect(evaluateTemplate('pr ${{ github.event.pull_request.number }} on ${{ steps.s1.outputs.branch }}', contexts)).toBe('pr 7 on preview-pr-7');
    expect(evaluateTemplate('${{ INPUTS.dry-run }}', contexts)).toBe('true');
    expect(evaluateTemplate('${{ inputs.missing }}', contexts)).toBe('');
    expect(evaluateTemplate('no expression', contexts)).toBe('no expression');
    // `}}` inside a string literal does not close the expression.
    expect(evaluateTemplate("${{ format('{0}}}', 'a') }}", contexts)).toBe('a}');
  });

  it('reads only the contexts an expression names: one JSON cannot copy (a cycle) breaks only those naming it', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic['self'] = cyclic;
    const withCycle = { ...contexts, job: cyclic };
    expect(evaluateTemplate('pr ${{ github.event.pull_request.number }} ${{ toJSON(inputs) != 1 }}', withCycle)).toBe('pr 7 true');
    expect(() => evaluateTemplate('${{ JOB.a }}', withCycle)).toThrow(/circular/i);
  });

  it('calls the built-in functions', () => {
    expect(evaluateTemplate("${{ format('{0}-{1}', env.NAME, inputs.count) }}", contexts)).toBe('x-3');
    expect(evaluateTemplate("${{ contains(github.event.pull_request.labels.*.name, 'b') }}", contexts)).toBe('true');
    expect(evaluateTemplate("${{ startsWith(steps.s1.outputs.branch, 'PREVIEW') }}", contexts)).toBe('true');
    expect(evaluateTemplate("${{ join(github.event.pull_request.labels.*.name, ',') }}", contexts)).toBe('a,b');
    expect(evaluateTemplate('${{ fromJSON(\'{"a":[1,2]}\').a[1] }}', contexts)).toBe('2');
    expect(JSON.parse(evaluateTemplate('${{ toJSON(inputs) }}', contexts))).toEqual(contexts.inputs);
    expect(evaluateTemplateValue('${{ inputs.count == 3 }}', contexts)).toBe(true);
  });

  it('fails clearly: unknown context, unclosed template, object value, hashFiles', () => {
    expect(() => evaluateTemplate('${{ secrets.X }}', contexts)).toThrow(/Unrecognized named-value: 'secrets'/);
    expect(() => evaluateTemplate('${{ github.x', contexts)).toThrow(/not closed/);
    expect(() => evaluateTemplate('${{ github.event }}', contexts)).toThrow(/mapping was not expected/);
    expect(evaluateTemplate('is ${{ github.event }}', contexts)).toBe('is Object');
    expect(() => evaluateTemplate("${{ hashFiles('**/x') }}", contexts)).toThrow(/hashFiles\(\) is not supported/);
    expect(parseTemplate('a${{ b }}c')).toEqual([{ literal: 'a' }, { expression: 'b' }, { literal: 'c' }]);
  });

  it('evaluates if: conditions with an implicit success()', () => {
    expect(evaluateCondition("github.event_name == 'pull_request'", contexts)).toBe(true);
    expect(evaluateCondition("${{ github.event_name == 'push' }}", contexts)).toBe(false);
    expect(evaluateCondition('${{ !github.event.pull_request.draft }}', contexts)).toBe(true);
    expect(evaluateCondition(undefined, contexts)).toBe(true);
    expect(evaluateCondition(undefined, contexts, { status: 'failure' })).toBe(false);
    expect(evaluateCondition('true', contexts, { status: 'failure' })).toBe(false);
    expect(evaluateCondition('always()', contexts, { status: 'failure' })).toBe(true);
    expect(evaluateCondition('failure()', contexts, { status: 'failure' })).toBe(true);
    expect(evaluateCondition('failure()', contexts)).toBe(false);
    expect(evaluateCondition('cancelled()', contexts, { status: 'cancelled' })).toBe(true);
    expect(evaluateCondition(false, contexts)).toBe(false);
    // The runner's trap: literal text around ${{ }} makes a non-empty string, hence true.
    expect(evaluateCondition("${{ github.event_name == 'push' }} && true", contexts)).toBe(true);
  });
});
