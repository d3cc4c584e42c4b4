/** `enable-staging`: turn on the shared branch's staging environment; optionally query it once. */
import { enableStaging } from '../operations/enable-staging.js';
import { resolveBranch, type ActionRun } from './action-run.js';
import { publish } from './publish.js';

export async function enableStagingCommand(x: ActionRun<'enable-staging'>): Promise<number> {
  const branch = await resolveBranch(x);
  const { inputs, connection } = x.settings;
  const r = await enableStaging(x.op, {
    branch,
    smokeTest: inputs.smokeTest,
    smoke: { timeoutMs: inputs.smokeTimeoutMs, ...(connection.caCert ? { ca: connection.caCert } : {}) },
  });
  x.out.branch = branch;
  x.out['staging-url'] = r.stagingUrl ?? '';
  x.out['environment-id'] = r.environmentId ?? '';
  x.out.status = r.stagingUrl ? 'enabled' : 'dry-run';
  await publish(
    x,
    { branch, staging: { enabled: !!r.stagingUrl, ...(r.smoke ? { smoke: r.smoke } : {}) }, ...(r.stagingUrl ? { restUrl: r.stagingUrl } : {}) },
    { branch, ...(r.stagingUrl ? { stagingUrl: r.stagingUrl } : {}) },
  );
  return 0;
}
