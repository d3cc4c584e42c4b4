/**
 * What each covered version of Cube's compiler accepts in a model: the committed table
 * (`cube-keys.json`) that scripts/cube-model-keys.mjs reads from the validators of the published
 * `@cubejs-backend/schema-compiler` patches. Paths as the compiler spells them (`cube.measures.*.mask`),
 * `*` for any member name or list item.
 */
import table from './cube-keys.json' with { type: 'json' };

/** A run of covered versions, first and last included. */
type Runs = readonly (readonly string[])[];

interface KeyTable {
  package: string;
  versions: readonly string[];
  keys: Readonly<Record<string, Runs>>;
  values: Readonly<Record<string, Readonly<Record<string, Runs>>>>;
}

const KEYS = table as unknown as KeyTable;

/** `1.6.33` → [1, 6, 33]; undefined when not a plain semantic version. */
export function parseVersion(v: string): [number, number, number] | undefined {
  const m = /^v?(\d+)\.(\d+)\.(\d+)$/.exec(v.trim());
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
}

export function compareVersions(a: string, b: string): number {
  const [x, y] = [parseVersion(a), parseVersion(b)];
  if (!x || !y) return a.localeCompare(b);
  return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
}

/** The covered versions, oldest first. */
export const coveredVersions = (): readonly string[] => KEYS.versions;

/** The table's stand-in for a running version. */
export interface TableVersion {
  /** The covered version read for it. */
  version: string;
  /** The running version is itself covered. */
  exact: boolean;
}

/**
 * The covered version that answers for `running`: itself, else the nearest older covered patch of its
 * minor (a key added between the two is then reported as refused: the table errs towards saying), else
 * undefined (a minor the table does not hold, or older than its first covered patch).
 */
export function tableVersionFor(running: string): TableVersion | undefined {
  const v = parseVersion(running);
  if (!v) return undefined;
  const plain = v.join('.');
  if (KEYS.versions.includes(plain)) return { version: plain, exact: true };
  const older = KEYS.versions.filter((c) => {
    const p = parseVersion(c);
    return p?.[0] === v[0] && p[1] === v[1] && p[2] < v[2];
  });
  const nearest = older.at(-1);
  return nearest ? { version: nearest, exact: false } : undefined;
}

const within = (runs: Runs | undefined, version: string): boolean =>
  !!runs?.some(([first, last]) => compareVersions(version, first as string) >= 0 && compareVersions(version, last as string) <= 0);

/** Some covered version accepts the key path. */
export const knownKey = (path: string): boolean => path in KEYS.keys;

/** The covered version `version` accepts the key path. */
export const acceptsKey = (version: string, path: string): boolean => within(KEYS.keys[path], version);

/** The values some covered version allows at `path` (undefined when the key takes any value). */
export const enumerated = (path: string): readonly string[] | undefined => (KEYS.values[path] ? Object.keys(KEYS.values[path]) : undefined);

/** The covered version `version` allows `value` at `path`. */
export const acceptsValue = (version: string, path: string, value: string): boolean => within(KEYS.values[path]?.[value], version);

/** The first covered version that accepts the key (or the value at it). */
export function firstAccepting(path: string, value?: string): string | undefined {
  const runs = value === undefined ? KEYS.keys[path] : KEYS.values[path]?.[value];
  return runs?.[0]?.[0];
}
