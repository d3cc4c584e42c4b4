/**
 * Workspace content of a deployment: folders, workbooks and their dashboards, reports and their
 * spreadsheet placements, the unified workspace feed with move and bulk operations, dashboard
 * exports and Databricks metric-view publication (spec 4.15, sections 8 and 9).
 */
import { z } from 'zod';
import type { Readable } from 'node:stream';
import { endpoint, type ArgsOf } from '../endpoint.js';
import { InputError } from '../input.js';
import {
  CursorQuery,
  DashboardFilter,
  DashboardTimeGrain,
  DeploymentParams,
  Int,
  Name,
  NonNegInt,
  PosInt,
  cursorPage,
} from '../schemas.js';
import { BulkActionError, Unspecified } from './area-helpers.js';

const DEP = '/api/v1/deployments/{deploymentId}';

// ---------------------------------------------------------------------------------------------
// Records.

export const WorkspaceItemType = z.enum(['FOLDER', 'WORKBOOK', 'REPORT']);
export type WorkspaceItemType = z.infer<typeof WorkspaceItemType>;

/** One entry of the unified workspace feed (a folder, workbook or report). */
export const WorkspaceItem = z.looseObject({
  id: z.number().int(),
  name: z.string(),
  type: z.string(),
});
export type WorkspaceItem = z.infer<typeof WorkspaceItem>;

export const Folder = z.looseObject({
  id: z.number().int(),
  name: z.string(),
  parentId: z.number().int().nullish(),
  position: z.number().int().nullish(),
  deploymentId: z.number().int().optional(),
});
export type Folder = z.infer<typeof Folder>;

/** A dashboard as a workbook publishes it (vendor `Dashboard`), lean. */
export const PublishedDashboard = z.looseObject({
  id: z.number().int(),
  publicId: z.string(),
  allowEmbed: z.boolean(),
  workbookId: z.number().int(),
  title: z.string().nullish(),
  config: z.looseObject({}).nullish(),
});
export type PublishedDashboard = z.infer<typeof PublishedDashboard>;

export const Workbook = z.looseObject({
  id: z.number().int(),
  name: z.string(),
  slug: z.string().nullish(),
  folderId: z.number().int().nullish(),
  deploymentId: z.number().int().optional(),
  meta: z.record(z.string(), z.unknown()).nullish(),
  publishedDashboard: PublishedDashboard.nullish(),
});
export type Workbook = z.infer<typeof Workbook>;

export const WorkbookDashboard = z.looseObject({
  dashboardDraft: z.looseObject({}).nullish(),
  dashboardPublished: z.looseObject({}).nullish(),
});

export const ReportHost = z.enum(['GOOGLE_SHEETS', 'EXCEL']);
export const ReportSource = z.enum(['GOOGLE_SHEETS', 'EXCEL', 'PLAYGROUND', 'D3']);

/** One placement of a report in a spreadsheet. */
export const ReportPlacement = z.looseObject({
  workbookId: z.string(),
  resultLocation: z.string(),
  id: z.string().nullish(),
  host: z.string().nullish(),
  sheetName: z.string().nullish(),
  anchorCell: z.string().nullish(),
});

export const Report = z.looseObject({
  id: z.number().int(),
  name: z.string(),
  publicId: z.string(),
  workbookId: z.number().int().nullish(),
  folderId: z.number().int().nullish(),
  externalWorkbookPlacements: z.array(ReportPlacement).nullish(),
});
export type Report = z.infer<typeof Report>;

// ---------------------------------------------------------------------------------------------
// Parameters and queries.

export const FolderParams = z.object({ deploymentId: PosInt, folderId: PosInt });
export const WorkbookParams = z.object({ deploymentId: PosInt, workbookId: PosInt });
export const ReportParams = z.object({ deploymentId: PosInt, reportId: PosInt });
/** The slug is normalized by the platform (trimmed, lowercased); any text is sent, encoded. */
export const SlugParams = z.object({ deploymentId: PosInt, slug: Name });

