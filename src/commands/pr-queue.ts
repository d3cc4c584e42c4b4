/**
 * `pr` in a merge queue (the merge_group event): the merge commit (the pull request on top of the base
 * branch and every entry ahead) validated per model on a short-lived branch of the queue entry's own,
 * removed at the end; the `datamodel-ci / validation` check on the group's commit says valid, invalid,
 * or (no model folder changed) neutral. The `agents/` folder's findings (checked offline against the
 * model files) are annotations on that check, and its errors fail it as the model's do. No comment, no
 * GitHub deployment: the queue writes only checks.
 */
import { branchForQueue } from '../branch-names.js';
import { deployTarget } from '../operations/branch-build.js';
import { agentsCheckOf } from '../operations/agents-check.js';
import { agentsErrors as agentsErrorsOf } from '../model/agents/index.js';
import { validateInQueue, type QueueGateOutcome } from '../operations/queue-gate.js';
import { mapLimit, readLocalModel, type LocalFile } from '../model/local-model.js';
import { annotate, untouchedCheck } from '../pr/check-run.js';
import { changesUnlessAll, touches } from '../pr/changed-files.js';
import { code, text } from '../pr/comment/markdown.js';
import { failureOf } from '../pr/preview.js';
import { plural } from '../report/plural.js';
import type { ActionRun } from './action-run.js';
import { StepFailed } from './exit-codes.js';
import { modelRuns, type ModelRun } from './models.js';
import { projectModel } from './pr-preview.js';

/** What the queue made of one model. */
interface QueueResult {
  run: ModelRun;
  status: 'valid' | 'invalid' | 'failed' | 'untouched' | 'dry-run';
  outcome?: QueueGateOutcome;
  why?: string;
  /** Errors the check of the `agents/` folder found (undefined without the folder). */
  agentsErrors?: number;
}

export async function queueCommand(run: ActionRun<'pr'>): Promise<number> {
  const group = run.event.group!;
  const { inputs, branchPrefix, dryRun } = run.settings;
  const models = modelRuns(run);
  try {
    const branch = branchForQueue(branchPrefix, group.pr, group.headSha);
    run.out.branch = branch;
    const changes = await changesUnlessAll(run.pr, inputs.previewUntouched, 'checked');
    const checked = models.runs.filter((m) => touches(changes, m.target.modelDir));
    // Every model to check is read before the first platform call.
    const locals = new Map<ModelRun, LocalFile[]>();
    for (const m of checked) locals.set(m, await readLocalModel(run.reporter, m.target.modelDir, inputs.exclude));
    const results = await mapLimit(models.runs, inputs.deploymentsConcurrency, async (m): Promise<QueueResult> => {
      const local = locals.get(m);
      const dir = m.target.modelDir === '.' ? 'the repository' : `${m.target.modelDir}/`;
      if (!local) {
        const why = `No file under ${dir} changed in this queue entry: the model the base branch holds was checked before.`;
        await untouchedCheck(m.side, `Not checked: no change under ${dir}`, why);
        return { run: m, status: 'untouched', why };
      }
      const target = await deployTarget(m.op);
      // On a connected deployment, the project root's folder only, as the preview uploads it.
      const project = projectModel(run.reporter, m.op, m.target.modelDir, local, target, inputs.exclude);
      const outcome = await validateInQueue(m.op, {
        branch,
        deployBranch: target.deployBranch,
        local: project.local,
        modelDir: project.dir,
        concurrency: inputs.concurrency,
        via: inputs.via,
        commitMessage: `datamodel-ci: merge queue entry of PR #${group.pr} at ${group.headSha.slice(0, 7)}`,
        allowModelDeletion: inputs.allowModelDeletion,
        excluded: project.excluded,
      });
      // The agents folder against the merge commit's model files (the queue reads no `/meta`): offline.
      const agents = await agentsCheckOf(project.local, project.dir, {}, undefined, inputs.agentsFolder);
      const agentsErrors = agents ? agentsErrorsOf(agents).length : undefined;
      const counted = agentsErrors === undefined ? {} : { agentsErrors };
      if (dryRun) return { run: m, status: 'dry-run', outcome, ...counted };
      if (outcome.validation) await annotate(m.side, outcome.validation.errors, outcome.validation, undefined, agents);
      const status = outcome.failure ? 'failed' : outcome.validation?.valid && !agentsErrors ? 'valid' : 'invalid';
      return { run: m, status, outcome, ...counted };
    });
    return report(run, results, branch);
  } finally {
    await models.close();
  }
}

