import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { HttpClient, RequestOptions } from '../http.js';
import { bind, callStream } from '../request.js';
import { auditLogEndpoints, type AuditLogExportArgs } from '@datamodel-ci/platform-api';

export interface ExportResult {
  /** Bytes of CSV written. */
  bytes: number;
  /** File name from `Content-Disposition`, when the server gave one. */
  fileName?: string;
  contentType?: string;
}

export interface ExportStreamOptions extends RequestOptions {
  /** End the writable when the export is complete (default true). */
  end?: boolean;
}

/** The file name of a `Content-Disposition` header (`filename*=` preferred over `filename=`). */
export function contentDispositionFileName(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const star = /filename\*\s*=\s*([^']*)'[^']*'([^;]+)/i.exec(header);
  if (star?.[2]) {
    try {
      return decodeURIComponent(star[2].trim());
    } catch {
      // fall back to the plain parameter
    }
  }
  const plain = /filename\s*=\s*("((?:[^"\\]|\\.)*)"|[^;]+)/i.exec(header);
  if (!plain) return undefined;
  const value = plain[2] !== undefined ? plain[2].replace(/\\(.)/g, '$1') : (plain[1] ?? '').trim();
  return value || undefined;
}

/** Copy a response body into a writable, counting bytes. */
async function drain(body: Readable, writable: Writable, options: ExportStreamOptions): Promise<number> {
  let bytes = 0;
  await pipeline(
    body,
    async function* count(source: AsyncIterable<Buffer>) {
      for await (const chunk of source) {
        bytes += chunk.length;
        yield chunk;
      }
    },
    writable,
    { end: options.end ?? true, signal: options.signal },
  );
  return bytes;
}

export function auditLogsApi(http: HttpClient) {
  const e = auditLogEndpoints.export;

  /** Send the request; the error of a non-2xx answer is thrown before any byte is written anywhere. */
  async function open(args: AuditLogExportArgs, options?: RequestOptions) {
    const { headers, body } = await callStream(http, e, args, options);
    return {
      body,
      meta: { fileName: contentDispositionFileName(headers['content-disposition']), contentType: headers['content-type'] },
    };
  }

  return {
    ...bind(http, auditLogEndpoints),
    /** The whole export as text (buffered: prefer the streaming calls for large logs). */
    async export(args: AuditLogExportArgs = {}, options?: RequestOptions): Promise<string> {
      const { body } = await open(args, options);
      const chunks: Buffer[] = [];
      for await (const chunk of body) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
    /** Stream the export into a writable (ended when done unless `end: false`). */
    async exportToStream(args: AuditLogExportArgs, writable: Writable, options: ExportStreamOptions = {}): Promise<ExportResult> {
      const { body, meta } = await open(args, options);
      const bytes = await drain(body, writable, options);
      return { bytes, ...meta };
    },
    /**
     * Stream the export into a file: written to a temporary file beside it and renamed on success, so
     * a failed export leaves no partial file (and an existing file untouched).
     */
    async exportToFile(args: AuditLogExportArgs, filePath: string, options: RequestOptions = {}): Promise<ExportResult> {
      const { body, meta } = await open(args, options);
      const temp = join(dirname(filePath), `.${basename(filePath)}.${randomBytes(6).toString('hex')}.part`);
      try {
        const bytes = await drain(body, createWriteStream(temp, { flags: 'wx' }), options);
        await rename(temp, filePath);
        return { bytes, ...meta };
      } catch (error) {
        body.destroy();
        await rm(temp, { force: true });
        throw error;
      }
    },
  };
}
