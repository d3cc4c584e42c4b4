/**
 * `/v1/meta` from the compiler's meta transformer: every cube and view as the compiler describes it,
 * less what is not visible (members with `public: false`, primary keys unless made public, and cubes
 * left with no member), as the gateway filters it.
 */
import type { CubeCompilers } from './vendor.js';

/** A measure, dimension or segment as the meta transformer describes it (fields read here; the rest passes through). */
export interface MetaMember {
  name: string;
  title?: string;
  shortTitle?: string;
  description?: string;
  type?: string;
  format?: unknown;
  currency?: unknown;
  meta?: unknown;
  isVisible?: boolean;
  drillMembers?: unknown;
  drillMembersGrouped?: unknown;
  granularities?: { name: string; title?: string; interval?: string }[];
  [key: string]: unknown;
}

export interface MetaCube {
  name: string;
  type: 'cube' | 'view';
  title?: string;
  measures: MetaMember[];
  dimensions: MetaMember[];
  segments: MetaMember[];
  [key: string]: unknown;
}

interface ViewGroup {
  name: string;
  title?: string;
  description?: string;
  views?: string[];
  includes?: (string | ViewGroup)[];
}

interface MetaSource {
  cubes: { config: MetaCube }[];
  viewGroups?: ViewGroup[];
}

const source = (compilers: CubeCompilers) => compilers.metaTransformer as unknown as MetaSource;

/** Every cube and view, all members included (what the SQL builder and the annotation start from). */
export function allCubes(compilers: CubeCompilers): MetaCube[] {
  return source(compilers).cubes.map((c) => c.config);
}

/**
 * Cubes and views as the data API shows them: visible members only, cubes with none left out (`cubes`:
 * as Cube's access policies describe them to one context, engine/access.ts). The gateway's own filter
 * is this one step (its class is not loaded for it).
 */
export function visibleCubes(compilers: CubeCompilers, cubes: MetaCube[] = allCubes(compilers)): MetaCube[] {
  const visible = (m: MetaMember) => m.isVisible !== false;
  return cubes
    .map((c) => ({ ...c, measures: c.measures.filter(visible), dimensions: c.dimensions.filter(visible), segments: c.segments.filter(visible) }))
    .filter((c) => c.measures.length || c.dimensions.length || c.segments.length);
}

/** A view group with only the views that are visible; null when nothing of it is left. */
function visibleGroup(group: ViewGroup, names: Set<string>): ViewGroup | null {
  const views = (group.views ?? []).filter((v) => names.has(v));
  const includes = (group.includes ?? [])
    .map((i) => (typeof i === 'string' ? (names.has(i) ? i : null) : visibleGroup(i, names)))
    .filter((i): i is string | ViewGroup => i !== null);
  if (!views.length && !includes.length) return null;
  return { name: group.name, title: group.title, description: group.description, views, includes };
}

/** The body of `/v1/meta` (`onlyViews`: the `?onlyViews=true` form; `described`: as the policies show them to one context). */
export function metaBody(compilers: CubeCompilers, onlyViews = false, described?: MetaCube[]): { cubes: MetaCube[]; viewGroups?: ViewGroup[] } {
  const cubes = visibleCubes(compilers, described).filter((c) => !onlyViews || c.type === 'view');
  const names = new Set(cubes.map((c) => c.name));
  const viewGroups = (source(compilers).viewGroups ?? []).map((g) => visibleGroup(g, names)).filter((g): g is ViewGroup => g !== null);
  return viewGroups.length ? { cubes, viewGroups } : { cubes };
}

/** A member of the visible cubes by kind and full name (`orders.count`), for the annotation. */
export function findMember(cubes: MetaCube[], kind: 'measures' | 'dimensions' | 'segments', name: string): MetaMember | undefined {
  const cube = cubes.find((c) => c.name === name.split('.')[0]);
  return cube?.[kind].find((m) => m.name === name);
}
