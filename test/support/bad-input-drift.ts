/** The bad-input cases of the drift watch's own inputs (src/drift-input.ts): each refused before any call. */
import type { Case } from './bad-input-cases.js';

export const DRIFT_CASES: Case[] = [
  {
    name: 'drift: build-wait-minutes in words',
    command: 'drift',
    env: { DATAMODEL_CI_BUILD_WAIT_MINUTES: 'a while' },
    code: 2,
    says: ['build-wait-minutes: got "a while", expected a positive number'],
  },
  {
    name: 'drift: issue-label with a comma',
    command: 'drift',
    env: { DATAMODEL_CI_ISSUE_LABEL: 'drift,prod' },
    code: 2,
    says: ['issue-label: got "drift,prod", expected a GitHub label name of at most 50 characters, on one line, without commas'],
  },
  {
    name: 'drift: fail-on-drift maybe',
    command: 'drift',
    env: { DATAMODEL_CI_FAIL_ON_DRIFT: 'maybe' },
    code: 2,
    says: ['fail-on-drift: got "maybe", expected true or false'],
  },
  { name: 'drift: issue yes', command: 'drift', env: { DATAMODEL_CI_ISSUE: 'yes' }, code: 2, says: ['issue: got "yes", expected true or false'] },
];
