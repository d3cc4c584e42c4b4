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

/** Where a running version stands in the table: covered itself, or between the nearest covered versions around it. */
export type Coverage = { exact: string } | { older?: string; newer?: string };

/**
 * The table's place for `running`: itself when covered, else the nearest covered versions on either side
 * (one side only outside the table's range); undefined when `running` is not a plain version. A version
 * between two covered ones is not read as either: what they disagree on is not known for it.
 */
export function coverageOf(running: string): Coverage | undefined {
  const v = parseVersion(running);
  if (!v) return undefined;
  const plain = v.join('.');
  if (KEYS.versions.includes(plain)) return { exact: plain };
  const older = KEYS.versions.filter((c) => compareVersions(c, plain) < 0).at(-1);
  const newer = KEYS.versions.find((c) => compareVersions(c, plain) > 0);
  return { ...(older ? { older } : {}), ...(newer ? { newer } : {}) };
}

/** The minors the table covers, each with its covered patches: `1.6 (1.6.7, 1.6.10, …)`. */
export function coveredByMinor(): { minor: string; patches: string[] }[] {
  const out: { minor: string; patches: string[] }[] = [];
  for (const v of KEYS.versions) {
    const minor = v.split('.').slice(0, 2).join('.');
    const last = out.at(-1);
    if (last?.minor === minor) last.patches.push(v);
    else out.push({ minor, patches: [v] });
  }
  return out;
}

/** The minors between the table's oldest and newest that it holds no patch of (`1.0`, `1.4`). */
export function missingMinors(): string[] {
  const held = new Set(coveredByMinor().map((m) => m.minor));
  const [first, last] = [parseVersion(KEYS.versions[0] as string), parseVersion(KEYS.versions.at(-1) as string)];
  if (!first || !last) return [];
  const out: string[] = [];
  for (let major = first[0]; major <= last[0]; major++) {
    const from = major === first[0] ? first[1] : 0;
    const to = major === last[0] ? last[1] : Math.max(...[...held].filter((m) => m.startsWith(`${major}.`)).map((m) => Number(m.split('.')[1])), -1);
    for (let minor = from; minor <= to; minor++) if (!held.has(`${major}.${minor}`)) out.push(`${major}.${minor}`);
  }
  return out;
}

/** The table's coverage said as it is (docs/impact.md holds this text; a test fails when it drifts). */
export function coverageStatement(): string {
  const list = coveredByMinor()
    .map((m) => `${m.minor}: ${m.patches.join(', ')}`)
    .join('; ');
  return (
    `The key table covers ${KEYS.versions.length} versions of \`${KEYS.package}\`, only these patches (${list}). ` +
    `It holds no patch of ${missingMinors().join(', ')}, and none between two patches listed here: every such version is not covered.`
  );
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
