/**
 * The emulator's content areas through the real client over HTTPS: workspace (folders, workbooks,
 * reports, feed, bulk operations, exports, metric views), embedding, tenant integrations, GitHub
 * discovery and app config (spec 4.15, shapes from the vendor reference).
 */
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  BadRequestError,
  ConflictError,
  InputError,
  NotFoundError,
  PermissionDeniedError,
  PlatformClient,
  collect,
  routeTable,
} from '../src/client/index.js';
import { contentHandlers } from '../packages/emulator/src/content/index.js';
import { startEmulator, type Emulator } from '../packages/emulator/src/index.js';

let em: Emulator;
let c: PlatformClient;
let member: PlatformClient;
const D = 1;

beforeAll(async () => {
  em = await startEmulator({ seed: 'demo', clock: { mode: 'manual' } });
  c = new PlatformClient({ baseUrl: em.baseUrl, apiKey: em.credentials.admin, ca: em.ca });
  member = new PlatformClient({ baseUrl: em.baseUrl, apiKey: em.credentials.member, ca: em.ca });
});

afterAll(async () => {
  await c?.close();
  await member?.close();
  await em?.close();
});

const snapshot = () => JSON.stringify(em.state);

/** Run a request that must be rejected with `cls`, and prove the state did not change. */
async function rejectedUnchanged(call: () => Promise<unknown>, cls: abstract new (...args: never[]) => Error, message?: RegExp): Promise<void> {
  const before = snapshot();
  const error = await call().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(cls);
  if (message) expect((error as Error).message).toMatch(message);
  expect(snapshot()).toBe(before);
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks);
}

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
    expect(noop.externalWorkbookPlacements).toHaveLength(2);
    expect(snapshot()).toBe(before);
    const left = await c.workspace.disconnectReportFromWorkbook({
      deploymentId: D,
      reportId: r.id,
      body: { externalWorkbookId: 'gsheet-1', resultLocation: "'Sheet 1'!B2" },
    });
    expect(left.externalWorkbookPlacements?.map((p) => p.workbookId)).toEqual(['xlsx-9']);
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

