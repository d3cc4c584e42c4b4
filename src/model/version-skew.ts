/**
 * The Cube version skew: staging compiles the pull request's model with the newest Cube while production
 * runs its channel's older one, so a key that validates on staging can be refused by production after
 * the merge. Pure: the model files and the two versions in, each key (or enumerated value) production's
 * version refuses out, with its file and line, read from the committed table of Cube's own validators.
 */
import { acceptsKey, acceptsValue, coveredVersions, enumerated, firstAccepting, knownKey, tableVersionFor, type TableVersion } from './cube-keys.js';
import { ModelSet, type ModelTexts } from './locate/model-set.js';
import { itemName, type TreeNode } from './locate/model-tree.js';

/** A key (or a value of it) the pull request's model uses that production's Cube refuses. */
export interface RefusedKey {
  /** Where it is, as written: `orders.measures.total.mask`. */
  key: string;
  /** The value production refuses at the key (a measure `type`, a join `relationship`), when it is the value. */
  value?: string;
  file: string;
  line: number;
  /** The first covered Cube version that accepts it. */
  version: string;
}

/** The two Cube versions and what production's refuses of the pull request's model. */
export interface VersionSkew {
  production?: string;
  staging?: string;
  /** The table's version read for production's (itself, or the nearest older covered patch). */
  checkedAgainst?: TableVersion;
  refused: RefusedKey[];
  /** Why the model was not checked (production's version unknown, or outside the table). */
  unchecked?: string;
}

const camelCase = (key: string) => key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/** Every key of the model files that `version` (a covered one) refuses while another covered version accepts it. */
export function refusedKeys(texts: ModelTexts, version: string): RefusedKey[] {
  const out: RefusedKey[] = [];
  for (const file of new ModelSet(texts).models()) {
    const visit = (node: TreeNode, path: string, shown: string) => {
      const step = (child: TreeNode, next: string, name: string, line: number) => {
        if (!acceptsKey(version, next)) {
          // The key itself is refused: what is under it goes with it.
          out.push({ key: name, file: file.path, line, version: firstAccepting(next) as string });
          return;
        }
        const value = child.kind === 'scalar' ? child.text : undefined;
        // YAML writes `count_distinct` where the validator (after Cube's YAML reading) sees `countDistinct`.
        const listed = value === undefined ? undefined : [value, camelCase(value)].find((v) => enumerated(next)?.includes(v));
        if (value !== undefined && listed !== undefined && !acceptsValue(version, next, listed))
          out.push({ key: name, value, file: file.path, line, version: firstAccepting(next, listed) as string });
        visit(child, next, name);
      };
      for (const entry of node.kind === 'map' ? node.entries : []) {
        // A list item's `name` is what YAML names the item by, not a key (older Cubes refuse `joins.*.name`).
        if (entry.key === 'name' && path.endsWith('.*')) continue;
        const own = `${path}.${camelCase(entry.key)}`;
        // A key Cube knows, else a member's (or any) name under a map of names; a key no covered version knows is the validation's to report.
        const next = knownKey(own) ? own : knownKey(`${path}.*`) ? `${path}.*` : undefined;
        if (next) step(entry.value, next, `${shown}.${entry.key}`, entry.at.line);
      }
      if (node.kind === 'list' && knownKey(`${path}.*`))
        node.items.forEach((item, i) =>
          step(item, `${path}.*`, itemName(item) === undefined ? `${shown}[${i}]` : `${shown}.${itemName(item)}`, item.start.line),
        );
    };
    for (const entity of file.entities) visit(entity.body, entity.kind, entity.name ?? entity.kind);
  }
  return out.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line);
}

/** The skew between production's and staging's Cube for this model; nothing refused when both run the same. */
export function versionSkew(texts: ModelTexts | undefined, versions: { production?: string; staging?: string }): VersionSkew {
  const { production, staging } = versions;
  const known = { ...(production ? { production } : {}), ...(staging ? { staging } : {}) };
  if (!production) return { ...known, refused: [], unchecked: "production's Cube version is unknown: the model was not checked against it" };
  const covered = coveredVersions();
  const checkedAgainst = tableVersionFor(production);
  // Staging validated the model with production's own version: nothing to check, nothing to say.
  if (production === staging) return { ...known, ...(checkedAgainst ? { checkedAgainst } : {}), refused: [] };
  if (!texts) return { ...known, refused: [], unchecked: "the pull request's model files were not read: the model was not checked against production's Cube" };
  if (!checkedAgainst)
    return {
      ...known,
      refused: [],
      unchecked: `production runs Cube ${production}, which the key table (${covered[0]} to ${covered.at(-1)}) does not cover: the model was not checked against it`,
    };
  return { ...known, checkedAgainst, refused: refusedKeys(texts, checkedAgainst.version) };
}

/** `orders.measures.total.mask` or `orders.measures.total.type: numberAgg`. */
export const refusedText = (r: RefusedKey): string => (r.value === undefined ? r.key : `${r.key}: ${r.value}`);