/** A report's portable id: 12 characters of `[0-9A-Za-z]`, minted by the author. */
export const ReportPublicId = z.string().regex(/^[0-9A-Za-z]{12}$/, 'a 12-character [0-9A-Za-z] publicId');
export const ReportPublicIdParams = z.object({ deploymentId: PosInt, publicId: ReportPublicId });

export const ListFoldersQuery = CursorQuery.extend({ parentId: NonNegInt.optional() });
export const ListWorkbooksQuery = CursorQuery.extend({ folderId: NonNegInt.optional() });

export const ReportSortBy = z.enum(['name', 'createdAt', 'updatedAt', 'lastViewedAt']);

/** Section 8: cursor pagination is not available when sorting by `lastViewedAt`. */
export const ListReportsQuery = CursorQuery.extend({
  workbookId: Int.optional(),
  folderId: Int.optional(),
  externalWorkbookId: z.string().optional(),
  search: z.string().optional(),
  sortBy: ReportSortBy.optional(),
  sortDirection: z.enum(['ASC', 'DESC']).optional(),
  /** Legacy page-number paging (the only paging when sorting by lastViewedAt). */
  limit: PosInt.optional(),
  page: PosInt.optional(),
}).refine((q) => !(q.sortBy === 'lastViewedAt' && q.after !== undefined), {
  message: 'no cursor with sortBy=lastViewedAt (cursor pagination is not available for that sort)',
  path: ['after'],
});

export const ListWorkspaceQuery = CursorQuery.extend({
  folderId: Int.optional(),
  types: z.array(WorkspaceItemType).optional(),
  search: z.string().optional(),
  orderByField: z.enum(['updated_at', 'created_at', 'name', 'viewer_last_viewed_at']).optional(),
  orderByDirection: z.enum(['ASC', 'DESC']).optional(),
});

export const EmbedTenantWorkbooksParams = z.object({ deploymentId: PosInt, embedTenantName: Name });
export const EmbedTenantWorkbooksQuery = CursorQuery.extend({
  accessSource: z.enum(['tenant', 'allEmbedUsers', 'folder']).optional(),
});

// ---------------------------------------------------------------------------------------------
// Inputs.

export const CreateFolderInput = z.looseObject({
  name: z.string().min(1),
  parentId: z.number().int().nullish(),
  position: z.number().int().nullish(),
});

/** Renames or reorders only; to re-parent use the workspace move. */
export const UpdateFolderInput = z.looseObject({
  name: z.string().min(1).nullish(),
  position: z.number().int().nullish(),
});

export const CreateWorkbookInput = z.looseObject({
  name: z.string().nullish(),
  folderId: z.number().int().nullish(),
  meta: z.record(z.string(), z.unknown()).nullish(),
});

export const UpdateWorkbookInput = z.looseObject({
  name: z.string().nullish(),
  /** `null` moves the workbook to the workspace root. */
  folderId: z.number().int().nullish(),
  meta: z.record(z.string(), z.unknown()).nullish(),
  slug: z.string().nullish(),
  slugTakeover: z.boolean().nullish(),
});

export const WorkbookDashboardInput = z.looseObject({ dashboardDraft: z.looseObject({}).nullish() });

export const PublishDashboardInput = z.looseObject({
  workbookId: z.number().int(),
  dashboardId: z.number().int().nullish(),
  title: z.string().nullish(),
  description: z.string().nullish(),
  allowEmbed: z.boolean().nullish(),
  config: z.looseObject({}).nullish(),
});

export const AiWidgetThreadInput = z.looseObject({
  widgetId: z.string().min(1),
  threadId: z.string().min(1),
  checksum: z.string().nullish(),
});

const ResultChecksumInput = z.looseObject({
  v: z.number().int().min(1),
  chunks: z.array(z.looseObject({ from: z.number().int().min(0), hash: z.string(), to: z.number().int().min(0).nullish() })),
});

/** Create and upsert-by-publicId body (vendor `CreateReportInput`). */
export const CreateReportInput = z.looseObject({
  name: z.string().nullish(),
  title: z.string().nullish(),
  publicId: ReportPublicId.nullish(),
  workbookId: z.number().int().nullish(),
  folderId: z.number().int().nullish(),
  sqlQuery: z.string().nullish(),
  jsonQuery: z.string().nullish(),
  meta: z.record(z.string(), z.unknown()).nullish(),
  source: ReportSource.nullish(),
  host: ReportHost.nullish(),
  externalWorkbookId: z.string().nullish(),
  workbookName: z.string().nullish(),
  resultLocation: z.string().nullish(),
  resultChecksum: ResultChecksumInput.nullish(),
});

