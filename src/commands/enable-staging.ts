/** `enable-staging`: turn on the shared branch's staging environment; optionally query it once. */
import { stagingSection } from '../github/sections.js';
import { enableStaging } from '../workflows/enable-staging.js';
import { publish, resolveBranch, type ActionRun } from './action-run.js';

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
  await publish(x, { staging: stagingSection(r) }, { branch, ...(r.stagingUrl ? { stagingUrl: r.stagingUrl } : {}) });
  return 0;
}
