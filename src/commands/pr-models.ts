/**
 * Several models of one repository (`deployments`), each its own deployment: each model the pull request
 * touches is previewed as one model would be, within a cap, into ONE comment with a section per model; a
 * model it does not touch gets a line saying so (and a neutral check); the close merges or cleans each.
 */
import { InputError, messageOf } from '../client/errors.js';
import { mapLimit, readLocalModel, type LocalFile } from '../model/local-model.js';
import { changesUnlessAll } from '../pr/changed-files.js';
import { SectionedComment } from '../pr/comment/sections.js';
import type { Outputs } from '../pr/presenters.js';
import { markUntouched } from '../pr/preview.js';
import { plural } from '../report/plural.js';
import type { ActionRun } from './action-run.js';
import { StepFailed } from './exit-codes.js';
import { modelRuns, type ModelRun } from './models.js';
import { closeModel } from './pr-close.js';
import { planNumbers, planPersonas, previewModel, readyModel, untouched, type ModelFailure, type ReadyModel } from './pr-preview.js';

interface ModelResult {
  m: ModelRun;
  out: Outputs;
  failed?: ModelFailure;
}

/** The models' runs, each side writing its section of the one comment. */
function sectioned(run: ActionRun<'pr'>) {
  const targets = run.settings.targets!;
  const comment = new SectionedComment(
    (key) => run.pr.openThread(key),
    targets.map((t) => ({ key: t.key, deploymentId: t.deploymentId })),
  );
  return { comment, ...modelRuns(run, (key) => () => comment.section(key)) };
}

export async function previewModels(run: ActionRun<'pr'>): Promise<number> {
  const { inputs } = run.settings;
  const models = sectioned(run);
  try {
    // Every model is read and checked before the first platform call.
    const locals = new Map<ModelRun, LocalFile[]>();
    for (const m of models.runs) locals.set(m, await readLocalModel(run.reporter, m.target.modelDir, inputs.exclude));
    const personas = await planPersonas(run);
    const changes = await changesUnlessAll(run.pr, inputs.previewUntouched, 'previewed');
    const skipped = new Map<ModelRun, string>();
    for (const m of models.runs) {
      const why = await untouched(run, m.side, m.target.modelDir, changes);
      if (why) skipped.set(m, why);
    }
    // Before the previews: the data diff's plan, once, and the preflight of each model to preview.
    const previewed = models.runs.filter((m) => !skipped.has(m));
    const numbers = previewed.length ? await planNumbers(run) : undefined;
    const ready = new Map<ModelRun, ReadyModel>();
    for (const m of previewed) ready.set(m, await readyModel(run, m.target, locals.get(m)!, numbers, undefined, personas));
    // Nothing to preview and no comment yet: no comment either (the checks say why).
    const quiet = skipped.size === models.runs.length && !(await models.comment.exists());
    const results = await mapLimit(models.runs, inputs.deploymentsConcurrency, async (m): Promise<ModelResult> => {
      const why = skipped.get(m);
      if (why) {
        run.reporter.notice(why);
        if (!quiet) await markUntouched(m.side, why);
        return { m, out: { skipped: 'true', status: 'untouched' } };
      }
      const out: Outputs = { skipped: 'false' };
      const failed = await run.reporter.group(`Model ${m.target.key} (deployment ${m.target.deploymentId})`, () => previewModel(run, m, ready.get(m)!, out));
      return { m, out, ...(failed ? { failed } : {}) };
    });
    return report(run, results);
  } finally {
    await models.close();
  }
}

export async function closeModels(run: ActionRun<'pr'>): Promise<number> {
  const models = sectioned(run);
  try {
    const results = await mapLimit(models.runs, run.settings.inputs.deploymentsConcurrency, async (m): Promise<ModelResult> => {
      // A model never previewed has nothing on the platform: its section keeps its line.
      const ledger = (await m.side.thread())?.ledger;
      if (!run.settings.inputs.branch && (!ledger || (ledger.untouched && !ledger.branch))) return { m, out: { status: 'untouched' } };
      const out: Outputs = {};
      try {
        const failed = await run.reporter.group(`Model ${m.target.key} (deployment ${m.target.deploymentId})`, () => closeModel(run, m, out));
        return { m, out, ...(failed ? { failed } : {}) };
      } catch (e) {
        if (e instanceof InputError) throw e;
        return { m, out: { ...out, status: 'failed' }, failed: { failure: messageOf(e), cause: e } };
      }
    });
    return report(run, results);
  } finally {
    await models.close();
  }
}

/** The outputs add the models up (`previews` has each); any model's failure fails the step, naming it. */
function report(run: ActionRun<'pr'>, results: ModelResult[]): number {
  const previewed = results.filter((r) => r.out.status !== 'untouched');
  const sum = (name: string) => String(previewed.reduce((n, r) => n + (Number(r.out[name]) || 0), 0));
  const statuses = previewed.map((r) => r.out.status ?? '');
  const status = ['failed', 'invalid', 'cleaned', 'dry-run', 'stale', 'valid'].find((s) => statuses.includes(s)) ?? 'untouched';
  const proofs = previewed.flatMap((r) => (r.out['production-proof'] ? [r.out['production-proof']] : []));
  Object.assign(run.out, {
    branch: previewed.find((r) => r.out.branch)?.out.branch ?? '',
    status,
    skipped: String(previewed.length === 0),
    ...(previewed.some((r) => r.out.valid !== undefined)
      ? { valid: String(previewed.every((r) => r.out.valid === 'true')), 'error-count': sum('error-count') }
      : {}),
    ...(previewed.some((r) => r.out.deleted !== undefined) ? { deleted: sum('deleted') } : {}),
    ...(previewed.some((r) => r.out['agents-errors'] !== undefined) ? { 'agents-errors': sum('agents-errors') } : {}),
    ...(previewed.some((r) => r.out.merged !== undefined) ? { merged: String(previewed.some((r) => r.out.merged === 'true')) } : {}),
    // The proofs after the merge: the worst of them (one model differing is production differing).
    ...(proofs.length ? { 'production-proof': ['differs', 'not-proven', 'proven'].find((p) => proofs.includes(p)) ?? '' } : {}),
    previews: JSON.stringify(
      Object.fromEntries(
        results.map((r) => [
          r.m.target.key,
          {
            deploymentId: r.m.target.deploymentId,
            status: r.out.status ?? '',
            branch: r.out.branch ?? '',
            ...(r.out.valid !== undefined ? { valid: r.out.valid === 'true', 'error-count': Number(r.out['error-count'] ?? 0) } : {}),
            ...(r.out['staging-url'] ? { 'staging-url': r.out['staging-url'] } : {}),
            ...(r.out['production-proof'] ? { 'production-proof': r.out['production-proof'] } : {}),
          },
        ]),
      ),
    ),
  });
  const failed = results.filter((r) => r.failed);
  if (failed.length) {
    const what = failed.map((r) => `${r.m.target.key}: ${r.failed!.failure}`).join('; ');
    throw new StepFailed(
      `${plural(failed.length, 'model')} of ${results.length} failed: ${what}`,
      failed[0]!.failed!.cause !== undefined ? { cause: failed[0]!.failed!.cause } : undefined,
    );
  }
  return 0;
}
