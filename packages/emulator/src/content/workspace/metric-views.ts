/** Databricks metric views: the integration of a data source and previews of converting the model's views. */
import { randomBytes } from 'node:crypto';
import { createHash } from 'node:crypto';
import { compileBranch } from '../../build/branches.js';
import { allCubes } from '../../engine/meta.js';
import { HttpError, requireDeployment, type Ctx, type HandlerTable } from '../../context.js';
import type { DeploymentRec } from '../../deployments/models.js';
import type { JsonObject } from '../../json.js';
import { findRecord, nextId, putRecord, records } from '../../state.js';
import { tooLong } from '../fields.js';
import type { PreviewRec } from '../models.js';

const PREVIEW_QUEUED_MS = 1_000;
const PREVIEW_RUN_MS = 5_000;

function previewState(p: PreviewRec, now: number): 'QUEUED' | 'RUNNING' | 'COMPLETED' | 'FAILED' | 'CANCELLED' {
  if (p.cancelledAt !== null) return 'CANCELLED';
  const elapsed = now - p.startedAt;
  if (elapsed < PREVIEW_QUEUED_MS) return 'QUEUED';
  if (elapsed < PREVIEW_RUN_MS) return 'RUNNING';
  return p.failure ? 'FAILED' : 'COMPLETED';
}

function previewStatusOut(ctx: Ctx, p: PreviewRec) {
  const now = ctx.clock.now();
  const status = previewState(p, now);
  const percent =
    status === 'QUEUED' ? 0 : status === 'RUNNING' ? Math.floor(((now - p.startedAt - PREVIEW_QUEUED_MS) / (PREVIEW_RUN_MS - PREVIEW_QUEUED_MS)) * 100) : 100;
  const messages = {
    QUEUED: 'waiting for a runner',
    RUNNING: 'converting views',
    COMPLETED: 'conversion finished',
    FAILED: p.failure ?? 'failed',
    CANCELLED: 'cancelled',
  };
  return {
    previewId: p.previewId,
    deploymentId: p.deploymentId,
    dataSourceName: p.dataSourceName,
    status,
    progress: { stage: status, percentComplete: percent, message: messages[status] },
    resultAvailable: status === 'COMPLETED',
    error: status === 'FAILED' ? p.failure : null,
    startedAt: new Date(p.startedAt).toISOString(),
    updatedAt: new Date(Math.min(now, p.cancelledAt ?? now)).toISOString(),
  };
}

function previewIn(ctx: Ctx, d: DeploymentRec): PreviewRec {
  const id = String(ctx.params.previewId);
  const p = findRecord(ctx.state, 'metricViewPreviews', id);
  if (!p || p.deploymentId !== d.id) throw new HttpError(404, `metric-view preview ${JSON.stringify(id)} not found in deployment ${d.id}`);
  return p;
}

/** The bounded regex subset of `viewNameRegex`: literals, `^`, `$`, `.`, and one `.*`. */
function viewNamePattern(src: string): RegExp {
  if (/[()[\]{}|+?\\]/.test(src) || (src.match(/\.\*/g) ?? []).length > 1 || src.length > 128) {
    throw new HttpError(
      400,
      `body.viewNameRegex: got ${JSON.stringify(src)}, expected literals, "^", "$", "." and at most one ".*" (no groups, classes, alternation or escapes)`,
    );
  }
  return new RegExp(src);
}

