/**
 * The facts of the vendor's OpenAPI 3.1 description (committed under packages/platform-api/vendor/ by
 * `npm run refresh-contract`), loaded once, with an Ajv validator for its schemas.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { ROOT } from '../../packages/platform-api/scripts/generate.js';
import { VENDOR_FILE } from '../../packages/platform-api/scripts/vendor-data.js';

export interface VendorOperation {
  method: string;
  path: string;
  operationId?: string;
  requestBody?: { content?: Record<string, { schema?: unknown }> };
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
  parameters?: { in: string; name: string; schema?: unknown }[];
}

export const vendorDoc = JSON.parse(readFileSync(join(ROOT, VENDOR_FILE), 'utf8')) as {
  paths: Record<string, Record<string, VendorOperation>>;
  components: { schemas: Record<string, unknown> };
};

const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
ajv.addSchema({ $id: 'vendor', components: vendorDoc.components }, 'vendor');

/** Rewrite `#/components/...` refs to point into the registered vendor document. */
function rebase(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(rebase);
  if (schema && typeof schema === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(schema)) {
      out[k] = k === '$ref' && typeof v === 'string' && v.startsWith('#/') ? `vendor${v}` : rebase(v);
    }
    return out;
  }
  return schema;
}

/** Validate a value against a schema of the vendor file; returns the error texts (empty when valid). */
export function vendorValidate(schema: unknown, value: unknown): string[] {
  const validate = ajv.compile(rebase(schema) as object);
  if (validate(value)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? ''}`.trim());
}

/** The vendor operation for a method and a concrete path (or a template). */
export function vendorOperation(method: string, path: string): VendorOperation | undefined {
  const norm = (p: string) => p.replace(/\{[^}]+\}/g, '{}').replace(/\/+$/, '');
  for (const [template, item] of Object.entries(vendorDoc.paths)) {
    const re = new RegExp(
      `^${norm(template)
        .replace(/[.*+?^$()|[\]\\]/g, '\\$&')
        .replace(/\\\{\\\}|\{\}/g, '[^/]+')}$`,
    );
    if (re.test(norm(path)) || norm(template) === norm(path)) {
      const op = item[method.toLowerCase()];
      if (op) return { ...op, method: method.toUpperCase(), path: template };
    }
  }
  return undefined;
}
