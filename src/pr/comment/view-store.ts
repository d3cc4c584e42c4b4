/**
 * The run's view between the steps of one job: the comment's ledger keeps no view, so a step that runs as
 * its own action (upload, validate, staging, impact: validation-gate.yml) leaves what it showed in a file
 * under RUNNER_TEMP, which the job's later steps read and add to. The file is the job's own (RUNNER_TEMP
 * is emptied when the job ends); only a view of the same run and head commit is taken up (`nextView`).
 * Outside Actions (no RUNNER_TEMP) nothing is kept: a terminal's command renders what it saw.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { viewOf, type PreviewView } from './view.js';

/** Which comment the view is of: the deployment, and the model's folder when there are several. */
export interface ViewKey {
  deploymentId: number | string;
  pr: number;
  label?: string;
}

function file(key: ViewKey): string | undefined {
  const temp = process.env.RUNNER_TEMP;
  if (!temp) return undefined;
  const name = [key.deploymentId, `pr${key.pr}`, ...(key.label ? [key.label] : [])].join('-').replace(/[^\w.-]+/g, '_');
  return join(temp, 'datamodel-ci', `comment-view-${name}.json`);
}

/** The view an earlier step of this job left, when it is of this run and head commit. */
export function readRunView(key: ViewKey, run: { headSha: string; runId: number }): PreviewView | undefined {
  const path = file(key);
  if (!path) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
  const view = viewOf(raw);
  return view && view.headSha === run.headSha && view.runId === run.runId ? view : undefined;
}

/** Leave the view for the job's later steps (trouble writing it only costs them the earlier steps' rows). */
export function keepRunView(key: ViewKey, view: PreviewView): void {
  const path = file(key);
  if (!path) return;
  try {
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, JSON.stringify(view));
  } catch {
    // Not worth failing a step over: the comment then shows what this step saw.
  }
}
