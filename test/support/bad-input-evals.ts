import type { Case } from './bad-input-cases.js';

/** The eval inputs of the `impact` action (and `diff`), refused before the first call as the `pr` action refuses them. */
export const IMPACT_EVALS_CASES: Case[] = [
  { name: 'impact: evals yes', command: 'impact', env: { DATAMODEL_CI_EVALS: 'yes' }, code: 2, says: ['evals: got "yes", expected "off" or "on"'] },
  {
    name: 'impact: evals-timeout without a unit',
    command: 'impact',
    env: { DATAMODEL_CI_EVALS: 'on', DATAMODEL_CI_EVALS_TIMEOUT: '30' },
    code: 2,
    says: ['evals-timeout: got "30", expected a duration such as 90s, 30m, 12h or 7d'],
  },
  {
    name: 'impact: evals-agent with a space',
    command: 'impact',
    env: { DATAMODEL_CI_EVALS_AGENT: 'sales desk' },
    code: 2,
    says: ['evals-agent: got "sales desk", expected an agent name'],
  },
  {
    name: 'impact: fail-on-eval-regression maybe',
    command: 'impact',
    env: { DATAMODEL_CI_FAIL_ON_EVAL_REGRESSION: 'maybe' },
    code: 2,
    says: ['fail-on-eval-regression: got "maybe", expected true or false'],
  },
];