describe('embed tenants, users and groups', () => {
  it('lists tenants (admin only); provisions one user idempotently (externalId trimmed and lowercased)', async () => {
    const tenants = await c.embed.listTenants({ query: { search: 'AC' } });
    expect(tenants.items).toEqual([expect.objectContaining({ name: 'acme', userCount: 1 })]);
    await rejectedUnchanged(() => member.embed.listTenants(), PermissionDeniedError);

    const u = await c.embed.provisionUser({ embedTenantName: 'Globex', body: { externalId: ' User-1 ', groups: ['Analytics'] } });
    expect(u).toMatchObject({ externalId: 'user-1', email: 'user-1@cubecloud.dev' });
    const again = await c.embed.provisionUser({ embedTenantName: 'globex', body: { externalId: 'user-1', email: 'U1@Globex.Example' } });
    expect(again).toMatchObject({ id: u.id, email: 'u1@globex.example' });
    const users = await c.embed.listUsers({ embedTenantName: 'globex', query: { search: 'globex' } });
    expect(users.items.map((x) => x.id)).toEqual([u.id]);
    await rejectedUnchanged(() => c.embed.provisionUser({ embedTenantName: 'newco', body: { externalId: 'x', groups: ['No such group'] } }), BadRequestError);
    await expect(c.embed.listUsers({ embedTenantName: 'newco' })).rejects.toBeInstanceOf(NotFoundError);
  });

  it('bulk provisioning reports per-user failures with the single-user status', async () => {
    const out = await c.embed.provisionUsers({
      embedTenantName: 'globex',
      body: {
        users: [
          { externalId: 'bulk-1' },
          { externalId: 'BULK-2', email: 'not-an-email' },
          { externalId: 'bulk-3', tenantGroups: ['missing'] },
          { externalId: 'bulk-4' },
        ],
      },
    });
    expect(out.succeeded.map((x) => x.externalId)).toEqual(['bulk-1', 'bulk-4']);
    expect(out.failed).toEqual([
      { externalId: 'bulk-2', error: { status: 400, message: expect.stringMatching(/email/) } },
      { externalId: 'bulk-3', error: { status: 400, message: expect.stringMatching(/missing/) } },
    ]);
  });

  it('groups: create, 400 for a taken name, get, update description, members add/list/remove, delete 204 only when empty', async () => {
    const g = await c.embed.createGroup({ embedTenantName: 'acme', body: { name: 'analysts', description: 'Data people' } });
    expect(g).toMatchObject({ name: 'analysts', userCount: 0 });
    await rejectedUnchanged(() => c.embed.createGroup({ embedTenantName: 'acme', body: { name: 'analysts' } }), BadRequestError, /already exists/);
    const listed = await c.embed.listGroups({ embedTenantName: 'acme' });
    expect(listed.items[0]?.id).toBe(g.id); // newest first

    const updated = await c.embed.updateGroup({ embedTenantName: 'acme', id: g.id, body: { description: '' } });
    expect(updated.description).toBeNull();

    const ext42 = (await c.embed.listUsers({ embedTenantName: 'acme' })).items.find((u) => u.externalId === 'ext-42');
    const added = await c.embed.addGroupMembers({
      embedTenantName: 'acme',
      id: g.id,
      body: { members: [{ embedUserId: ext42?.id }, { externalId: 'Brand-New' }, { externalId: 'ext-42' }] },
    });
    expect(added.addedMembers.map((u) => u.externalId)).toEqual(['ext-42', 'brand-new']);
    expect(added.unchangedMembers.map((u) => u.externalId)).toEqual(['ext-42']);
    await rejectedUnchanged(
      () => c.embed.addGroupMembers({ embedTenantName: 'acme', id: g.id, body: { members: [{ externalId: 'late-comer' }, { embedUserId: 99999 }] } }),
      NotFoundError,
    );
    const members = await c.embed.listGroupMembers({ embedTenantName: 'acme', id: g.id });
    expect(members.items.map((u) => u.externalId)).toEqual(['brand-new', 'ext-42']); // most recently added first
    expect((await c.embed.getGroup({ embedTenantName: 'ACME', id: g.id })).userCount).toBe(2);

    await rejectedUnchanged(() => c.embed.deleteGroup({ embedTenantName: 'acme', id: g.id }), BadRequestError, /still has/);
    await c.embed.removeGroupMembers({
      embedTenantName: 'acme',
      id: g.id,
      body: { members: [{ externalId: 'brand-new' }, { embedUserId: ext42?.id }, { externalId: 'never-there' }] },
    });
    expect((await c.embed.listGroupMembers({ embedTenantName: 'acme', id: g.id })).items).toEqual([]);
    await expect(c.embed.deleteGroup({ embedTenantName: 'acme', id: g.id })).resolves.toBeUndefined();
    await expect(c.embed.getGroup({ embedTenantName: 'acme', id: g.id })).rejects.toBeInstanceOf(NotFoundError);
    await expect(c.embed.deleteGroup({ embedTenantName: 'acme', id: g.id })).rejects.toBeInstanceOf(NotFoundError);
  });

  it('delete tenant: 204, idempotent, canonical name only', async () => {
    await c.embed.provisionUser({ embedTenantName: 'doomed', body: { externalId: 'd1' } });
    await rejectedUnchanged(() => c.embed.deleteTenant({ embedTenantName: 'Doomed' }), BadRequestError, /canonical/);
    await expect(c.embed.deleteTenant({ embedTenantName: 'doomed' })).resolves.toBeUndefined();
    await expect(c.embed.deleteTenant({ embedTenantName: 'doomed' })).resolves.toBeUndefined();
    await expect(c.embed.listUsers({ embedTenantName: 'doomed' })).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('embed access, embeddable dashboards, comments, sessions', () => {
  it('embed access: grant a tenant and all embed users, toggle allowEmbed; shared workspace and tenant workbooks follow', async () => {
    const before = await c.embed.getAccess({ deploymentId: D, workbookId: 3 });
    expect(before).toMatchObject({ allowEmbed: false, allEmbedUsers: { enabled: false, action: 'none' }, tenants: [] });
    const granted = await c.embed.updateAccess({ deploymentId: D, workbookId: 3, body: { embedTenantName: 'ACME', action: 'read', allowEmbed: true } });
    expect(granted).toMatchObject({ allowEmbed: true, tenants: [{ embedTenantName: 'acme', action: 'read' }] });
    await c.embed.updateAccess({ deploymentId: D, workbookId: 2, body: { allEmbedUsers: true, action: 'read' } });

    const tenantWbs = await c.workspace.listEmbedTenantWorkbooks({ deploymentId: D, embedTenantName: 'acme' });
    expect(tenantWbs.items.map((w) => w.id).sort()).toEqual([2, 3]);
    const direct = await c.workspace.listEmbedTenantWorkbooks({ deploymentId: D, embedTenantName: 'acme', query: { accessSource: 'tenant' } });
    expect(direct.items.map((w) => w.id)).toEqual([3]);
    const shared = await c.workspace.listSharedWorkspace({ deploymentId: D });
    expect(shared.items.map((i) => i.id).sort()).toEqual([2, 3]);

    const revoked = await c.embed.updateAccess({ deploymentId: D, workbookId: 3, body: { embedTenantName: 'acme', action: 'none' } });
    expect(revoked.tenants).toEqual([]);
    await rejectedUnchanged(() => c.embed.updateAccess({ deploymentId: D, workbookId: 3, body: { embedTenantName: 'nobody', action: 'read' } }), NotFoundError);
    const bare = await c.workspace.createWorkbook({ deploymentId: D, body: { name: 'Unpublished' } });
    await rejectedUnchanged(() => c.embed.updateAccess({ deploymentId: D, workbookId: bare.id, body: { allowEmbed: true } }), BadRequestError);
  });

  it('dashboard get and signed-embedding toggle (admin only); python run only over a published snapshot', async () => {
    expect(await c.embed.getDashboard({ publicId: 'wb-pub-1' })).toMatchObject({ publicId: 'wb-pub-1', workbookId: 1 });
    expect(await c.embed.setDashboardEmbedding({ publicId: 'wb-pub-1', body: { allowEmbed: true } })).toEqual({ publicId: 'wb-pub-1', allowEmbed: true });
    expect((await c.embed.getDashboard({ publicId: 'wb-pub-1' })).allowEmbed).toBe(true);
    await rejectedUnchanged(() => member.embed.setDashboardEmbedding({ publicId: 'wb-pub-1', body: { allowEmbed: false } }), PermissionDeniedError);
    await expect(c.embed.getDashboard({ publicId: 'nope' })).rejects.toBeInstanceOf(NotFoundError);
    // The path names no deployment: a key scoped to deployment 1 is refused a dashboard of deployment 2.
    const other = await c.workspace.createWorkbook({ deploymentId: 2, body: { name: 'Other deployment' } });
    const otherDash = await c.workspace.publishDashboard({ deploymentId: 2, workbookId: other.id, body: { workbookId: other.id } });
    const scoped = new PlatformClient({ baseUrl: em.baseUrl, apiKey: em.credentials.scoped, ca: em.ca });
    try {
      expect((await scoped.embed.getDashboard({ publicId: 'wb-pub-1' })).workbookId).toBe(1);
      await rejectedUnchanged(() => scoped.embed.setDashboardEmbedding({ publicId: otherDash.publicId, body: { allowEmbed: true } }), PermissionDeniedError);
    } finally {
      await scoped.close();
    }

    const wb = await c.workspace.createWorkbook({ deploymentId: D, body: { name: 'Python board' } });
    const report = await c.workspace.createReport({ deploymentId: D, body: { name: 'Py', workbookId: wb.id } });
    const dash = await c.workspace.publishDashboard({ deploymentId: D, workbookId: wb.id, body: { workbookId: wb.id } });
    const snapshots = (await c.embed.getDashboard({ publicId: dash.publicId })) as { publicId: string };
    expect(snapshots.publicId).toBe(dash.publicId);
    await rejectedUnchanged(
      () => c.embed.runDashboardPython({ publicId: dash.publicId, body: { reportId: report.id, reportVersionId: 99999, sqlQuery: 'SELECT 1' } }),
      PermissionDeniedError,
    );
    const versionId = (em.state.collections.workbooks?.[String(wb.id)] as { dashboard: { reportSnapshots: { reportVersionId: number }[] } }).dashboard
      .reportSnapshots[0]?.reportVersionId as number;
    const run = await c.embed.runDashboardPython({ publicId: dash.publicId, body: { reportId: report.id, reportVersionId: versionId, sqlQuery: 'SELECT 1' } });
    expect(run).toMatchObject({ inputRowCount: 0, stderr: '', executionError: null });
  });

  it('comments: thread, reply, edit, resolve (root only), soft delete; author only; mentionable users', async () => {
    const root = await c.embed.createComment({ publicId: 'wb-pub-2', body: { body: 'Why did revenue drop?' } });
    expect(root).toMatchObject({ dashboardId: 'wb-pub-2', isOwn: true });
    const reply = await c.embed.createComment({ publicId: 'wb-pub-2', body: { body: 'Holidays', parentId: root.id } });
    await rejectedUnchanged(() => c.embed.createComment({ publicId: 'wb-pub-2', body: { body: 'nested', parentId: reply.id } }), BadRequestError);
    await rejectedUnchanged(() => c.embed.createComment({ publicId: 'wb-pub-3', body: { body: 'elsewhere', parentId: root.id } }), NotFoundError);
    await rejectedUnchanged(() => member.embed.updateComment({ publicId: 'wb-pub-2', commentId: root.id, body: { body: 'hijack' } }), PermissionDeniedError);

    const edited = await c.embed.updateComment({ publicId: 'wb-pub-2', commentId: reply.id, body: { body: 'Holidays, mostly' } });
    expect(edited.editedAt).toEqual(expect.any(String));
    await expect(c.embed.resolveComment({ publicId: 'wb-pub-2', commentId: reply.id, body: { resolved: true } })).rejects.toBeInstanceOf(BadRequestError);
    const resolved = await c.embed.resolveComment({ publicId: 'wb-pub-2', commentId: root.id, body: { resolved: true } });
    expect(resolved).toMatchObject({ resolvedAt: expect.any(String), replies: [expect.objectContaining({ body: 'Holidays, mostly' })] });

    expect((await c.embed.listComments({ publicId: 'wb-pub-2' })).items).toEqual([]);
    expect((await c.embed.listComments({ publicId: 'wb-pub-2', query: { includeResolved: true } })).items).toHaveLength(1);
    expect((await c.embed.listComments({ publicId: 'wb-pub-2', query: { resolvedOnly: true } })).items).toHaveLength(1);

    await c.embed.removeComment({ publicId: 'wb-pub-2', commentId: reply.id });
    const thread = (await c.embed.listComments({ publicId: 'wb-pub-2', query: { includeResolved: true } })).items[0];
    expect(thread?.replies[0]).toMatchObject({ body: '', removedAt: expect.any(String) });
    await c.embed.removeComment({ publicId: 'wb-pub-2', commentId: root.id });
    expect((await c.embed.listComments({ publicId: 'wb-pub-2', query: { includeResolved: true } })).items).toEqual([]);

    await c.embed.updateAccess({ deploymentId: D, workbookId: 1, body: { embedTenantName: 'acme', action: 'read' } });
    const mentionable = await c.embed.listMentionableUsers({ publicId: 'wb-pub-1', query: { search: 'ext' } });
    expect(mentionable.items.map((u) => u.username)).toEqual(['ext-42']);
  });

  it('sessions: generate (admin), exchange once for a 24 h JWT, revoke is idempotent 204', async () => {
    const { sessionId } = await c.embed.generateSession({
      body: {
        deploymentId: D,
        embedTenantName: 'acme',
        externalId: 'session-user',
        creatorMode: true,
        tenantGroups: ['editors'],
        tenantGroupDefinitions: [{ name: 'editors' }],
      },
    });
    expect(sessionId).toMatch(/^[0-9a-f]{32}$/);
    expect((await c.embed.listGroups({ embedTenantName: 'acme' })).items.map((g) => g.name)).toContain('editors');
    const { token } = await c.embed.sessionToken({ body: { sessionId } });
    const payload = JSON.parse(Buffer.from(token.split('.')[1] as string, 'base64url').toString('utf8')) as {
      exp: number;
      iat: number;
      iss: string;
      sub: string;
    };
    expect(payload).toMatchObject({ iss: 'cubecloud', sub: 'session-user' });
    expect(payload.exp - payload.iat).toBe(24 * 3600);
    await rejectedUnchanged(() => c.embed.sessionToken({ body: { sessionId } }), AuthenticationError);

    const second = await c.embed.generateSession({ body: { deploymentId: D } });
    await expect(c.embed.revokeSession({ body: { sessionId: second.sessionId } })).resolves.toBeUndefined();
    await expect(c.embed.revokeSession({ body: { sessionId: second.sessionId } })).resolves.toBeUndefined();
    await expect(c.embed.revokeSession({ body: { sessionId: 'f'.repeat(32) } })).resolves.toBeUndefined();
    await expect(c.embed.sessionToken({ body: { sessionId: second.sessionId } })).rejects.toBeInstanceOf(AuthenticationError);

    await rejectedUnchanged(() => c.embed.generateSession({ body: { deploymentId: 99 } }), NotFoundError);
    await rejectedUnchanged(() => c.embed.generateSession({ body: { deploymentId: D, branchName: 'no-such-branch' } }), NotFoundError);
    await rejectedUnchanged(
      () => c.embed.generateSession({ body: { deploymentId: D, embedTenantName: 'acme', tenantGroups: ['editors'] } }),
      BadRequestError,
      /creatorMode/,
    );
    await rejectedUnchanged(() => member.embed.generateSession({ body: { deploymentId: D } }), PermissionDeniedError);
  });
});

describe('tenant settings and integrations', () => {
  it('settings: GET, PUT merges the fields sent', async () => {
    const s = await c.tenant.getSettings();
    expect(s).toMatchObject({ auditLogEnabled: true, maintenanceWindowEnabled: false });
    const u = await c.tenant.updateSettings({ body: { maintenanceWindowEnabled: true, maintenanceWindowDay: 'saturday', maintenanceWindowTime: '03:30' } });
    expect(u).toMatchObject({
      auditLogEnabled: true,
      maintenanceWindowEnabled: true,
      maintenanceWindowDay: 'SATURDAY',
      maintenanceWindowTime: '03:30',
      oidcEnabled: false,
    });
    const v = await c.tenant.updateSettings({ body: { oidcEnabled: true } });
    expect(v).toMatchObject({ maintenanceWindowDay: 'SATURDAY', oidcEnabled: true });
    await rejectedUnchanged(() => c.tenant.updateSettings({ body: { maintenanceWindowTime: '25:00', oidcEnabled: false } }), BadRequestError);
  });

  it('OAuth integrations: CRUD; the client secret never comes back; 409 for a taken name', async () => {
    const input = {
      name: 'BigQuery',
      type: 'bigquery',
      clientId: 'bq-client',
      clientSecret: 'super-secret-value',
      authUrl: 'https://accounts.example/auth',
      tokenUrl: 'https://accounts.example/token',
      redirectUri: 'https://cube.example/callback',
      scopes: ['read'],
    };
    const created = await c.tenant.createOAuthIntegration({ body: input });
    expect(created).toMatchObject({ name: 'BigQuery', clientId: 'bq-client' });
    expect(created.clientSecret).toBeUndefined();
    await rejectedUnchanged(() => c.tenant.createOAuthIntegration({ body: input }), ConflictError);
    const updated = await c.tenant.updateOAuthIntegration({ id: created.id, body: { ...input, clientSecret: undefined, name: 'BigQuery prod' } });
    expect(updated.name).toBe('BigQuery prod');
    const stored = em.state.collections.oauthIntegrations?.[String(created.id)] as { clientSecret: string };
    expect(stored.clientSecret).toBe('super-secret-value'); // omitted secret kept
    const listed = await c.tenant.listOAuthIntegrations();
    expect(JSON.stringify(listed)).not.toMatch(/secret-value|seed-secret/);
    expect(await c.tenant.getOAuthIntegration({ id: created.id })).toMatchObject({ name: 'BigQuery prod' });
    await c.tenant.deleteOAuthIntegration({ id: created.id });
    await expect(c.tenant.getOAuthIntegration({ id: created.id })).rejects.toBeInstanceOf(NotFoundError);
  });

  it("user OAuth tokens: the caller's list, get, initiate (authorization URL), revoke", async () => {
    const tokens = await c.tenant.listUserOAuthTokens();
    expect(tokens).toEqual([expect.objectContaining({ integrationId: 1, status: 'ACTIVE' })]);
    expect(await member.tenant.listUserOAuthTokens()).toEqual([]);
    expect(await c.tenant.getUserOAuthToken({ integrationId: 1 })).toMatchObject({ integrationId: 1 });
    await expect(member.tenant.getUserOAuthToken({ integrationId: 1 })).rejects.toBeInstanceOf(NotFoundError);
    const flow = (await c.tenant.initiateOAuthFlow({ integrationId: 1 })) as { authorizationUrl: string };
    const url = new URL(flow.authorizationUrl);
    expect(url.origin + url.pathname).toBe('https://acme.snowflakecomputing.com/oauth/authorize');
    expect(url.searchParams.get('client_id')).toBe('snowflake-client-id');
    expect(url.searchParams.get('state')).toMatch(/^[0-9a-f]{32}$/);
    await expect(c.tenant.initiateOAuthFlow({ integrationId: 999 })).rejects.toBeInstanceOf(NotFoundError);
    await c.tenant.revokeUserOAuthToken({ integrationId: 1 });
    await expect(c.tenant.getUserOAuthToken({ integrationId: 1 })).rejects.toBeInstanceOf(NotFoundError);
  });

  it('OIDC token configs: CRUD, audience derived, 409 for a taken name, 400 for a bad env var name', async () => {
    const seeded = await c.tenant.listOidcTokenConfigs();
    expect(seeded.map((o) => o.name)).toEqual(['aws-default']);
    const created = await c.tenant.createOidcTokenConfig({ body: { audienceType: 'custom', customAudience: 'https://vault.example', name: 'vault' } });
    expect(created).toMatchObject({ audience: 'https://vault.example', isEnabled: true });
    await rejectedUnchanged(() => c.tenant.createOidcTokenConfig({ body: { audienceType: 'aws', name: 'vault' } }), ConflictError);
    // The vendor's pattern is checked before sending; the emulator refuses the same value with a 400.
    await rejectedUnchanged(() => c.tenant.createOidcTokenConfig({ body: { audienceType: 'aws', targetEnvVar: 'lower-case' } }), InputError);
    const raw = { method: 'POST' as const, path: '/api/v1/oidc-token-configs', json: { audienceType: 'aws', targetEnvVar: 'lower-case' } };
    await rejectedUnchanged(() => c.http.send(raw), BadRequestError);
    const updated = await c.tenant.updateOidcTokenConfig({ id: created.id, body: { isEnabled: false, targetEnvVar: 'VAULT_TOKEN' } });
    expect(updated).toMatchObject({ isEnabled: false, targetEnvVar: 'VAULT_TOKEN', name: 'vault' });
    expect(await c.tenant.getOidcTokenConfig({ id: created.id })).toEqual(updated);
    await c.tenant.deleteOidcTokenConfig({ id: created.id });
    await expect(c.tenant.getOidcTokenConfig({ id: created.id })).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('GitHub discovery and app config', () => {
  it('status, installations, repositories, branches; unknown installation is a 404', async () => {
    expect(await c.github.status()).toMatchObject({ connected: true });
    const installations = await collect(c.github.iterateInstallations({ query: { first: 1 } }));
    expect(installations.map((i) => i.login)).toEqual(['acme-analytics', 'ada']);
    const repos = await c.github.repositories({ installationId: 1001 });
    expect(repos.items.map((r) => r.name)).toEqual(['data-model', 'dbt-project', 'dashboards']);
    const branches = await c.github.branches({ owner: 'acme-analytics', repo: 'data-model', query: { installationId: 1001 } });
    expect(branches.items.filter((b) => b.isDefault).map((b) => b.name)).toEqual(['main']);
    await expect(c.github.repositories({ installationId: 4242 })).rejects.toBeInstanceOf(NotFoundError);
    await expect(c.github.branches({ owner: 'acme-analytics', repo: 'data-model', query: { installationId: 4242 } })).rejects.toBeInstanceOf(NotFoundError);
    await expect(c.github.branches({ owner: 'ada', repo: 'data-model', query: { installationId: 1002 } })).rejects.toBeInstanceOf(NotFoundError);
  });

  it('app config and theme (palette and logoUrl)', async () => {
    const config = await c.app.config();
    expect(config).toMatchObject({ applyThemeGlobally: false, restrictDataDownload: false, sheetsAgentChatEnabled: false });
    const theme = await c.app.theme();
    expect(theme.palette).toMatchObject({ accent: { color: expect.any(String) } });
    expect(theme.logoUrl).toBe(`${em.baseUrl}/static/logo.svg`);
  });
});
