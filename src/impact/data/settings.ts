/** The data diff's inputs, read and checked with the other inputs (before the first network call). */
import { InputError } from '../../client/errors.js';
import { DEFAULTS } from '../../defaults.js';
import type { InputReader } from '../../settings.js';
import type { DataDiffLimits, DataDiffMode } from './types.js';

export interface DataDiffSettings {
  mode: DataDiffMode | 'off';
  allowPublic: boolean;
  /** Path of the key-queries file (read by the command before its first call). */
  queriesFile?: string;
  securityContext: Record<string, unknown>;
  limits: DataDiffLimits;
  failOnChange: boolean;
}

/** A number of at least 0 (fractions allowed). */
function nonNegative(r: InputReader, name: string): number {
  const v = r.raw(name) ?? '0';
  const n = Number(v);
  if (!/^\d+(\.\d+)?(e-?\d+)?$/i.test(v) || !Number.isFinite(n)) throw new InputError(name, v, 'a number of at least 0');
  return n;
}

function securityContext(r: InputReader): Record<string, unknown> {
  const v = r.raw('data-diff-security-context');
  if (v === undefined) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(v);
  } catch {
    throw new InputError('data-diff-security-context', '(not shown)', 'a JSON object, e.g. {"tenant":"acme"}');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new InputError('data-diff-security-context', '(not shown)', 'a JSON object, e.g. {"tenant":"acme"}');
  return parsed as Record<string, unknown>;
}

export function readDataDiff(r: InputReader): DataDiffSettings {
  const mode = r.oneOf('data-diff', ['off', 'values', 'relative'] as const);
  const queriesFile = r.string('data-diff-queries');
  return {
    mode,
    allowPublic: r.bool('data-diff-allow-public'),
    ...(queriesFile ? { queriesFile } : {}),
    securityContext: securityContext(r),
    limits: {
      maxQueries: r.int('data-diff-max-queries', 1, 500) ?? DEFAULTS.dataDiffMaxQueries,
      maxRows: r.int('data-diff-max-rows', 1, 50_000) ?? DEFAULTS.dataDiffMaxRows,
      concurrency: r.int('data-diff-concurrency', 1, 16) ?? DEFAULTS.dataDiffConcurrency,
      queryTimeoutMs: (r.int('data-diff-query-timeout', 1, 600) ?? DEFAULTS.dataDiffQueryTimeoutSeconds) * 1000,
      absTolerance: nonNegative(r, 'data-diff-abs-tolerance'),
      relTolerance: nonNegative(r, 'data-diff-rel-tolerance'),
    },
    failOnChange: r.bool('fail-on-data-change'),
  };
}