/** All optional; `publicId` is write-once. */
export const UpdateReportInput = CreateReportInput.omit({ source: true }).extend({ placementId: z.string().nullish() });

/** Record one placement (workbook id + result location) in the caller's spreadsheet. */
export const ConnectReportInput = z.looseObject({
  externalWorkbookId: z.string().min(1),
  resultLocation: z.string().min(1),
  host: ReportHost.nullish(),
  placementId: z.string().nullish(),
  sheetId: z.string().nullish(),
  sheetName: z.string().nullish(),
  anchorCell: z.string().nullish(),
  endResultCell: z.string().nullish(),
  workbookName: z.string().nullish(),
  addressOnly: z.boolean().nullish(),
  resultChecksum: ResultChecksumInput.nullish(),
});

/** Address one placement: `placementId`, or workbook + sheet name + anchor (or a resultLocation naming both). */
export const PlacementAddressInput = z.looseObject({
  placementId: z.string().nullish(),
  externalWorkbookId: z.string().nullish(),
  resultLocation: z.string().nullish(),
  sheetId: z.string().nullish(),
  sheetName: z.string().nullish(),
  anchorCell: z.string().nullish(),
});

export const RefreshReportInput = PlacementAddressInput.extend({
  host: ReportHost.nullish(),
  resultChecksum: ResultChecksumInput.nullish(),
});

export const WorkspaceItemRefInput = z.looseObject({ type: WorkspaceItemType, id: z.number().int().positive() });

export const MoveWorkspaceItemInput = WorkspaceItemRefInput.extend({
  /** Destination folder, or `null` for the workspace root. */
  folderId: z.number().int().nullish(),
});

/** Up to 100 items a request, types mixed freely; repeats are collapsed by the platform. */
export const BulkDeleteWorkspaceInput = z.looseObject({ items: z.array(WorkspaceItemRefInput).min(1).max(100) });
export const BulkMoveWorkspaceInput = z.looseObject({
  items: z.array(WorkspaceItemRefInput).min(1).max(100),
  folderId: z.number().int().nullish(),
});

export const WorkspaceItemRef = z.looseObject({ type: z.string(), id: z.number().int() });
export const WorkspaceBulkFailure = z.looseObject({ type: z.string(), id: z.number().int(), error: BulkActionError });
export type WorkspaceBulkFailure = z.infer<typeof WorkspaceBulkFailure>;

/** Partial success: what was deleted, and the per-item failures. */
export const BulkDeleteWorkspaceResult = z.looseObject({
  deleted: z.array(WorkspaceItemRef),
  failed: z.array(WorkspaceBulkFailure),
});
export type BulkDeleteWorkspaceResult = z.infer<typeof BulkDeleteWorkspaceResult>;

/** Partial success: the moved items (as the single move returns them), and the per-item failures. */
export const BulkMoveWorkspaceResult = z.looseObject({
  moved: z.array(WorkspaceItem),
  failed: z.array(WorkspaceBulkFailure),
});
export type BulkMoveWorkspaceResult = z.infer<typeof BulkMoveWorkspaceResult>;

// ---------------------------------------------------------------------------------------------
// Dashboard exports.

export const StartDashboardExportInput = z
  .looseObject({
    dashboardId: z.number().int().positive().nullish(),
    dashboardPublicId: z.string().min(1).nullish(),
    format: z.enum(['png', 'pdf']),
    filters: z.array(DashboardFilter).nullish(),
    timeGrains: z.array(DashboardTimeGrain).nullish(),
    memberSwitchers: z.array(z.looseObject({ member: z.string(), selected: z.string() })).nullish(),
    renderAs: z.looseObject({ type: z.enum(['USER', 'EMBED_USER']) }).nullish(),
  })
  .refine((b) => (b.dashboardId != null) !== (b.dashboardPublicId != null), {
    message: 'exactly one of dashboardId or dashboardPublicId',
    path: ['dashboardId'],
  });