export const metricViewHandlers: HandlerTable = {
  getIntegration(ctx) {
    const d = requireDeployment(ctx);
    const name = String(ctx.params.dataSourceName);
    const rec = findRecord(ctx.state, 'metricViewIntegrations', `${d.id}:${name}`);
    if (!rec) throw new HttpError(404, `no metric-view integration for data source ${JSON.stringify(name)} in deployment ${d.id}`);
    return rec;
  },

  saveIntegration(ctx) {
    const d = requireDeployment(ctx);
    const name = String(ctx.params.dataSourceName);
    const key = `${d.id}:${name}`;
    const body = ctx.body as JsonObject & {
      enabled: boolean;
      expectedConfigurationVersion: number;
      selectionMode: string;
      targetCatalog: string;
      targetSchema: string;
      deletionPolicy?: string;
    };
    const current = findRecord(ctx.state, 'metricViewIntegrations', key);
    const have = current?.configurationVersion ?? 0;
    if (body.expectedConfigurationVersion !== have) {
      if (!current)
        throw new HttpError(404, `no metric-view integration for data source ${JSON.stringify(name)}: pass expectedConfigurationVersion 0 to create it`);
      throw new HttpError(
        409,
        `body.expectedConfigurationVersion: got ${body.expectedConfigurationVersion}, but the configuration is at version ${have} (re-read it and retry)`,
      );
    }
    tooLong(body.targetCatalog, 255, 'body.targetCatalog');
    tooLong(body.targetSchema, 255, 'body.targetSchema');
    if (typeof body.viewNameRegex === 'string') viewNamePattern(body.viewNameRegex);
    const { expectedConfigurationVersion: _v, ...config } = body;
    const now = ctx.clock.iso();
    const rec = {
      publicId: current?.publicId ?? `mvi-${randomBytes(6).toString('hex')}`,
      deploymentId: d.id,
      dataSourceName: name,
      configurationVersion: have + 1,
      configuration: { version: 1, deletionPolicy: 'retain', ...config },
      accessTest: null,
      createdAt: current?.createdAt ?? now,
      updatedAt: now,
    };
    putRecord(ctx.state, 'metricViewIntegrations', key, rec);
    return rec;
  },

  async startPreview(ctx) {
    const d = requireDeployment(ctx);
    const body = ctx.body as JsonObject & { dataSourceName: string; selectionMode: string; viewNames?: unknown; viewNameRegex?: unknown };
    const deploy = d.branches[d.deployBranch];
    if (!deploy) throw new HttpError(400, `deployment ${d.id} has no deploy branch to convert`);
    const pattern = typeof body.viewNameRegex === 'string' ? viewNamePattern(body.viewNameRegex) : undefined;
    if (body.selectionMode === 'pattern' && !pattern) throw new HttpError(400, 'body.viewNameRegex: required when selectionMode is "pattern"');
    const names = Array.isArray(body.viewNames) ? body.viewNames.map(String) : undefined;
    if (body.selectionMode === 'selected' && !names?.length)
      throw new HttpError(400, 'body.viewNames: a non-empty list is required when selectionMode is "selected"');
    const contentKey = createHash('sha256')
      .update(JSON.stringify({ d: d.id, body, hash: deploy.lastHash }))
      .digest('hex');
    const now = ctx.clock.now();
    const running = records(ctx.state, 'metricViewPreviews').find((p) => p.contentKey === contentKey && ['QUEUED', 'RUNNING'].includes(previewState(p, now)));
    const started = (p: PreviewRec, reused: boolean) => ({
      previewId: p.previewId,
      deploymentId: d.id,
      dataSourceName: p.dataSourceName,
      buildJobId: p.buildJobId,
      commit: p.commit,
      status: 'QUEUED',
      statusUrl: `${ctx.origin}/api/v1/deployments/${d.id}/databricks-metric-view-previews/${p.previewId}`,
      resultUrl: `${ctx.origin}/api/v1/deployments/${d.id}/databricks-metric-view-previews/${p.previewId}/result`,
      reused,
    });
    if (running) return started(running, true);
    const compiled = await compileBranch(ctx, deploy);
    const views = (compiled.compilers ? allCubes(compiled.compilers) : [])
      .filter((c) => c.type === 'view')
      .filter((v) => (body.selectionMode === 'selected' ? names?.includes(v.name) : body.selectionMode === 'pattern' ? pattern?.test(v.name) : true))
      .map((v) => ({ cubeViewName: v.name, dimensions: v.dimensions.length, measures: v.measures.length }));
    const p: PreviewRec = {
      previewId: `mvp-${contentKey.slice(0, 12)}-${nextId(ctx.state, 'metricViewPreview')}`,
      contentKey,
      deploymentId: d.id,
      dataSourceName: body.dataSourceName,
      buildJobId: nextId(ctx.state, 'buildJob'),
      selectionMode: body.selectionMode,
      startedAt: now,
      cancelledAt: null,
      commit: deploy.lastHash,
      failure: compiled.valid
        ? null
        : `the data model of ${JSON.stringify(d.deployBranch)} does not compile: ${compiled.errors[0]?.message ?? 'unknown error'}`,
      views,
    };
    putRecord(ctx.state, 'metricViewPreviews', p.previewId, p);
    return started(p, false);
  },

  previewStatus(ctx) {
    const d = requireDeployment(ctx);
    return previewStatusOut(ctx, previewIn(ctx, d));
  },

  previewResult(ctx) {
    const d = requireDeployment(ctx);
    const p = previewIn(ctx, d);
    const status = previewState(p, ctx.clock.now());
    if (status !== 'COMPLETED')
      throw new HttpError(409, `preview ${p.previewId} is ${status}: no conversion result${status === 'QUEUED' || status === 'RUNNING' ? ' yet' : ''}`);
    const views = p.views.map((v) => ({
      cubeViewName: v.cubeViewName,
      metricViewName: v.cubeViewName,
      outcome: 'success',
      eligibleForPublication: true,
      issues: [],
      datasetSources: [],
      counts: { dimensions: v.dimensions, measures: v.measures, joins: 0, warnings: 0, errors: 0 },
      metricViewYaml: `version: 0.1\nsource: ${v.cubeViewName}\n`,
    }));
    return {
      previewId: p.previewId,
      deploymentId: p.deploymentId,
      dataSourceName: p.dataSourceName,
      buildJobId: p.buildJobId,
      commit: p.commit,
      completedAt: new Date(p.startedAt + PREVIEW_RUN_MS).toISOString(),
      durationMs: PREVIEW_RUN_MS,
      outcome: views.length ? 'success' : 'failed',
      version: 2,
      views,
    };
  },

  cancelPreview(ctx) {
    const d = requireDeployment(ctx);
    const p = previewIn(ctx, d);
    const status = previewState(p, ctx.clock.now());
    if (status === 'COMPLETED' || status === 'FAILED') throw new HttpError(409, `preview ${p.previewId} already ended (${status})`);
    if (p.cancelledAt === null) p.cancelledAt = ctx.clock.now();
    return previewStatusOut(ctx, p);
  },
};
