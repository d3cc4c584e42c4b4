/** Data-model files, uploads, hashes and validation (build API, spec 4.13 and 4.15). */
import { z } from 'zod';
import { endpoint } from '../endpoint.js';
import { Bool, CursorQuery, DeploymentParams, WriteResponse, cursorPage } from '../schemas.js';

const BUILD = '/build/api/v1/deployments/{deploymentId}';

/** Branch selection shared by upload and hash endpoints (query). */
export const BranchQuery = z.object({
  branchName: z.string().min(1).optional(),
  live: Bool.optional(),
  useDeployProjectRoot: Bool.optional(),
});

/** One node of the file tree (`SourceTreeResponse` items are free-form objects). */
export const SourceTreeNode = z.looseObject({
  fileName: z.string().optional(),
  path: z.string().optional(),
  content: z.string().optional(),
});
export type SourceTreeNode = z.infer<typeof SourceTreeNode>;

export const FileContent = z.looseObject({ path: z.string().min(1), content: z.string() });
export const FilePath = z.looseObject({ path: z.string().min(1) });
export const FileRename = z.looseObject({ path: z.string().min(1), newPath: z.string().min(1) });

/** A write names its branch by name or id; omitted, the caller's dev-mode branch is meant. */
const BranchTarget = { branchName: z.string().min(1).optional(), branchId: z.number().int().optional() };

export const UpdateFilesInput = z.looseObject({ ...BranchTarget, files: z.array(FileContent) });
export const RemoveFilesInput = z.looseObject({ ...BranchTarget, files: z.array(FilePath) });
export const RenameFilesInput = z.looseObject({ ...BranchTarget, files: z.array(FileRename) });

/** `file-hashes`: POSIX path -> `{ hash }` (SHA-1 hex of the raw bytes); the vendor's CLI also accepts it wrapped in `{ files }`. */
export const FileHash = z.looseObject({ hash: z.string() });
export const FileHashes = z.preprocess(
  (v) => (v && typeof v === 'object' && !Array.isArray(v) && 'files' in v && (v as { files: unknown }).files && typeof (v as { files: unknown }).files === 'object' ? (v as { files: unknown }).files : v),
  z.record(z.string(), FileHash),
);
export type FileHashes = z.infer<typeof FileHashes>;

export const UploadTransaction = z.looseObject({ id: z.string().min(1) });
export const StartUploadResponse = z.looseObject({ transaction: UploadTransaction, deploymentName: z.string() });
export type StartUploadResponse = z.infer<typeof StartUploadResponse>;

/** `upload/start` body: the branch, as the vendor's CLI sends it (the vendor's file documents only the query). */
export const StartUploadBody = z.looseObject({ branchName: z.string().min(1).optional() });

/** Multipart body of `upload/file`: the transaction (the JSON text of the object `start` returned), the POSIX path and the bytes. */
export const UploadFileBody = z.object({
  transaction: z.string().min(1),
  fileName: z.string().min(1),
  file: z.union([z.instanceof(Buffer), z.string()]),
});

/** Finish: the full manifest (`files`, path -> `{ hash }`); files missing from it are removed when `autoRemoveFiles`. */
export const FinishUploadBody = z.looseObject({
  transaction: UploadTransaction,
  /** The branch, in the body as the vendor's CLI sends it (and in the query, as the vendor's file documents it). */
  branchName: z.string().min(1).optional(),
  files: FileHashes,
  autoRemoveFiles: z.boolean().nullish(),
  awaitGitOperations: z.boolean().nullish(),
  commitMessage: z.string().nullish(),
});
export const FinishUploadResponse = z.looseObject({ lastHash: z.string().nullish() });

export const ValidationError = z.looseObject({ message: z.string(), fileName: z.string().nullish() });
export type ValidationError = z.infer<typeof ValidationError>;
export const ValidationResponse = z.looseObject({
  deploymentId: z.number().int(),
  branchName: z.string(),
  mode: z.string(),
  valid: z.boolean(),
  errors: z.array(ValidationError),
  cubesCount: z.number().int().nullish(),
});
export type ValidationResponse = z.infer<typeof ValidationResponse>;

export const ValidateQuery = z
  .object({ branchName: z.string().min(1).optional(), devMode: Bool.optional() })
  .refine((q) => !(q.branchName && q.devMode), {
    message: 'branchName and devMode=true are mutually exclusive',
    path: ['devMode'],
  });