export const DashboardExportJob = z.looseObject({ jobId: z.string(), expiresAt: z.string() });
export const DashboardExportStatus = z.looseObject({
  status: z.string(),
  progress: z.number().nullish(),
  error: z.string().nullish(),
  contentType: z.string().nullish(),
});
export type DashboardExportStatus = z.infer<typeof DashboardExportStatus>;
export const ExportJobParams = z.object({ deploymentId: PosInt, jobId: Name });

// ---------------------------------------------------------------------------------------------
// Databricks metric views (preview feature).

export const MetricViewSelectionMode = z.enum(['all', 'selected', 'pattern']);
export const MetricViewIntegrationParams = z.object({ deploymentId: PosInt, dataSourceName: Name });
export const MetricViewPreviewParams = z.object({ deploymentId: PosInt, previewId: Name });

export const MetricViewIntegration = z.looseObject({
  dataSourceName: z.string(),
  deploymentId: z.number().int(),
  configurationVersion: z.number().int(),
  configuration: z.looseObject({}),
});

/** Optimistic versioning: `expectedConfigurationVersion` 0 creates. */
export const SaveMetricViewIntegrationInput = z.looseObject({
  enabled: z.boolean(),
  expectedConfigurationVersion: z.number().int().min(0),
  selectionMode: MetricViewSelectionMode,
  targetCatalog: z.string().min(1),
  targetSchema: z.string().min(1),
  deletionPolicy: z.enum(['retain', 'delete-managed']).optional(),
});

export const StartMetricViewPreviewInput = z.looseObject({
  dataSourceName: z.string().min(1),
  selectionMode: MetricViewSelectionMode,
});

export const MetricViewPreviewStarted = z.looseObject({
  previewId: z.string(),
  status: z.string(),
  statusUrl: z.string(),
  resultUrl: z.string(),
  reused: z.boolean(),
});

export const MetricViewPreviewStatus = z.looseObject({
  previewId: z.string(),
  status: z.string(),
  resultAvailable: z.boolean(),
  error: z.string().nullish(),
});

export const MetricViewPreviewResult = z.looseObject({
  previewId: z.string(),
  outcome: z.string(),
  views: z.array(z.looseObject({ metricViewName: z.string(), outcome: z.string() })),
});

// ---------------------------------------------------------------------------------------------

