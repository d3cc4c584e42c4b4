/**
 * The demo's last act (issue 37): the drift watch (examples/workflows/drift.yml) on a schedule finds
 * production equal to the model in git, then someone deploys a hotfix cube from a laptop (an upload to the
 * deploy branch outside the repository's flow) and the next run fails and opens the deployment's one issue,
 * naming the file and the member.
 */
import { join } from 'node:path';
import type { Emulator, GitHubStandin } from '../packages/emulator/src/index.js';
import { PlatformClient } from '../src/client/index.js';
import { parseDriftMarker } from '../src/pr/drift-issue.js';
import { runJob } from '../test/harness/runner.js';
import { uploadTree } from '../test/support/emulator.js';

/** The cube the out-of-band deploy adds. */
const HOTFIX = 'cubes:\n  - name: hotfix\n    sql_table: public.orders\n    measures:\n      - name: count\n        type: count\n';

export interface DriftAct {
  em: Emulator;
  gh: GitHubStandin;
  /** The repository the team's checkout comes from (analytics/ holds the model). */
  userRepo: string;
  /** This repository (the workflows and the committed dist/). */
  repo: string;
  caFile: string;
  say: (line?: string) => void;
  bold: (s: string) => string;
  dim: (s: string) => string;
  /** Print a body in the demo's box (markers left out). */
  showBody: (body: string) => void;
}

/** Plays the watch twice around an out-of-band upload; true when it is green in sync and red with the issue after. */
export async function playDrift(a: DriftAct): Promise<boolean> {
  const watch = async (title: string, expect: 'success' | 'failure') => {
    a.say();
    a.say(a.bold(`▶ ${title}`) + a.dim('  (schedule, examples/workflows/drift.yml)'));
    const r = await runJob({
      workflowFile: join(a.repo, 'examples', 'workflows', 'drift.yml'),
      jobId: 'drift',
      repoDir: a.repo,
      checkoutFrom: a.userRepo,
      eventName: 'schedule',
      event: { schedule: '23 */6 * * *' },
      github: { api_url: a.gh.url, repository: a.gh.repository, token: 'ghs_demo_token_not_a_real_one', run_id: '4243001', sha: 'f'.repeat(40) },
      secrets: { PLATFORM_API_KEY: a.em.credentials.admin },
      vars: { PLATFORM_API_URL: a.em.baseUrl, PLATFORM_DEPLOYMENT_ID: '1' },
      env: { NODE_EXTRA_CA_CERTS: a.caFile },
    });
    const outputs = Object.entries(r.stepOutputs.drift ?? {}).filter(([, v]) => v !== '');
    a.say(
      `  ${r.conclusion === expect ? '✓' : '✗'} job ${r.conclusion}${expect === 'failure' && r.conclusion === 'failure' ? ' (as it should: production differs from git)' : ''}`,
    );
    a.say(`  outputs: ${outputs.map(([k, v]) => `${k}=${v}`).join(' ') || '(none)'}`);
    if (r.conclusion !== expect)
      a.say(
        r.log
          .slice(-20)
          .map((l) => `    ${l}`)
          .join('\n'),
      );
    return r.conclusion === expect;
  };

  a.say();
  a.say(a.bold('Production watched: the drift watch, then a hotfix deployed from a laptop'));
  const inSync = await watch('13. The scheduled drift watch', 'success');
  const client = new PlatformClient({ baseUrl: a.em.baseUrl, apiKey: a.em.credentials.admin, ca: a.em.ca });
  await uploadTree(client, 1, 'main', { 'model/cubes/hotfix.yml': HOTFIX }, false).finally(() => client.close());
  a.say(a.dim("  someone runs `cube deploy` from a laptop: production's main gains model/cubes/hotfix.yml, git does not"));
  const caught = await watch('14. The next scheduled run', 'failure');
  const issue = a.gh.issues().find((i) => parseDriftMarker(i.body)?.deploymentId === 1 && i.state === 'open');
  if (!issue) {
    a.say('  ✗ no drift issue was opened');
    return false;
  }
  a.say(a.dim(`  The issue it opened (#${issue.number}, updated in place by later runs, closed when production matches git again):`));
  a.showBody(`# ${issue.title}\n\n${issue.body}`);
  return inSync && caught;
}