export const dataModelEndpoints = {
  listFiles: endpoint({
    id: 'listFiles',
    method: 'GET',
    path: `${BUILD}/data-model/files`,
    section: '4.15',
    summary: 'List data-model files (tree)',
    params: DeploymentParams,
    query: CursorQuery.extend({
      branchName: z.string().min(1).optional(),
      withContent: Bool.optional(),
      showLastCLIUpload: Bool.optional(),
    }),
    response: cursorPage(SourceTreeNode),
    pagination: 'cursor',
    access: { permissions: ['SchemaRead', 'DeploymentRead'] },
  }),
  updateFiles: endpoint({
    id: 'updateFiles',
    method: 'PUT',
    path: `${BUILD}/data-model/files`,
    section: '4.15',
    summary: 'Create or overwrite data-model files on a dev-mode branch',
    params: DeploymentParams,
    body: UpdateFilesInput,
    response: WriteResponse,
    access: { permissions: ['SchemaRead', 'SchemaUpdate', 'SchemaUpdateDevBranches', 'DeploymentRead'] },
  }),
  removeFiles: endpoint({
    id: 'removeFiles',
    method: 'DELETE',
    path: `${BUILD}/data-model/files`,
    section: '4.15',
    summary: 'Delete data-model files on a dev-mode branch',
    params: DeploymentParams,
    body: RemoveFilesInput,
    response: WriteResponse,
    access: { permissions: ['SchemaRead', 'SchemaUpdate', 'SchemaUpdateDevBranches', 'DeploymentRead'] },
  }),
  renameFiles: endpoint({
    id: 'renameFiles',
    method: 'POST',
    path: `${BUILD}/data-model/files/rename`,
    section: '4.15',
    summary: 'Rename data-model files on a dev-mode branch',
    params: DeploymentParams,
    body: RenameFilesInput,
    response: WriteResponse,
    access: { permissions: ['SchemaRead', 'SchemaUpdate', 'SchemaUpdateDevBranches', 'DeploymentRead'] },
  }),
  startUpload: endpoint({
    id: 'startUpload',
    method: 'POST',
    path: `${BUILD}/data-model/upload/start`,
    section: '4.15',
    summary: 'Start an upload transaction',
    params: DeploymentParams,
    query: BranchQuery,
    body: StartUploadBody.optional(),
    response: StartUploadResponse,
    access: { permissions: ['SchemaRead', 'SchemaUpdate', 'SchemaUpdateDevBranches', 'DeploymentRead'] },
  }),
  uploadFile: endpoint({
    id: 'uploadFile',
    method: 'POST',
    path: `${BUILD}/data-model/upload/file`,
    section: '4.15',
    summary: 'Upload one file of a transaction (multipart)',
    params: DeploymentParams,
    query: BranchQuery,
    body: UploadFileBody,
    bodyType: 'multipart',
    response: z.unknown(),
    access: { permissions: ['SchemaRead', 'SchemaUpdate', 'SchemaUpdateDevBranches', 'DeploymentRead'] },
  }),
  finishUpload: endpoint({
    id: 'finishUpload',
    method: 'POST',
    path: `${BUILD}/data-model/upload/finish`,
    section: '4.15',
    summary: 'Finish an upload transaction with the full manifest',
    params: DeploymentParams,
    query: BranchQuery,
    body: FinishUploadBody,
    response: FinishUploadResponse,
    access: { permissions: ['SchemaRead', 'SchemaUpdate', 'SchemaUpdateDevBranches', 'DeploymentRead'] },
  }),
  fileHashes: endpoint({
    id: 'fileHashes',
    method: 'GET',
    path: `${BUILD}/data-model/file-hashes`,
    section: '4.15',
    summary: 'SHA-1 of every file of a branch, keyed by POSIX path',
    params: DeploymentParams,
    query: BranchQuery,
    response: FileHashes,
    access: { permissions: ['SchemaRead', 'DeploymentRead'] },
  }),
  validate: endpoint({
    id: 'validateDataModel',
    method: 'GET',
    path: `${BUILD}/data-model/validate`,
    section: '4.13',
    summary: 'Compile a branch and report its errors (200 with valid: false when broken)',
    params: DeploymentParams,
    query: ValidateQuery,
    response: ValidationResponse,
    access: { permissions: ['SchemaRead', 'DeploymentRead'] },
  }),
} as const;
