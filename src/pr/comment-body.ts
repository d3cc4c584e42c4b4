/**
 * The PR comment's body for a preview shown (preview.ts), without a pull request: the view `publish` would
 * write (publish.ts `viewAfter`), composed by the comment's own composer (comment/ledger.ts `composeComment`)
 * as the comment thread composes it, then without its hidden marker and ledger. `datamodel-ci plan
 * --format markdown` prints it: exactly what the `pr` action's comment says of the same change.
 */
import type { LedgerFacts } from '../operations/ledger.js';
import { composeComment, factsPatch, type Ledger } from './comment/ledger.js';
import type { PreviewShown } from './preview.js';
import { viewAfter } from './publish.js';
import type { PullRequestSide } from './pull-request.js';

/** The comment's hidden lines (`<!-- datamodel-ci:comment … -->`, `<!-- datamodel-ci:ledger … -->`) and the blank line after them, gone. */
export function withoutHiddenHeader(body: string): string {
  const lines = body.split('\n');
  let i = 0;
  while (i < lines.length && lines[i]!.startsWith('<!-- datamodel-ci:')) i += 1;
  if (i > 0 && lines[i] === '') i += 1;
  return lines.slice(i).join('\n');
}

/** The body the comment would hold after this run's write (as CommentThread.write composes it), its hidden header removed. */
export function commentBody(
  side: Pick<PullRequestSide, 'event' | 'settings'>,
  shown: Pick<PreviewShown, 'view' | 'ledger' | 'errors'>,
  input: { headSha: string; facts?: LedgerFacts; now?: Date },
): string {
  const view = viewAfter(side, undefined, shown.view, shown.ledger.branch, input.headSha);
  const updatedAt = (input.now ?? new Date()).toISOString();
  const deploymentId = String(side.settings.deploymentId);
  const ledger: Ledger = {
    ...shown.ledger,
    ...(input.facts ? factsPatch(input.facts) : {}),
    view: { ...view, updatedAt },
    deploymentId,
    headSha: input.headSha,
    runId: Number(side.event.runId ?? 0),
    updatedAt,
  };
  return withoutHiddenHeader(composeComment({ deploymentId, ledger, render: { errors: shown.errors } }));
}
