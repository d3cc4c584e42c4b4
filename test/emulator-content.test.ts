/**
 * The emulator's workspace content through the real client over HTTPS: folders, workbooks, reports, feed,
 * bulk operations, exports, metric views (spec 4.15, shapes from the vendor reference). Embedding, tenant
 * integrations and GitHub discovery: test/emulator-embed.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { BadRequestError, ConflictError, NotFoundError, PermissionDeniedError, collect, routeTable } from '../src/client/index.js';
import { contentHandlers } from '../packages/emulator/src/content/index.js';
import { em, c, member, D, snapshot, rejectedUnchanged, readAll, useContentEmulator } from './support/content-fixture.js';

useContentEmulator();

describe('handler table', () => {
  it('implements every endpoint of the workspace, embed, tenant, github and app areas, and nothing else', () => {
    const ids = [routeTable.workspace, routeTable.embed, routeTable.tenant, routeTable.github, routeTable.app].flatMap((area) =>
      Object.values(area).map((e) => e.id),
    );
    expect(Object.keys(contentHandlers).sort()).toEqual([...ids].sort());
  });
});

describe('folders', () => {
  it('create, nest, list one level, ancestors, rename; 409 for a sibling name; 404 for unknown ids', async () => {
    const top = await c.workspace.createFolder({ deploymentId: D, body: { name: 'Ops' } });
    const mid = await c.workspace.createFolder({ deploymentId: D, body: { name: 'Weekly', parentId: top.id } });
    const leaf = await c.workspace.createFolder({ deploymentId: D, body: { name: 'Archive', parentId: mid.id } });
    expect(leaf).toMatchObject({ name: 'Archive', parentId: mid.id, deploymentId: D });

    const root = await c.workspace.listFolders({ deploymentId: D });
    expect(root.items.map((f) => f.name)).toEqual(expect.arrayContaining(['Finance', 'Ops']));
    expect(root.items.every((f) => f.parentId === null)).toBe(true);
    const children = await c.workspace.listFolders({ deploymentId: D, query: { parentId: top.id } });
    expect(children.items.map((f) => f.id)).toEqual([mid.id]);

    const chain = await c.workspace.folderAncestors({ deploymentId: D, folderId: leaf.id });
    expect(chain.map((f) => f.name)).toEqual(['Ops', 'Weekly', 'Archive']);

    const renamed = await c.workspace.updateFolder({ deploymentId: D, folderId: leaf.id, body: { name: 'Old weeks' } });
    expect(renamed.name).toBe('Old weeks');

    await rejectedUnchanged(() => c.workspace.createFolder({ deploymentId: D, body: { name: 'ops' } }), ConflictError, /already exists/);
    await rejectedUnchanged(() => c.workspace.folderAncestors({ deploymentId: D, folderId: 9999 }), NotFoundError);
    // A folder of deployment 1 does not exist in deployment 2.
    await rejectedUnchanged(() => c.workspace.updateFolder({ deploymentId: 2, folderId: top.id, body: { name: 'x' } }), NotFoundError);
  });

  it('delete refuses a folder with sub-folders (400, nothing changed) and returns the content of a deleted one to the root', async () => {
    const parent = await c.workspace.createFolder({ deploymentId: D, body: { name: 'To delete' } });
    const child = await c.workspace.createFolder({ deploymentId: D, body: { name: 'Child', parentId: parent.id } });
    const wb = await c.workspace.createWorkbook({ deploymentId: D, body: { name: 'Inside', folderId: child.id } });
    await rejectedUnchanged(() => c.workspace.deleteFolder({ deploymentId: D, folderId: parent.id }), BadRequestError, /sub-folders/);
    await c.workspace.deleteFolder({ deploymentId: D, folderId: child.id });
    expect((await c.workspace.getWorkbook({ deploymentId: D, workbookId: wb.id })).folderId).toBeNull();
    await c.workspace.deleteFolder({ deploymentId: D, folderId: parent.id });
    await expect(c.workspace.deleteFolder({ deploymentId: D, folderId: parent.id })).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('workbooks', () => {
  it('create, get, update (rename, move, meta), delete; seeded workbooks carry their published dashboard', async () => {
    const seeded = await c.workspace.getWorkbook({ deploymentId: D, workbookId: 1 });
    expect(seeded.publishedDashboard).toMatchObject({ publicId: 'wb-pub-1', workbookId: 1 });

    const wb = await c.workspace.createWorkbook({ deploymentId: D, body: { name: 'Sales', meta: { owner: 'ada' } } });
    expect(wb.id).toBeGreaterThan(3); // ids do not collide with the seeded workbooks
    const finance = (await c.workspace.listFolders({ deploymentId: D })).items.find((f) => f.name === 'Finance');
    const updated = (await c.workspace.updateWorkbook({
      deploymentId: D,
      workbookId: wb.id,
      body: { name: 'Sales 2025', folderId: finance?.id, meta: { owner: 'max' } },
    })) as { name: string; folderId: number; meta: unknown };
    expect(updated).toMatchObject({ name: 'Sales 2025', folderId: finance?.id, meta: { owner: 'max' } });
    const inFolder = await c.workspace.listWorkbooks({ deploymentId: D, query: { folderId: finance?.id } });
    expect(inFolder.items.map((w) => w.id)).toContain(wb.id);
    await c.workspace.updateWorkbook({ deploymentId: D, workbookId: wb.id, body: { folderId: null } });
    expect((await c.workspace.getWorkbook({ deploymentId: D, workbookId: wb.id })).folderId).toBeNull();

    await c.workspace.deleteWorkbook({ deploymentId: D, workbookId: wb.id });
    await expect(c.workspace.getWorkbook({ deploymentId: D, workbookId: wb.id })).rejects.toBeInstanceOf(NotFoundError);
    await expect(c.workspace.getWorkbook({ deploymentId: 2, workbookId: 1 })).rejects.toBeInstanceOf(NotFoundError);
  });

  it('upsert by slug creates, then updates the same workbook (slug trimmed and lowercased; meta merged)', async () => {
    const first = await c.workspace.upsertWorkbookBySlug({ deploymentId: D, slug: 'Churn-Board', body: { name: 'Churn', meta: { a: 1 } } });
    expect(first).toMatchObject({ slug: 'churn-board', name: 'Churn', created: true });
    const again = await c.workspace.upsertWorkbookBySlug({ deploymentId: D, slug: 'churn-board', body: { name: 'Churn v2', meta: { b: 2 } } });
    expect(again).toMatchObject({ id: first.id, name: 'Churn v2', meta: { a: 1, b: 2 }, created: false });
    await rejectedUnchanged(() => c.workspace.upsertWorkbookBySlug({ deploymentId: D, slug: 'bad slug!' }), BadRequestError);
  });

  it('a slug held by another workbook is a 409 (nothing changed) unless slugTakeover', async () => {
    const a = await c.workspace.upsertWorkbookBySlug({ deploymentId: D, slug: 'holder', body: { name: 'Holder' } });
    const b = await c.workspace.createWorkbook({ deploymentId: D, body: { name: 'Taker' } });
    await rejectedUnchanged(
      () => c.workspace.updateWorkbook({ deploymentId: D, workbookId: b.id, body: { slug: 'holder', name: 'renamed too' } }),
      ConflictError,
      /held by workbook/,
    );
    await c.workspace.updateWorkbook({ deploymentId: D, workbookId: b.id, body: { slug: 'holder', slugTakeover: true } });
    expect((await c.workspace.getWorkbook({ deploymentId: D, workbookId: b.id })).slug).toBe('holder');
    expect((await c.workspace.getWorkbook({ deploymentId: D, workbookId: a.id })).slug).toBeNull();
  });

  it('draft, publish, AI widget thread, duplicate (reports copied, embedding off, no slug)', async () => {
    const wb = await c.workspace.createWorkbook({ deploymentId: D, body: { name: 'Board' } });
    const report = await c.workspace.createReport({ deploymentId: D, body: { name: 'KPI', workbookId: wb.id } });
    const widget = { id: 'w1', type: 'TEXT' as const, position: { x: 0, y: 0, w: 4, h: 2 } };
    const draft = await c.workspace.updateWorkbookDashboard({ deploymentId: D, workbookId: wb.id, body: { dashboardDraft: { widgets: [widget] } } });
    expect(draft).toMatchObject({ dashboardDraft: { widgets: [widget] }, dashboardPublished: null });
    await expect(
      c.workspace.updateDashboardAiWidgetThread({ deploymentId: D, workbookId: wb.id, body: { widgetId: 'w1', threadId: 't1' } }),
    ).rejects.toBeInstanceOf(NotFoundError);
    await rejectedUnchanged(() => c.workspace.publishDashboard({ deploymentId: D, workbookId: wb.id, body: { workbookId: wb.id + 1000 } }), BadRequestError);
    const dash = await c.workspace.publishDashboard({ deploymentId: D, workbookId: wb.id, body: { workbookId: wb.id, title: 'Board', allowEmbed: true } });
    expect(dash).toMatchObject({ workbookId: wb.id, allowEmbed: true, title: 'Board', config: { widgets: [widget] } });
    const withThread = await c.workspace.updateDashboardAiWidgetThread({
      deploymentId: D,
      workbookId: wb.id,
      body: { widgetId: 'w1', threadId: 't1', checksum: 'abc' },
    });
    expect(withThread.publicId).toBe(dash.publicId);

    const copy = await c.workspace.duplicateWorkbook({ deploymentId: D, workbookId: wb.id });
    expect(copy).toMatchObject({ name: 'Copy of Board', slug: null });
    expect(copy.publishedDashboard).toMatchObject({ allowEmbed: false, workbookId: copy.id });
    expect(copy.publishedDashboard?.publicId).not.toBe(dash.publicId);
    const copied = await c.workspace.listReports({ deploymentId: D, query: { workbookId: copy.id } });
    expect(copied.items.map((r) => r.name)).toEqual(['KPI']);
    expect(copied.items[0]?.publicId).not.toBe(report.publicId);
    await expect(c.workspace.duplicateWorkbook({ deploymentId: D, workbookId: wb.id, body: { shared: true } })).rejects.toBeInstanceOf(PermissionDeniedError);
  });
});

describe('reports', () => {
  it('create, get, update (publicId write-once), list with filters, delete', async () => {
    const r = await c.workspace.createReport({ deploymentId: D, body: { name: 'Orders', sqlQuery: 'SELECT 1', source: 'PLAYGROUND' } });
    expect(r.publicId).toMatch(/^[0-9A-Za-z]{12}$/);
    expect(await c.workspace.getReport({ deploymentId: D, reportId: r.id })).toMatchObject({ name: 'Orders', sqlQuery: 'SELECT 1' });
    const u = await c.workspace.updateReport({ deploymentId: D, reportId: r.id, body: { name: 'Orders v2' } });
    expect(u.name).toBe('Orders v2');
    await rejectedUnchanged(
      () => c.workspace.updateReport({ deploymentId: D, reportId: r.id, body: { publicId: 'Zzzzzzzzzzzz' } }),
      BadRequestError,
      /write-once/,
    );
    await rejectedUnchanged(() => c.workspace.createReport({ deploymentId: D, body: { name: 'dup', publicId: 'RevByMonth01' } }), ConflictError);
    await rejectedUnchanged(() => c.workspace.createReport({ deploymentId: D, body: { name: 'x', workbookId: 9999 } }), NotFoundError);

    const found = await c.workspace.listReports({ deploymentId: D, query: { search: 'orders v' } });
    expect(found.items.map((x) => x.id)).toEqual([r.id]);
    const byName = await collect(c.workspace.iterateReports({ deploymentId: D, query: { sortBy: 'name', first: 1 } }));
    const names = byName.map((x) => x.name);
    expect(names).toEqual([...names].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase())));
    const legacy = await c.workspace.listReports({ deploymentId: D, query: { sortBy: 'lastViewedAt', limit: 1, page: 2 } });
    expect(legacy.items).toHaveLength(1);

    await c.workspace.deleteReport({ deploymentId: D, reportId: r.id });
    await expect(c.workspace.getReport({ deploymentId: D, reportId: r.id })).rejects.toBeInstanceOf(NotFoundError);
  });

  it('upsert by publicId creates, then updates; a publicId of another deployment is a 409', async () => {
    const created = await c.workspace.upsertReportByPublicId({ deploymentId: D, publicId: 'AsCode000001', body: { name: 'As code', source: 'D3' } });
    expect(created).toMatchObject({ publicId: 'AsCode000001', name: 'As code', created: true, source: 'D3' });
    const updated = await c.workspace.upsertReportByPublicId({ deploymentId: D, publicId: 'AsCode000001', body: { name: 'As code v2', source: 'EXCEL' } });
    expect(updated).toMatchObject({ id: created.id, name: 'As code v2', created: false, source: 'D3' });
    await rejectedUnchanged(
      () => c.workspace.upsertReportByPublicId({ deploymentId: 2, publicId: 'AsCode000001', body: { name: 'elsewhere' } }),
      ConflictError,
    );
    await rejectedUnchanged(
      () => c.workspace.upsertReportByPublicId({ deploymentId: D, publicId: 'AsCode000001', body: { publicId: 'AsCode000002' } }),
      BadRequestError,
    );
  });

  it('connect (GOOGLE_SHEETS, EXCEL), refresh, disconnect placements', async () => {
    const r = await c.workspace.createReport({ deploymentId: D, body: { name: 'Placed' } });
    const one = await c.workspace.connectReportToWorkbook({
      deploymentId: D,
      reportId: r.id,
      body: { externalWorkbookId: 'gsheet-1', resultLocation: "'Sheet 1'!B2", host: 'GOOGLE_SHEETS' },
    });
    expect(one.externalWorkbookPlacements).toEqual([
      expect.objectContaining({ workbookId: 'gsheet-1', sheetName: 'Sheet 1', anchorCell: 'B2', host: 'GOOGLE_SHEETS' }),
    ]);
    // The same spot again updates the placement rather than adding one.
    const same = await c.workspace.connectReportToWorkbook({
      deploymentId: D,
      reportId: r.id,
      body: { externalWorkbookId: 'gsheet-1', resultLocation: "'Sheet 1'!B2", endResultCell: 'D9' },
    });
    expect(same.externalWorkbookPlacements).toHaveLength(1);
    const two = await c.workspace.connectReportToWorkbook({
      deploymentId: D,
      reportId: r.id,
      body: { externalWorkbookId: 'xlsx-9', resultLocation: 'Data!A1', host: 'EXCEL' },
    });
    expect(two.externalWorkbookPlacements).toHaveLength(2);
    const placementId = two.externalWorkbookPlacements?.find((p) => p.workbookId === 'xlsx-9')?.id as string;

    const refreshed = await c.workspace.refreshReport({ deploymentId: D, reportId: r.id, body: { placementId } });
    expect(refreshed.externalWorkbookPlacements?.find((p) => p.id === placementId)).toMatchObject({ refreshedAt: expect.any(String) });
    await rejectedUnchanged(() => c.workspace.refreshReport({ deploymentId: D, reportId: r.id, body: { placementId: 'nope' } }), NotFoundError);

    const byWorkbook = await c.workspace.listReports({ deploymentId: D, query: { externalWorkbookId: 'xlsx-9' } });
    expect(byWorkbook.items.map((x) => x.id)).toEqual([r.id]);

    // A target matching nothing succeeds and changes nothing.
    const before = snapshot();
    const noop = await c.workspace.disconnectReportFromWorkbook({
      deploymentId: D,
      reportId: r.id,
      body: { externalWorkbookId: 'gsheet-1', sheetName: 'Other', anchorCell: 'B2' },
    });
    expect(noop!.externalWorkbookPlacements).toHaveLength(2);
    expect(snapshot()).toBe(before);
    const left = await c.workspace.disconnectReportFromWorkbook({
      deploymentId: D,
      reportId: r.id,
      body: { externalWorkbookId: 'gsheet-1', resultLocation: "'Sheet 1'!B2" },
    });
    expect(left!.externalWorkbookPlacements?.map((p) => p.workbookId)).toEqual(['xlsx-9']);
  });
});

describe('workspace feed, move and bulk operations', () => {
  it('lists folders first, then workbooks and reports; filters by type and search', async () => {
    const feed = await c.workspace.listWorkspace({ deploymentId: D });
    const types = feed.items.map((i) => i.type);
    expect(types.indexOf('WORKBOOK')).toBeGreaterThan(types.lastIndexOf('FOLDER'));
    const onlyFolders = await c.workspace.listWorkspace({ deploymentId: D, query: { types: ['FOLDER', 'REPORT'] } });
    expect(onlyFolders.items.every((i) => i.type === 'FOLDER' || i.type === 'REPORT')).toBe(true);
    const search = await c.workspace.listWorkspace({ deploymentId: D, query: { search: 'quarter' } });
    expect(search.items.map((i) => i.name)).toEqual(['Quarterly']);
    const all = await collect(c.workspace.iterateWorkspace({ deploymentId: D, query: { first: 2 } }));
    expect(all.length).toBe(feed.items.length);
  });

  it('moves an item; a folder into its own descendant is a 400 that changes nothing', async () => {
    const a = await c.workspace.createFolder({ deploymentId: D, body: { name: 'Move A' } });
    const b = await c.workspace.createFolder({ deploymentId: D, body: { name: 'Move B', parentId: a.id } });
    const wb = await c.workspace.createWorkbook({ deploymentId: D, body: { name: 'Mover' } });
    const moved = await c.workspace.moveWorkspaceItem({ deploymentId: D, body: { type: 'WORKBOOK', id: wb.id, folderId: b.id } });
    expect(moved).toMatchObject({ id: wb.id, type: 'WORKBOOK', folderId: b.id });
    await rejectedUnchanged(
      () => c.workspace.moveWorkspaceItem({ deploymentId: D, body: { type: 'FOLDER', id: a.id, folderId: b.id } }),
      BadRequestError,
      /descendant/,
    );
    await rejectedUnchanged(() => c.workspace.moveWorkspaceItem({ deploymentId: D, body: { type: 'REPORT', id: 9999, folderId: null } }), NotFoundError);
    const inB = await c.workspace.listWorkspace({ deploymentId: D, query: { folderId: b.id } });
    expect(inB.items.map((i) => i.id)).toEqual([wb.id]);
  });

  it('bulk delete: per-item failures for unknown ids and folders with sub-folders; repeats collapsed', async () => {
    const p = await c.workspace.createFolder({ deploymentId: D, body: { name: 'Bulk parent' } });
    const k = await c.workspace.createFolder({ deploymentId: D, body: { name: 'Bulk kid', parentId: p.id } });
    const wb = await c.workspace.createWorkbook({ deploymentId: D, body: { name: 'Bulk wb' } });
    const r = await c.workspace.createReport({ deploymentId: D, body: { name: 'Bulk report' } });
    const out = await c.workspace.bulkDelete({
      deploymentId: D,
      body: {
        items: [
          { type: 'FOLDER', id: p.id },
          { type: 'WORKBOOK', id: wb.id },
          { type: 'WORKBOOK', id: wb.id },
          { type: 'REPORT', id: r.id },
          { type: 'REPORT', id: 424242 },
          { type: 'FOLDER', id: k.id },
        ],
      },
    });
    expect(out.deleted).toEqual([
      { type: 'WORKBOOK', id: wb.id },
      { type: 'REPORT', id: r.id },
      { type: 'FOLDER', id: k.id },
    ]);
    expect(out.failed).toEqual([
      { type: 'FOLDER', id: p.id, error: { status: 400, message: expect.stringMatching(/sub-folders/) } },
      { type: 'REPORT', id: 424242, error: { status: 404, message: expect.stringMatching(/not found/) } },
    ]);
    // Items are applied in order: the parent, now empty, deletes on a second pass.
    const again = await c.workspace.bulkDelete({ deploymentId: D, body: { items: [{ type: 'FOLDER', id: p.id }] } });
    expect(again).toEqual({ deleted: [{ type: 'FOLDER', id: p.id }], failed: [] });
  });

  it('bulk move: moved items as the single move returns them, failures for invalid moves and unknown ids', async () => {
    const dest = await c.workspace.createFolder({ deploymentId: D, body: { name: 'Bulk dest' } });
    const inner = await c.workspace.createFolder({ deploymentId: D, body: { name: 'Bulk inner', parentId: dest.id } });
    const wb = await c.workspace.createWorkbook({ deploymentId: D, body: { name: 'Bulk moved' } });
    const out = await c.workspace.bulkMove({
      deploymentId: D,
      body: {
        folderId: inner.id,
        items: [
          { type: 'WORKBOOK', id: wb.id },
          { type: 'FOLDER', id: dest.id },
          { type: 'WORKBOOK', id: 777777 },
        ],
      },
    });
    expect(out.moved).toEqual([expect.objectContaining({ id: wb.id, type: 'WORKBOOK', folderId: inner.id })]);
    expect(out.failed).toEqual([
      { type: 'FOLDER', id: dest.id, error: { status: 400, message: expect.stringMatching(/descendant/) } },
      { type: 'WORKBOOK', id: 777777, error: { status: 404, message: expect.any(String) } },
    ]);
  });
});

describe('dashboard exports', () => {
  it('start -> pending -> processing -> completed on the clock; download is a PNG; 409 before, 404 for another user', async () => {
    const job = await c.workspace.startDashboardExport({ deploymentId: D, body: { dashboardPublicId: 'wb-pub-2', format: 'png' } });
    expect(job.jobId).toMatch(/^exp-/);
    expect(Date.parse(job.expiresAt) - em.clock.now()).toBe(5 * 60_000);
    expect(await c.workspace.dashboardExportStatus({ deploymentId: D, jobId: job.jobId })).toMatchObject({ status: 'pending' });
    await expect(c.workspace.downloadDashboardExport({ deploymentId: D, jobId: job.jobId })).rejects.toBeInstanceOf(ConflictError);
    em.clock.advance(2_000);
    expect(await c.workspace.dashboardExportStatus({ deploymentId: D, jobId: job.jobId })).toMatchObject({ status: 'processing' });
    em.clock.advance(3_000);
    expect(await c.workspace.dashboardExportStatus({ deploymentId: D, jobId: job.jobId })).toMatchObject({
      status: 'completed',
      contentType: 'image/png',
      progress: 100,
    });
    const file = await c.workspace.downloadDashboardExport({ deploymentId: D, jobId: job.jobId, query: { filename: 'q3.png' } });
    expect(file.headers['content-type']).toBe('image/png');
    expect(file.headers['content-disposition']).toContain('filename="q3.png"');
    const bytes = await readAll(file.body);
    expect(bytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    await expect(member.workspace.dashboardExportStatus({ deploymentId: D, jobId: job.jobId })).rejects.toBeInstanceOf(NotFoundError);
    em.clock.advance(5 * 60_000);
    await expect(c.workspace.dashboardExportStatus({ deploymentId: D, jobId: job.jobId })).rejects.toBeInstanceOf(NotFoundError);
  });

  it('a failed render answers 422 on download; an unknown dashboard is a 404 that creates no job', async () => {
    const job = await c.workspace.startDashboardExport({
      deploymentId: D,
      // A `cube.member` spelling (the vendor's pattern) that names no member of the model.
      body: { dashboardId: 1, format: 'pdf', filters: [{ member: 'orders.status.raw', operator: 'equals', value: 'x' }] },
    });
    em.clock.advance(10_000);
    expect(await c.workspace.dashboardExportStatus({ deploymentId: D, jobId: job.jobId })).toMatchObject({ status: 'failed', error: expect.any(String) });
    await expect(c.workspace.downloadDashboardExport({ deploymentId: D, jobId: job.jobId })).rejects.toMatchObject({ status: 422 });
    await rejectedUnchanged(() => c.workspace.startDashboardExport({ deploymentId: D, body: { dashboardPublicId: 'nope', format: 'png' } }), NotFoundError);
  });
});

describe('Databricks metric views', () => {
  it('integration: create at version 0, optimistic 409 on a stale version, get', async () => {
    await expect(c.workspace.getMetricViewIntegration({ deploymentId: D, dataSourceName: 'default' })).rejects.toBeInstanceOf(NotFoundError);
    const body = { enabled: true, expectedConfigurationVersion: 0, selectionMode: 'all' as const, targetCatalog: 'main', targetSchema: 'cube' };
    const v1 = await c.workspace.saveMetricViewIntegration({ deploymentId: D, dataSourceName: 'default', body });
    expect(v1).toMatchObject({ configurationVersion: 1, dataSourceName: 'default', configuration: { targetCatalog: 'main', enabled: true } });
    await rejectedUnchanged(() => c.workspace.saveMetricViewIntegration({ deploymentId: D, dataSourceName: 'default', body }), ConflictError);
    const v2 = await c.workspace.saveMetricViewIntegration({
      deploymentId: D,
      dataSourceName: 'default',
      body: { ...body, expectedConfigurationVersion: 1, enabled: false },
    });
    expect(v2.configurationVersion).toBe(2);
    expect(await c.workspace.getMetricViewIntegration({ deploymentId: D, dataSourceName: 'default' })).toEqual(v2);
  });

  it('preview: 202 queued, reused while running, result 409 until completed, then the views of the model; cancel', async () => {
    const started = await c.workspace.startMetricViewPreview({ deploymentId: D, body: { dataSourceName: 'default', selectionMode: 'all' } });
    expect(started).toMatchObject({ status: 'QUEUED', reused: false });
    const reused = await c.workspace.startMetricViewPreview({ deploymentId: D, body: { dataSourceName: 'default', selectionMode: 'all' } });
    expect(reused).toMatchObject({ previewId: started.previewId, reused: true });
    await expect(c.workspace.metricViewPreviewResult({ deploymentId: D, previewId: started.previewId })).rejects.toBeInstanceOf(ConflictError);
    em.clock.advance(2_000);
    expect(await c.workspace.metricViewPreviewStatus({ deploymentId: D, previewId: started.previewId })).toMatchObject({
      status: 'RUNNING',
      resultAvailable: false,
    });
    em.clock.advance(5_000);
    expect(await c.workspace.metricViewPreviewStatus({ deploymentId: D, previewId: started.previewId })).toMatchObject({
      status: 'COMPLETED',
      resultAvailable: true,
    });
    const result = await c.workspace.metricViewPreviewResult({ deploymentId: D, previewId: started.previewId });
    expect(result.views.map((v) => v.metricViewName)).toEqual(['orders_view']);
    await expect(c.workspace.cancelMetricViewPreview({ deploymentId: D, previewId: started.previewId })).rejects.toBeInstanceOf(ConflictError);

    const other = await c.workspace.startMetricViewPreview({ deploymentId: D, body: { dataSourceName: 'default', selectionMode: 'all' } });
    expect(other.previewId).not.toBe(started.previewId);
    const cancelled = (await c.workspace.cancelMetricViewPreview({ deploymentId: D, previewId: other.previewId })) as { status: string };
    expect(cancelled.status).toBe('CANCELLED');
    await expect(c.workspace.metricViewPreviewResult({ deploymentId: D, previewId: other.previewId })).rejects.toBeInstanceOf(ConflictError);
    await expect(c.workspace.metricViewPreviewStatus({ deploymentId: D, previewId: 'nope' })).rejects.toBeInstanceOf(NotFoundError);
  });
});