/** Outputs, the job summary, and the step's failure. */
function report(run: ActionRun<'pr'>, results: QueueResult[], branch: string): number {
  const group = run.event.group!;
  const errors = results.reduce((n, r) => n + (r.outcome?.validation?.errors.length ?? 0), 0);
  const withAgents = results.filter((r) => r.agentsErrors !== undefined);
  const worst = (['failed', 'invalid', 'dry-run', 'valid', 'untouched'] as const).find((s) => results.some((r) => r.status === s)) ?? 'untouched';
  Object.assign(run.out, {
    status: worst,
    valid: String(results.every((r) => r.status === 'valid' || r.status === 'untouched')),
    'error-count': String(errors),
    skipped: String(results.every((r) => r.status === 'untouched')),
    ...(withAgents.length ? { 'agents-errors': String(withAgents.reduce((n, r) => n + (r.agentsErrors ?? 0), 0)) } : {}),
  });
  if (run.settings.targets)
    run.out.previews = JSON.stringify(
      Object.fromEntries(
        results.map((r) => [
          r.run.target.key,
          { status: r.status, branch, valid: r.status === 'valid', 'error-count': r.outcome?.validation?.errors.length ?? 0 },
        ]),
      ),
    );
  const rows = results.map((r) => {
    const dir = r.run.target.modelDir;
    const name = dir === '.' ? 'the repository' : code(`${dir}/`, { cell: true });
    const said =
      r.status === 'valid'
        ? '✅ valid'
        : r.status === 'invalid'
          ? `❌ ${invalidWords(r)} (annotated on the check)`
          : r.status === 'failed'
            ? `❌ failed: ${text(failureOf('Queue', r.outcome?.failureCause ?? r.outcome?.failure, run.settings.connection.apiUrl).message)}`
            : r.status === 'untouched'
              ? '⏭️ not checked: no file of it changed'
              : 'dry run';
    return `| ${name} | ${said} |`;
  });
  run.reporter.summary(
    `### datamodel-ci · merge queue: pull request #${group.pr} at ${code(group.headSha.slice(0, 7))}\n\n| Model | Merge commit |\n|---|---|\n${rows.join('\n')}\n\nChecked on ${code(branch)}, removed after.`,
  );
  const failed = results.filter((r) => r.status === 'failed' || (r.status === 'invalid' && run.settings.inputs.failOnInvalid));
  if (failed.length) {
    const what = failed.map((r) => `${r.run.label ? `${r.run.label}: ` : ''}${r.status === 'failed' ? `failed (${r.outcome?.failure})` : invalidWords(r)}`);
    throw new StepFailed(`the merge commit of pull request #${group.pr} (${group.headSha.slice(0, 7)}) is not valid: ${what.join('; ')}`);
  }
  for (const r of results) if (r.outcome?.left) run.reporter.warning(`${r.outcome.left} was left on the platform`);
  return 0;
}

/** `2 errors`, `1 error in agents/`, or both: what made a model of the merge commit invalid. */
function invalidWords(r: QueueResult): string {
  const model = r.outcome?.validation?.errors.length ?? 0;
  const agents = r.agentsErrors ?? 0;
  const parts = [model || !agents ? plural(model, 'error') : '', agents ? `${plural(agents, 'error')} in agents/` : ''];
  return parts.filter(Boolean).join(' and ');
}
