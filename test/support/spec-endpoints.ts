/**
 * Every endpoint that spec section 4 (4.1–4.15) names: the operations the overlay does not mark
 * `spec: false` (packages/platform-api/overlay/operations.yaml), with their method and path. The
 * route-table test checks this list against the spec's text.
 */
import { join } from 'node:path';
import { endpoints } from '@datamodel-ci/platform-api';
import { OVERLAY_DIR, ROOT } from '../../packages/platform-api/scripts/generate.js';
import { loadOverlay } from '../../packages/platform-api/scripts/overlay.js';

const table = endpoints as Record<string, { method: string; path: string }>;

export const specEndpoints: { section: string; method: string; path: string; id: string }[] = loadOverlay(join(ROOT, OVERLAY_DIR))
  .operations.filter((o) => o.spec)
  .map((o) => ({ section: o.section, id: o.id, method: table[o.id]?.method ?? '?', path: table[o.id]?.path ?? '?' }));

/** `{deployment_id}`, `{id}`, `{deploymentId}` all compare equal; a trailing slash is ignored. */
export function routeKey(method: string, path: string): string {
  return `${method.toUpperCase()} ${path.replace(/\{[^}]+\}/g, '{}').replace(/\/+$/, '')}`;
}