export const workspaceEndpoints = {
  listFolders: endpoint({
    id: 'getFolders',
    method: 'GET',
    path: `${DEP}/folders`,
    section: '4.15',
    summary: 'List one level of folders (root, or the children of parentId)',
    params: DeploymentParams,
    query: ListFoldersQuery,
    response: cursorPage(Folder),
    pagination: 'cursor',
  }),
  createFolder: endpoint({
    id: 'createFolder',
    method: 'POST',
    path: `${DEP}/folders`,
    section: '4.15',
    summary: 'Create a folder',
    params: DeploymentParams,
    body: CreateFolderInput,
    response: Folder,
  }),
  updateFolder: endpoint({
    id: 'updateFolder',
    method: 'PUT',
    path: `${DEP}/folders/{folderId}`,
    section: '4.15',
    summary: 'Rename or reorder a folder',
    params: FolderParams,
    body: UpdateFolderInput,
    response: Folder,
  }),
  deleteFolder: endpoint({
    id: 'deleteFolder',
    method: 'DELETE',
    path: `${DEP}/folders/{folderId}`,
    section: '4.15',
    summary: 'Delete a folder without sub-folders (its content returns to the root)',
    params: FolderParams,
    response: Unspecified,
    responseType: 'empty',
    status: 204,
  }),
  folderAncestors: endpoint({
    id: 'getFolderAncestors',
    method: 'GET',
    path: `${DEP}/folders/{folderId}/ancestors`,
    section: '4.15',
    summary: 'Ancestor chain of a folder, root first, the folder last',
    params: FolderParams,
    response: z.array(Folder),
  }),
  listWorkbooks: endpoint({
    id: 'getWorkbooks',
    method: 'GET',
    path: `${DEP}/workbooks`,
    section: '4.15',
    summary: 'List workbooks',
    params: DeploymentParams,
    query: ListWorkbooksQuery,
    response: cursorPage(Workbook),
    pagination: 'cursor',
  }),
  createWorkbook: endpoint({
    id: 'createWorkbook',
    method: 'POST',
    path: `${DEP}/workbooks`,
    section: '4.15',
    summary: 'Create a workbook',
    params: DeploymentParams,
    body: CreateWorkbookInput.optional(),
    response: Workbook,
  }),
  upsertWorkbookBySlug: endpoint({
    id: 'upsertWorkbookBySlug',
    method: 'PUT',
    path: `${DEP}/workbooks/by-slug/{slug}`,
    section: '4.15',
    summary: 'Create or update a workbook keyed by its slug (409 upsert_branch_changed is transient)',
    params: SlugParams,
    body: CreateWorkbookInput.optional(),
    response: Workbook,
  }),
  getWorkbook: endpoint({
    id: 'getWorkbook',
    method: 'GET',
    path: `${DEP}/workbooks/{workbookId}`,
    section: '4.15',
    summary: 'Get a workbook',
    params: WorkbookParams,
    response: Workbook,
  }),
  updateWorkbook: endpoint({
    id: 'updateWorkbook',
    method: 'PUT',
    path: `${DEP}/workbooks/{workbookId}`,
    section: '4.15',
    summary: 'Rename, move (folderId) or replace the metadata of a workbook',
    params: WorkbookParams,
    body: UpdateWorkbookInput,
    response: Unspecified,
  }),
  deleteWorkbook: endpoint({
    id: 'deleteWorkbook',
    method: 'DELETE',
    path: `${DEP}/workbooks/{workbookId}`,
    section: '4.15',
    summary: 'Delete a workbook',
    params: WorkbookParams,
    response: Unspecified,
  }),
  updateWorkbookDashboard: endpoint({
    id: 'updateWorkbookDashboard',
    method: 'PUT',
    path: `${DEP}/workbooks/{workbookId}/dashboard`,
    section: '4.15',
    summary: 'Save a workbook’s dashboard draft',
    params: WorkbookParams,
    body: WorkbookDashboardInput,
    response: WorkbookDashboard,
  }),
  updateDashboardAiWidgetThread: endpoint({
    id: 'updatePublishedDashboardAiWidgetThread',
    method: 'POST',
    path: `${DEP}/workbooks/{workbookId}/dashboard/ai-widget-thread`,
    section: '4.15',
    summary: 'Attach a thread to an AI widget of the published dashboard',
    params: WorkbookParams,
    body: AiWidgetThreadInput,
    response: PublishedDashboard,
  }),
  duplicateWorkbook: endpoint({
    id: 'duplicateWorkbook',
    method: 'POST',
    path: `${DEP}/workbooks/{workbookId}/duplicate`,
    section: '4.15',
    summary: 'Clone a workbook with its reports and published dashboard (sharing not copied)',
    params: WorkbookParams,
    body: z.looseObject({ shared: z.boolean().nullish() }).optional(),
    response: Workbook,
  }),
  publishDashboard: endpoint({
    id: 'publishDashboard',
    method: 'POST',
    path: `${DEP}/workbooks/{workbookId}/publish`,
    section: '4.15',
    summary: 'Publish a workbook’s dashboard',
    params: WorkbookParams,
    body: PublishDashboardInput,
    response: PublishedDashboard,
  }),
  listReports: endpoint({
    id: 'getReports',
    method: 'GET',
    path: `${DEP}/reports`,
    section: '4.15',
    summary: 'List the reports the caller can access (no cursor when sorting by lastViewedAt)',
    params: DeploymentParams,
    query: ListReportsQuery,
    response: cursorPage(Report),
    pagination: 'cursor',
  }),
  createReport: endpoint({
    id: 'createReport',
    method: 'POST',
    path: `${DEP}/reports`,
    section: '4.15',
    summary: 'Create a report (optionally with an author-minted publicId)',
    params: DeploymentParams,
    body: CreateReportInput,
    response: Report,
  }),
  upsertReportByPublicId: endpoint({
    id: 'upsertReportByPublicId',
    method: 'PUT',
    path: `${DEP}/reports/by-public-id/{publicId}`,
    section: '4.15',
    summary: 'Create or update a report keyed by its publicId (409 upsert_branch_changed is transient)',
    params: ReportPublicIdParams,
    body: CreateReportInput,
    response: Report,
  }),
  getReport: endpoint({
    id: 'getReport',
    method: 'GET',
    path: `${DEP}/reports/{reportId}`,
    section: '4.15',
    summary: 'Get a report',
    params: ReportParams,
    response: Report,
  }),
  updateReport: endpoint({
    id: 'updateReport',
    method: 'PUT',
    path: `${DEP}/reports/{reportId}`,
    section: '4.15',
    summary: 'Update a report (publicId write-once)',
    params: ReportParams,
    body: UpdateReportInput,
    response: Report,
  }),
  deleteReport: endpoint({
    id: 'deleteReport',
    method: 'DELETE',
    path: `${DEP}/reports/{reportId}`,
    section: '4.15',
    summary: 'Delete a report',
    params: ReportParams,
    response: Unspecified,
  }),
  connectReportToWorkbook: endpoint({
    id: 'connectReportToWorkbook',
    method: 'PUT',
    path: `${DEP}/reports/{reportId}/connect-workbook`,
    section: '4.15',
    summary: 'Record a placement of a report in the caller’s spreadsheet (GOOGLE_SHEETS or EXCEL)',
    params: ReportParams,
    body: ConnectReportInput,
    response: Report,
  }),
  disconnectReportFromWorkbook: endpoint({
    id: 'disconnectReportFromWorkbook',
    method: 'DELETE',
    path: `${DEP}/reports/{reportId}/connect-workbook`,
    section: '4.15',
    summary: 'Remove one placement of a report (a target matching nothing changes nothing)',
    params: ReportParams,
    body: PlacementAddressInput,
    response: Report,
  }),
  refreshReport: endpoint({
    id: 'refreshReport',
    method: 'PUT',
    path: `${DEP}/reports/{reportId}/refresh`,
    section: '4.15',
    summary: 'Record a refresh of a report placement',
    params: ReportParams,
    body: RefreshReportInput.optional(),
    response: Report,
  }),
  listWorkspace: endpoint({
    id: 'workspaceObjects',
    method: 'GET',
    path: `${DEP}/workspace`,
    section: '4.15',
    summary: 'Unified feed of folders, workbooks and reports (folders first)',
    params: DeploymentParams,
    query: ListWorkspaceQuery,
    response: cursorPage(WorkspaceItem),
    pagination: 'cursor',
  }),
  listSharedWorkspace: endpoint({
    id: 'sharedWorkspaceObjects',
    method: 'GET',
    path: `${DEP}/shared-workspace`,
    section: '4.15',
    summary: 'Workspace items shared with embed users',
    params: DeploymentParams,
    query: ListWorkspaceQuery,
    response: cursorPage(WorkspaceItem),
    pagination: 'cursor',
  }),
  moveWorkspaceItem: endpoint({
    id: 'moveWorkspaceObject',
    method: 'POST',
    path: `${DEP}/workspace/move`,
    section: '4.15',
    summary: 'Move a folder, workbook or report into a folder (null: the root)',
    params: DeploymentParams,
    body: MoveWorkspaceItemInput,
    response: WorkspaceItem,
  }),
  bulkDelete: endpoint({
    id: 'bulkDeleteWorkspaceObjects',
    method: 'POST',
    path: `${DEP}/workspace/bulk-delete`,
    section: '4.15',
    summary: 'Delete up to 100 folders, workbooks and reports; failures reported per item',
    params: DeploymentParams,
    body: BulkDeleteWorkspaceInput,
    response: BulkDeleteWorkspaceResult,
  }),
  bulkMove: endpoint({
    id: 'bulkMoveWorkspaceObjects',
    method: 'POST',
    path: `${DEP}/workspace/bulk-move`,
    section: '4.15',
    summary: 'Move up to 100 folders, workbooks and reports into one folder; failures reported per item',
    params: DeploymentParams,
    body: BulkMoveWorkspaceInput,
    response: BulkMoveWorkspaceResult,
  }),
  listEmbedTenantWorkbooks: endpoint({
    id: 'listEmbedTenantWorkbooks',
    method: 'GET',
    path: `${DEP}/embed-tenants/{embedTenantName}/workbooks`,
    section: '4.15',
    summary: 'Workbooks an embed tenant can access (accessSource: tenant, allEmbedUsers, folder)',
    params: EmbedTenantWorkbooksParams,
    query: EmbedTenantWorkbooksQuery,
    response: cursorPage(Workbook),
    pagination: 'cursor',
    access: { admin: true },
  }),
  startDashboardExport: endpoint({
    id: 'startExport',
    method: 'POST',
    path: `${DEP}/dashboard-exports`,
    section: '4.15',
    summary: 'Submit a PNG or PDF render of a published dashboard',
    params: DeploymentParams,
    body: StartDashboardExportInput,
    response: DashboardExportJob,
  }),
  dashboardExportStatus: endpoint({
    id: 'getExportStatus',
    method: 'GET',
    path: `${DEP}/dashboard-exports/{jobId}`,
    section: '4.15',
    summary: 'Progress of a render (pending, processing, completed, failed)',
    params: ExportJobParams,
    response: DashboardExportStatus,
  }),
  /** Binary (PNG or PDF) stream. */
  downloadDashboardExport: endpoint({
    id: 'downloadExport',
    method: 'GET',
    path: `${DEP}/dashboard-exports/{jobId}/download`,
    section: '4.15',
    summary: 'Stream a completed render (409 while rendering, 422 when failed)',
    params: ExportJobParams,
    query: z.object({ filename: z.string().min(1).optional() }),
    response: Unspecified,
    responseType: 'binary',
  }),
  getMetricViewIntegration: endpoint({
    id: 'getIntegration',
    method: 'GET',
    path: `${DEP}/databricks-metric-view-integrations/{dataSourceName}`,
    section: '4.15',
    summary: 'Databricks metric-view publication settings of a data source',
    params: MetricViewIntegrationParams,
    response: MetricViewIntegration,
  }),
  saveMetricViewIntegration: endpoint({
    id: 'saveIntegration',
    method: 'PUT',
    path: `${DEP}/databricks-metric-view-integrations/{dataSourceName}`,
    section: '4.15',
    summary: 'Create (expectedConfigurationVersion 0) or update the publication settings',
    params: MetricViewIntegrationParams,
    body: SaveMetricViewIntegrationInput,
    response: MetricViewIntegration,
  }),
  startMetricViewPreview: endpoint({
    id: 'startPreview',
    method: 'POST',
    path: `${DEP}/databricks-metric-view-previews`,
    section: '4.15',
    summary: 'Queue a metric-view conversion preview (202)',
    params: DeploymentParams,
    body: StartMetricViewPreviewInput,
    response: MetricViewPreviewStarted,
    status: 202,
  }),
  metricViewPreviewStatus: endpoint({
    id: 'previewStatus',
    method: 'GET',
    path: `${DEP}/databricks-metric-view-previews/{previewId}`,
    section: '4.15',
    summary: 'Status of a metric-view preview',
    params: MetricViewPreviewParams,
    response: MetricViewPreviewStatus,
  }),
  metricViewPreviewResult: endpoint({
    id: 'previewResult',
    method: 'GET',
    path: `${DEP}/databricks-metric-view-previews/{previewId}/result`,
    section: '4.15',
    summary: 'Result of a completed metric-view preview (409 while running)',
    params: MetricViewPreviewParams,
    response: MetricViewPreviewResult,
  }),
  cancelMetricViewPreview: endpoint({
    id: 'cancelPreview',
    method: 'DELETE',
    path: `${DEP}/databricks-metric-view-previews/{previewId}`,
    section: '4.15',
    summary: 'Cancel a metric-view preview',
    params: MetricViewPreviewParams,
    response: Unspecified,
  }),
} as const;
