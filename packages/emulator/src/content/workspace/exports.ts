/** Dashboard exports (PNG, PDF): queued, rendered, then downloadable for five minutes, on the emulated clock. */
import { randomBytes } from 'node:crypto';
import { HttpError, reply, requireDeployment, type Ctx, type HandlerTable } from '../../context.js';
import type { DeploymentRec } from '../../deployments/models.js';
import { findRecord, putRecord } from '../../state.js';
import type { DashboardRec, ExportRec, WorkbookRec } from '../models.js';
import { dashboardOf, workbooksOf } from './records.js';

const EXPORT_QUEUED_MS = 1_000;
const EXPORT_RENDER_MS = 4_000;
const EXPORT_TTL_MS = 5 * 60_000;

/** A 1x1 PNG. */
const PNG_BYTES = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
const PDF_BYTES = Buffer.from(
  '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n' +
    '3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 100]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n',
);

function exportStatus(job: ExportRec, now: number) {
  const elapsed = now - job.startedAt;
  if (elapsed < EXPORT_QUEUED_MS) return { status: 'pending', progress: 0, error: null, contentType: null };
  if (elapsed < EXPORT_RENDER_MS) {
    return {
      status: 'processing',
      progress: Math.floor(((elapsed - EXPORT_QUEUED_MS) / (EXPORT_RENDER_MS - EXPORT_QUEUED_MS)) * 100),
      error: null,
      contentType: null,
    };
  }
  if (job.failure) return { status: 'failed', progress: null, error: job.failure, contentType: null };
  return { status: 'completed', progress: 100, error: null, contentType: job.format === 'png' ? 'image/png' : 'application/pdf' };
}

function exportJob(ctx: Ctx, d: DeploymentRec): ExportRec {
  const jobId = String(ctx.params.jobId);
  const job = findRecord(ctx.state, 'dashboardExports', jobId);
  if (!job || job.deploymentId !== d.id || job.userId !== ctx.principal.user.id || ctx.clock.now() >= job.expiresAt) {
    throw new HttpError(404, `export job ${JSON.stringify(jobId)} not found (expired, or started by another user)`);
  }
  return job;
}

export const exportHandlers: HandlerTable = {
  startExport(ctx) {
    const d = requireDeployment(ctx);
    const body = ctx.body as {
      dashboardId?: number | null;
      dashboardPublicId?: string | null;
      format: 'png' | 'pdf';
      filters?: { member: string }[] | null;
      renderAs?: { type: string } | null;
    };
    let target: { wb: WorkbookRec; dash: DashboardRec } | undefined;
    for (const wb of workbooksOf(ctx.state, d)) {
      const dash = dashboardOf(wb);
      if (dash && (dash.id === body.dashboardId || dash.publicId === body.dashboardPublicId)) target = { wb, dash };
    }
    if (!target) {
      const which = body.dashboardId != null ? `dashboardId ${body.dashboardId}` : `dashboardPublicId ${JSON.stringify(body.dashboardPublicId)}`;
      throw new HttpError(404, `${which}: no published dashboard of deployment ${d.id}`);
    }
    if (body.renderAs && !ctx.principal.user.isAdmin) throw new HttpError(403, 'body.renderAs: exporting on behalf of another user needs the admin role');
    const bad = (body.filters ?? []).find((f) => !/^[A-Za-z_]\w*\.[A-Za-z_]\w*$/.test(f.member));
    const now = ctx.clock.now();
    const job: ExportRec = {
      jobId: `exp-${randomBytes(8).toString('hex')}`,
      deploymentId: d.id,
      userId: ctx.principal.user.id,
      workbookId: target.wb.id,
      dashboardId: target.dash.id,
      format: body.format,
      startedAt: now,
      expiresAt: now + EXPORT_TTL_MS,
      // A filter on a member that is not `cube.member` fails the render (the 422 path of download).
      failure: bad ? `filter member ${JSON.stringify(bad.member)} is not a member of the data model` : null,
    };
    putRecord(ctx.state, 'dashboardExports', job.jobId, job);
    return { jobId: job.jobId, expiresAt: new Date(job.expiresAt).toISOString() };
  },

  getExportStatus(ctx) {
    const d = requireDeployment(ctx);
    return exportStatus(exportJob(ctx, d), ctx.clock.now());
  },

  downloadExport(ctx) {
    const d = requireDeployment(ctx);
    const job = exportJob(ctx, d);
    const s = exportStatus(job, ctx.clock.now());
    if (s.status === 'failed') throw new HttpError(422, `export ${job.jobId} failed: ${s.error} (submit a new export)`);
    if (s.status !== 'completed') throw new HttpError(409, `export ${job.jobId} is still ${s.status}: poll its status until it is completed`);
    const q = ctx.query as { filename?: string };
    const stem = (q.filename ?? 'dashboard').replace(/\.(png|pdf)$/i, '').replace(/["\\/\r\n]/g, '_') || 'dashboard';
    return reply({
      raw: job.format === 'png' ? PNG_BYTES : PDF_BYTES,
      headers: {
        'content-type': s.contentType as string,
        'content-disposition': `attachment; filename="${stem}.${job.format}"`,
      },
    });
  },
};
