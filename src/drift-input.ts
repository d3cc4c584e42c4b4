/**
 * The drift watch's own inputs and outputs (the `drift` command and `actions/drift`), declared here and
 * read before any call: how long a production build in progress is waited for, the GitHub issue it keeps
 * and its label, and whether a difference fails the step.
 */
import type { InputSpec, OutputSpec } from './action-spec.js';
import { InputError } from './client/errors.js';
import { DEFAULTS } from './defaults.js';
import type { InputReader } from './settings.js';

export const DRIFT_INPUTS: InputSpec[] = [
  {
    name: 'issue',
    description:
      'Keep one GitHub issue per deployment (needs `issues: write`): opened when production differs, with the files, the members, since when and the likely cause; updated in place by later runs; closed when production matches again. Without a GitHub token and repository (a terminal), no issue.',
    default: 'true',
  },
  {
    name: 'issue-label',
    description:
      "Label of the watch's issue: its issues are listed by it (then by the token's own login, should GitHub have dropped the label), and only those whose hidden marker names the deployment and whose author is the token's login count.",
    default: DEFAULTS.driftIssueLabel,
  },
  {
    name: 'build-wait-minutes',
    description:
      'How long a production build in progress is waited for before the watch says `not-proven` (what production will serve is not known while it builds); a build that is merely slow ends within it.',
    default: String(DEFAULTS.driftBuildWaitMinutes),
  },
  {
    name: 'fail-on-drift',
    description: 'Fail the step (exit 1) when production differs or cannot be proven equal; `false` leaves that to the issue and the `status` output.',
    default: 'true',
  },
];

export const DRIFT_OUTPUTS: OutputSpec[] = [
  {
    name: 'status',
    description:
      "`in-sync` (production's files and layer are the model's), `drift` (they differ), or `not-proven` (neither could be shown: the reason is logged).",
  },
  { name: 'drift-files', description: 'Number of model files production has added, removed or changed relative to `model-dir`.' },
  { name: 'drift-members', description: "Number of members production's layer has added, removed or changed relative to the model's files." },
  {
    name: 'cause',
    description:
      'The likely cause when production differs and the platform shows it (`failed-build`, `not-redeployed`, `platform-merge`, `dbt-branch`, `out-of-band-upload`, `repository-push`, `unvalidated-change`), else empty.',
  },
  { name: 'issue-number', description: "Number of the deployment's drift issue, when there is one." },
  { name: 'issue-url', description: "Address of the deployment's drift issue, when there is one." },
];

export interface DriftInputs {
  exclude: string[];
  issue: boolean;
  issueLabel: string;
  buildWaitMs: number;
  failOnDrift: boolean;
}

/** A label GitHub takes and its issue filter can name: up to 50 characters, no comma (the filter's separator). */
function issueLabel(r: InputReader): string {
  const v = r.raw('issue-label') ?? DEFAULTS.driftIssueLabel;
  if (v.length > 50 || /[,\n\r\t]/.test(v)) throw new InputError('issue-label', v, 'a GitHub label name of at most 50 characters, on one line, without commas');
  return v;
}

export function readDriftInputs(r: InputReader): DriftInputs {
  return {
    exclude: r.globs('exclude'),
    issue: r.bool('issue'),
    issueLabel: issueLabel(r),
    buildWaitMs: (r.positive('build-wait-minutes') ?? DEFAULTS.driftBuildWaitMinutes) * 60_000,
    failOnDrift: r.bool('fail-on-drift'),
  };
}
